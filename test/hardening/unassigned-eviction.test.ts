/**
 * Issue #32 (18, low): nothing cleaned the table of unassigned terminals. A periodic sweep evicts the
 * unassigned terminals not heard from for 30 days (idempotent with several nodes), and the admin deletes
 * an unassigned terminal: `DELETE /admin/devices/{sn}` or `biogate device delete --sn SN` (404 unknown,
 * 409 DEVICE_ASSIGNED). Either store.
 */
import t from 'tap';
import { ADMIN_TOKEN, DAY_MS, fakeClock } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { gateway, type ErrorBody, type Page } from '../api/client.js';
import { evictUnassigned } from '../../src/devices/assignment.js';

const admin = { token: ADMIN_TOKEN };

t.test('unassigned terminals silent for 30 days are evicted; assigned ones and recent ones stay', async (t) => {
  const clock = fakeClock();
  const { a, started, url } = await gateway(t, { clock, config: { adminToken: ADMIN_TOKEN, longpollS: 0 } });
  const knock = async (sn: string) => (await fetch(`${url}/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1`)).text();
  await knock('OLDUN1');
  await knock('OLDAS1');
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'OLDAS1' } })).status, 201, 'recorded unassigned, assigned now');
  await started.app.hub.presence.flush();
  clock.advance(31 * DAY_MS);
  await knock('NEWUN1');
  await started.app.hub.presence.flush();

  const store = started.app.store;
  // Two nodes sweeping at once: each device goes once.
  const [x, y] = await Promise.all([evictUnassigned({ store }, clock.now()), evictUnassigned({ store }, clock.now())]);
  t.equal(x + y, 1, 'one device evicted in all');
  const left = await a.api<Page<{ serial_number: string }>>('GET', '/admin/devices/unassigned', admin);
  t.strictSame(
    left.body.data.map((d) => d.serial_number),
    ['NEWUN1'],
  );
  t.ok(await store.devices.getBySerial('OLDAS1'), 'an assigned device is never evicted');
  t.equal(await evictUnassigned({ store }, clock.now()), 0, 'a second sweep finds nothing');
});

t.test('the admin deletes an unassigned terminal (API and CLI)', async (t) => {
  const { a, started, url } = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  for (const sn of ['DELUN1', 'DELUN2', 'DELAS1']) await (await fetch(`${url}/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1`)).text();
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'DELAS1' } })).status, 201);

  t.equal((await a.api('DELETE', '/admin/devices/DELUN1', admin)).status, 200);
  const again = await a.api<ErrorBody>('DELETE', '/admin/devices/DELUN1', admin);
  t.equal(again.status, 404);
  t.equal(again.body.code, 'DEVICE_NOT_FOUND');
  const assigned = await a.api<ErrorBody>('DELETE', '/admin/devices/DELAS1', admin);
  t.equal(assigned.status, 409);
  t.equal(assigned.body.code, 'DEVICE_ASSIGNED');
  t.equal((await a.api('DELETE', '/admin/devices/DELUN2')).status, 401, 'a location token is not the admin');

  const env = { BIOGATE_STORE: started.storeUrl };
  const del = await cli(['device', 'delete', '--sn', 'DELUN2'], env);
  t.equal(del.code, 0, del.stderr);
  t.match(del.stdout, /Deleted the unassigned device DELUN2/);
  const missing = await cli(['device', 'delete', '--sn', 'DELUN2'], env);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /DEVICE_NOT_FOUND/);
  const held = await cli(['device', 'delete', '--sn', 'DELAS1'], env);
  t.equal(held.code, 1);
  t.match(held.stderr, /DEVICE_ASSIGNED/);
  const listed = await a.api<Page<unknown>>('GET', '/admin/devices/unassigned', admin);
  t.equal(listed.body.total, 0);
});
