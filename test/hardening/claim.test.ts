/**
 * Issue #32 (9): BIOGATE_DEVICE_CLAIM. `open` (the default): a location token assigns any serial no
 * other location holds. `admin`: a location token assigns only serials once assigned to its location;
 * a serial new to the location is assigned by the admin (POST /admin/devices/{sn}/assign or
 * `biogate device assign`), else 403 DEVICE_CLAIM_ADMIN. Runs on either store (TEST_STORE).
 */
import t from 'tap';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { gateway, type ErrorBody } from '../api/client.js';

const admin = { token: ADMIN_TOKEN };

t.test('admin claim: a location token cannot take a serial its location never had', async (t) => {
  const { a, tenant, started } = await gateway(t, { env: { BIOGATE_DEVICE_CLAIM: 'admin' }, config: { adminToken: ADMIN_TOKEN } });
  const b = await tenant('B');
  // A terminal knocks: anyone who knows its serial could otherwise own it when it connects.
  const knock = await fetch(`${started.url}/iclock/cdata?SN=CLAIM1&options=all&pushver=2.4.1`);
  await knock.text();

  const refused = await a.api<ErrorBody>('POST', '/api/devices', { body: { sn: 'CLAIM1' } });
  t.equal(refused.status, 403);
  t.equal(refused.body.code, 'DEVICE_CLAIM_ADMIN');
  t.match(refused.body.detail, /BIOGATE_DEVICE_CLAIM=admin.*admin assigns it/);
  t.equal(
    (await a.api<ErrorBody>('POST', '/api/devices', { body: { sn: 'NEVERSEEN' } })).body.code,
    'DEVICE_CLAIM_ADMIN',
    'unseen serial too',
  );

  const byAdmin = await a.api('POST', '/admin/devices/CLAIM1/assign', { ...admin, body: { location_id: a.id } });
  t.equal(byAdmin.status, 201, 'the admin assigns it');
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'CLAIM1', name: 'Front door' } })).status, 200, 'its location may update it');

  t.equal((await a.api('DELETE', '/api/devices/CLAIM1')).status, 200);
  t.equal((await b.api<ErrorBody>('POST', '/api/devices', { body: { sn: 'CLAIM1' } })).body.code, 'DEVICE_CLAIM_ADMIN', 'B never had it');
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'CLAIM1' } })).status, 201, 'A had it: A may take it back');

  // The CLI is the operator's: it assigns a serial new to the location, as the admin API does.
  const env = { BIOGATE_STORE: started.storeUrl, BIOGATE_DEVICE_CLAIM: 'admin' };
  const r = await cli(['device', 'assign', '--location', String(b.id), '--sn', 'CLAIM2'], env);
  t.equal(r.code, 0, r.stderr);
  t.equal((await b.api('POST', '/api/devices', { body: { sn: 'CLAIM2', name: 'Back door' } })).status, 200);
});

t.test('open claim (the default): a location token assigns a serial nobody holds', async (t) => {
  const { a } = await gateway(t);
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'OPEN1' } })).status, 201);
});
