/**
 * `biogate device accept-registration --location ID --sn SN`: the CLI twin of
 * `POST /api/devices/{sn}/accept-registration` [PUSH-v3 §3.3]. A terminal first seen polling as v2 is
 * refused registration (406) until accepted; after the CLI accepts it, its registry request registers it.
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { startApp } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { client } from '../api/client.js';

t.test('device accept-registration lets a terminal first seen as v2 register as v3', async (t) => {
  const started = await startApp(t, { config: { longpollS: 0 } });
  const api = client(started.url, started.token);
  t.equal((await api('POST', '/api/devices', { body: { sn: 'CLIACC01' } })).status, 201);
  const sim = (protocol: 'v2' | 'v3') => {
    const d = createSimulatedDevice({
      url: started.url,
      sn: 'CLIACC01',
      protocol,
      pollDelayMs: 60_000,
      fast: true,
      requestTimeoutMs: 30_000,
    });
    t.teardown(() => d.stop());
    return d;
  };
  const old = sim('v2');
  await old.handshake();
  await old.pollOnce();
  const v3 = sim('v3');
  await t.rejects(v3.handshake(), /406/, 'refused until accepted');

  const env = { BIOGATE_STORE: started.storeUrl };
  const loc = String(started.locationId);
  const unknown = await cli(['device', 'accept-registration', '--location', loc, '--sn', 'NOPE0001'], env);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /DEVICE_NOT_FOUND/);
  t.equal((await cli(['device', 'accept-registration', '--location', loc], env)).code, 2, '--sn is required');
  const accepted = await cli(['device', 'accept-registration', '--location', loc, '--sn', 'CLIACC01', '--json'], env);
  t.equal(accepted.code, 0, accepted.stderr);
  t.match(JSON.parse(accepted.stdout), { serial_number: 'CLIACC01', registration: { bound: false, accepted_at: String } });

  await v3.handshake();
  while ((await v3.pollOnce()) > 0);
  const device = await api('GET', '/api/devices/CLIACC01');
  t.match(device.body, { version: '3.0.0', auth: 'registration', registration: { bound: true } });
});
