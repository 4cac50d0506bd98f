/**
 * Issue #15, external broker: the bridge against Debian's `mosquitto` started here on a loopback
 * port (password file, no persistence). BioGate logs in with BIOGATE_MQTT_USERNAME/PASSWORD and
 * publishes the feed there; bridge state online, last will offline when the process dies, offline on
 * a clean shutdown; a broker outage does not slow terminals, drops are counted, and the retained
 * state is published again to the restarted (empty) broker.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import {
  ADMIN_TOKEN,
  bearer,
  fakeClock,
  fetchJson,
  freePort,
  jsonBody,
  startApp,
  tempDir,
  within,
  type StartedApp,
} from '../helpers/app.js';
import { connect, type Recorder } from './mqtt-client.js';
import { NO_MOSQUITTO, startMosquitto, type Mosquitto } from './mosquitto.js';

const START = '2026-03-01T08:00:00.000Z';

async function watch(t: Test, m: Mosquitto, filter = 'biogate/#'): Promise<Recorder> {
  const w = await connect(t, m.url, { username: m.user, password: m.password });
  await w.client.subscribeAsync(filter);
  return w;
}

async function gateway(t: Test, m: Mosquitto, config: Record<string, unknown> = {}): Promise<StartedApp> {
  return startApp(t, {
    clock: fakeClock(START),
    config: {
      mqtt: m.url,
      mqttUsername: m.user,
      mqttPassword: m.password,
      adminToken: ADMIN_TOKEN,
      longpollS: 0,
      onlineThresholdS: 5,
      ...config,
    },
  });
}

async function metricValue(app: StartedApp, name: string, labels: Record<string, string> = {}): Promise<number> {
  const { body } = await fetchJson(`${app.url}/metrics`, { headers: bearer(ADMIN_TOKEN) });
  const line = String(body)
    .split('\n')
    .find(
      (l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

async function terminal(t: Test, app: StartedApp, sn: string) {
  const res = await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn }, bearer(app.token)));
  if (res.res.status !== 201) throw new Error(`assign ${sn}: ${res.res.status}`);
  const sim = createSimulatedDevice({ url: app.url, sn, protocol: 'v3', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  while ((await sim.pollOnce()) > 0);
  return sim;
}

t.test('publishes the feed to mosquitto: bridge state, availability, commands; offline on shutdown', { skip: NO_MOSQUITTO }, async (t) => {
  const m = await startMosquitto(t);
  const w = await watch(t, m);
  const app = await gateway(t, m);
  const state = await w.until('biogate/bridge/state', (x) => x.text === 'online', 'bridge online');
  t.equal(state.text, 'online');
  await terminal(t, app, 'EXT001');
  const availability = `biogate/${app.locationId}/devices/EXT001/availability`;
  await w.until(availability, (x) => x.text === 'online', 'terminal online');
  t.match(w.json(await w.next(`biogate/${app.locationId}/devices/EXT001/state`)), { serial_number: 'EXT001' });
  const queued = await fetchJson(`${app.url}/api/commands`, jsonBody('POST', { sn: 'EXT001', command: 'reboot' }, bearer(app.token)));
  const id = (queued.body as { id: number }).id;
  t.match(w.json(await w.next(`biogate/${app.locationId}/commands/${id}`)), { id, status: 'pending', command: 'reboot' });
  t.equal(await metricValue(app, 'biogate_mqtt_broker_connected'), 1);

  const late = await watch(t, m, availability);
  const retained = await late.next(availability);
  t.strictSame({ text: retained.text, retain: retained.retain }, { text: 'online', retain: true }, 'retained on the external broker');

  await app.close();
  await w.until('biogate/bridge/state', (x) => x.text === 'offline', 'offline on shutdown');
  const after = await watch(t, m, 'biogate/bridge/state');
  t.equal((await after.next('biogate/bridge/state')).text, 'offline', 'and it stays (retained)');
});

t.test(
  'a broker outage: terminals are not slowed, drops are counted, the restarted broker gets the state again',
  { skip: NO_MOSQUITTO },
  async (t) => {
    const m = await startMosquitto(t);
    const app = await gateway(t, m);
    const w0 = await watch(t, m);
    const sim = await terminal(t, app, 'OUT001');
    await w0.until(`biogate/${app.locationId}/devices/OUT001/availability`, (x) => x.text === 'online', 'online before the outage');
    await m.stop();
    await within(
      5000,
      'the bridge to notice',
      (async () => {
        while ((await metricValue(app, 'biogate_mqtt_broker_connected')) !== 0) await new Promise((r) => setTimeout(r, 25));
      })(),
    );

    const began = Date.now();
    t.ok(await sim.punch('1', '2026-03-01 08:00:05'), 'an upload during the outage is acknowledged');
    t.ok(Date.now() - began < 2000, 'and not held up by the broker');
    await within(
      5000,
      'a drop to be counted',
      (async () => {
        while ((await metricValue(app, 'biogate_mqtt_dropped_messages_total', { reason: 'broker_offline' })) < 1)
          await new Promise((r) => setTimeout(r, 25));
      })(),
    );
    t.pass('the attendance message that could not go out is counted');

    await m.start();
    const w = await watch(t, m);
    // Back-off is at most a few seconds after one failed attempt.
    await w.until(`biogate/${app.locationId}/devices/OUT001/availability`, (x) => x.text === 'online', 'state republished', 15_000);
    const late = await watch(t, m, `biogate/${app.locationId}/devices/OUT001/availability`);
    const back = await late.next(`biogate/${app.locationId}/devices/OUT001/availability`);
    t.strictSame(
      { text: back.text, retain: back.retain },
      { text: 'online', retain: true },
      'the empty broker holds the retained availability again',
    );
    await w.until('biogate/bridge/state', (x) => x.text === 'online', 'bridge online again');
    t.equal(await metricValue(app, 'biogate_mqtt_broker_connected'), 1);
  },
);

t.test('wrong broker credentials: no connection, counted as down, terminals unaffected', { skip: NO_MOSQUITTO }, async (t) => {
  const m = await startMosquitto(t);
  const app = await gateway(t, m, { mqttPassword: 'not-the-password' });
  await terminal(t, app, 'CRED01');
  t.equal(await metricValue(app, 'biogate_mqtt_broker_connected'), 0);
  const w = await watch(t, m);
  await new Promise((r) => setTimeout(r, 200));
  t.equal(w.messages.length, 0, 'nothing reached the broker');
});

t.test('last will: the process dies, the broker says offline', { skip: NO_MOSQUITTO }, async (t) => {
  const m = await startMosquitto(t);
  const w = await watch(t, m, 'biogate/bridge/state');
  const dir = await tempDir(t);
  const port = await freePort();
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BIOGATE_')));
  const loader = new URL('../../node_modules/@tapjs/typescript/dist/esm/import.mjs', import.meta.url).href;
  const child = spawn(process.execPath, [`--import=${loader}`, 'src/cli.ts', 'serve'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: {
      ...clean,
      TS_NODE_TRANSPILE_ONLY: '1',
      BIOGATE_PORT: String(port),
      BIOGATE_HOST: '127.0.0.1',
      BIOGATE_STORE: `sqlite:${join(dir, 'biogate.db')}`,
      BIOGATE_LOG_LEVEL: 'warn',
      BIOGATE_MQTT: m.url,
      BIOGATE_MQTT_USERNAME: m.user,
      BIOGATE_MQTT_PASSWORD: m.password,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await w.until('biogate/bridge/state', (x) => x.text === 'online', `the gateway process to connect (${out})`, 60_000);
  child.kill('SIGKILL');
  await w.until('biogate/bridge/state', (x) => x.text === 'offline', 'the will', 10_000);
  t.pass('the broker published the last will offline');
  t.notMatch(out, m.password, 'the broker password is never printed');
});
