/**
 * Issue #15 "Verified by", MQTT part: real `mqtt` clients against the embedded broker of the real
 * app (BIOGATE_MQTT=embedded on a free port), a simulated terminal (src/simulator) and the REST
 * API. Login and refusal, the cross-location ACL (SUBACK 0x80, dropped publishes), retained
 * availability online → offline (short threshold, fake clock, hub.sweepPresence), command
 * transitions, request/response with a transaction, invalid requests queue nothing, bridge state.
 */
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import {
  ADMIN_TOKEN,
  bearer,
  fakeClock,
  fetchJson,
  jsonBody,
  startApp,
  tempDir,
  waitFor,
  type FakeClock,
  type StartedApp,
} from '../helpers/app.js';
import { connect, connectCode, subscribeGrants, type Recorder } from './mqtt-client.js';

const START = '2026-03-01T08:00:00.000Z';

interface Rig {
  readonly started: StartedApp;
  readonly clock: FakeClock;
  readonly url: string;
  /** Location A (the bootstrap one) and a second location B, each with a full token. */
  readonly a: { id: number; token: string };
  readonly b: { id: number; token: string };
  login(loc: { id: number; token: string }): Promise<Recorder>;
  api(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

async function rig(t: Test, config: Record<string, unknown> = {}): Promise<Rig> {
  const clock = fakeClock(START);
  const started = await startApp(t, {
    clock,
    config: { mqtt: 'embedded', mqttPort: 0, adminToken: ADMIN_TOKEN, longpollS: 0, onlineThresholdS: 5, ...config },
  });
  const port = started.app.mqtt?.port;
  if (!port) throw new Error('the embedded broker did not start');
  const url = `mqtt://127.0.0.1:${port}`;
  const other = await started.app.locations.create({ name: 'Other' });
  const a = { id: started.locationId, token: started.token };
  const b = { id: other.location.id, token: other.token.token };
  return {
    started,
    clock,
    url,
    a,
    b,
    login: (loc) => connect(t, url, { username: String(loc.id), password: loc.token }),
    async api(token, method, path, body) {
      const { res, body: out } = await fetchJson(
        `${started.url}${path}`,
        body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)),
      );
      return { status: res.status, body: out };
    },
  };
}

/** A v3 terminal assigned to location A that has handshaken (so it is online). */
async function terminal(t: Test, r: Rig, sn: string, lockCount = 1) {
  const created = await r.api(r.a.token, 'POST', '/api/devices', { sn });
  if (created.status !== 201) throw new Error(`could not assign ${sn}: ${created.status}`);
  const sim = createSimulatedDevice({ url: r.started.url, sn, protocol: 'v3', lockCount, requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  while ((await sim.pollOnce()) > 0);
  return sim;
}

async function metricsText(r: Rig): Promise<string> {
  const { res, body } = await fetchJson(`${r.started.url}/metrics`, { headers: bearer(ADMIN_TOKEN) });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return String(body);
}

/** The value of `name` with (at least) these labels; 0 when absent. Other labels (node) may be there. */
const metric = (text: string, name: string, labels: Record<string, string> = {}): number => {
  const line = text
    .split('\n')
    .find(
      (l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
};

t.test('login: location id + its token, admin + admin token; everything else is a CONNACK refusal', async (t) => {
  const r = await rig(t);
  t.equal(await connectCode(r.url, { username: String(r.a.id), password: r.a.token }), 0, 'location A with its token');
  t.equal(await connectCode(r.url, { username: 'admin', password: ADMIN_TOKEN }), 0, 'admin');
  t.equal(
    await connectCode(r.url, { username: String(r.a.id), password: 'bg_' + 'x'.repeat(32) }),
    4,
    'unknown token: bad username or password',
  );
  t.equal(await connectCode(r.url, { username: String(r.b.id), password: r.a.token }), 4, "A's token presented as location B");
  t.equal(await connectCode(r.url, { username: 'admin', password: 'wrong-admin-token-0123456789' }), 4, 'wrong admin token');
  t.equal(await connectCode(r.url, {}), 4, 'no credentials');
  const revoked = await r.started.app.locations.issueToken({ location_id: r.a.id, scope: 'full', expires_in_days: null, label: null });
  await r.api(ADMIN_TOKEN, 'DELETE', `/admin/tokens/${revoked.id}`);
  t.equal(await connectCode(r.url, { username: String(r.a.id), password: revoked.token }), 4, 'revoked token');
  await r.api(ADMIN_TOKEN, 'PATCH', `/admin/locations/${r.b.id}`, { is_active: false });
  t.equal(await connectCode(r.url, { username: String(r.b.id), password: r.b.token }), 5, 'disabled location: not authorized');
  t.equal(metric(await metricsText(r), 'biogate_mqtt_refused_total', { what: 'connect' }), 6, 'refusals are counted');
  t.equal(metric(await metricsText(r), 'biogate_mqtt_broker_connected'), 1);
});

t.test('ACL: subscriptions outside the own location get SUBACK 0x80; publishes there are dropped', async (t) => {
  const r = await rig(t);
  const a = await r.login(r.a);
  const granted = await subscribeGrants(a.client, {
    [`biogate/${r.a.id}/#`]: { qos: 1 },
    [`biogate/${r.b.id}/#`]: { qos: 0 },
    'biogate/+/devices/+/availability': { qos: 0 },
    '#': { qos: 0 },
    'biogate/bridge/state': { qos: 0 },
  });
  t.strictSame(granted, [1, 128, 128, 128, 0], 'own prefix and bridge state granted, the rest refused');
  t.ok(a.client.connected, 'a refused subscription does not disconnect');

  const b = await r.login(r.b);
  await b.client.subscribeAsync(`biogate/${r.b.id}/#`);
  const admin = await connect(t, r.url, { username: 'admin', password: ADMIN_TOKEN });
  await admin.client.subscribeAsync('biogate/#');
  await r.api(r.b.token, 'POST', '/api/devices', { sn: 'BDEV1' });

  // A publishes a valid command into B's request topic, and forges a terminal state under its own prefix.
  await a.client.publishAsync(`biogate/${r.b.id}/request/command`, JSON.stringify({ sn: 'BDEV1', command: 'reboot' }), { qos: 1 });
  await a.client.publishAsync(`biogate/${r.a.id}/devices/FAKE/availability`, 'online', { qos: 1, retain: true });
  // A round trip through the broker after them: by then the broker handled both.
  await a.client.publishAsync(`biogate/${r.a.id}/request/command`, '{}', { qos: 1 });
  await a.next(`biogate/${r.a.id}/response/command`, 'the answer to the marker request');

  t.equal(b.on(`biogate/${r.b.id}/request/command`).length, 0, "B's subscriber never sees A's publish");
  t.equal(b.on(`biogate/${r.b.id}/response/command`).length, 0, 'and no answer goes to B');
  t.equal(admin.on(`biogate/${r.a.id}/devices/FAKE/availability`).length, 0, 'a forged availability reaches nobody');
  t.match((await r.api(r.b.token, 'GET', '/api/commands')).body, { total: 0 }, 'nothing was queued in B');
  const late = await r.login(r.a);
  await late.client.subscribeAsync(`biogate/${r.a.id}/devices/#`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(late.messages.length, 0, 'nothing forged was retained');
  t.ok(a.client.connected, 'a dropped publish does not disconnect (as mosquitto drops under 3.1.1)');
  t.equal(metric(await metricsText(r), 'biogate_mqtt_refused_total', { what: 'subscribe' }), 3);
  t.equal(metric(await metricsText(r), 'biogate_mqtt_refused_total', { what: 'publish' }), 2);
});

t.test('retained availability and state: online after the handshake, offline after the threshold', async (t) => {
  const r = await rig(t);
  const watcher = await r.login(r.a);
  await watcher.client.subscribeAsync(`biogate/${r.a.id}/devices/#`);
  await terminal(t, r, 'AV001');
  const availability = `biogate/${r.a.id}/devices/AV001/availability`;
  const online = await watcher.until(availability, (m) => m.text === 'online', 'online');
  t.equal(online.retain, false, 'live delivery to a subscriber that was there: no retain flag [MQTT-3.3.1-9]');
  const state = watcher.json(await watcher.next(`biogate/${r.a.id}/devices/AV001/state`));
  t.match(state, { serial_number: 'AV001', location_id: r.a.id }, 'state is the DeviceResponse');

  const late = await r.login(r.a);
  await late.client.subscribeAsync(`biogate/${r.a.id}/devices/+/availability`);
  const retained = await late.next(availability, 'retained availability');
  t.strictSame(
    { text: retained.text, retain: retained.retain },
    { text: 'online', retain: true },
    'a late subscriber gets the retained online',
  );

  r.clock.advance(6_000);
  await r.started.app.hub.sweepPresence();
  await watcher.until(availability, (m) => m.text === 'offline', 'offline after the threshold');
  const later = await r.login(r.a);
  await later.client.subscribeAsync(availability);
  t.strictSame((await later.next(availability)).text, 'offline', 'the retained value is now offline');
  const other = await r.login(r.b);
  await other.client.subscribeAsync(`biogate/${r.b.id}/#`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(other.messages.filter((m) => m.topic.includes('AV001')).length, 0, "location B sees nothing of A's terminal");
});

t.test('request/response: queued through the REST path, answered with the transaction; transitions on commands/<id>', async (t) => {
  const r = await rig(t);
  const sim = await terminal(t, r, 'RQ001');
  const c = await r.login(r.a);
  await c.client.subscribeAsync([`biogate/${r.a.id}/response/command`, `biogate/${r.a.id}/commands/#`]);
  const response = `biogate/${r.a.id}/response/command`;

  await c.client.publishAsync(
    `biogate/${r.a.id}/request/command`,
    JSON.stringify({ sn: 'RQ001', command: 'info', priority: 5, transaction: 'tx-1' }),
  );
  const ok = c.json<{
    status: string;
    data: { id: number; status: string; command: string; priority: number; created_by_token_id: number };
    transaction: string;
  }>(await c.next(response));
  t.match(ok, { status: 'ok', transaction: 'tx-1', data: { status: 'pending', command: 'info', priority: 5, sn: 'RQ001' } });
  const rest = await r.api(r.a.token, 'GET', `/api/commands/${ok.data.id}`);
  t.strictSame(rest.body, ok.data, 'the answer is exactly the CommandResponse GET shows');
  t.not(ok.data.created_by_token_id, null, 'created by the token the client logged in with');

  const topic = `biogate/${r.a.id}/commands/${ok.data.id}`;
  await c.until(topic, (m) => c.json(m)['status'] === 'pending', 'pending');
  while ((await sim.pollOnce()) > 0);
  await c.until(topic, (m) => c.json(m)['status'] === 'success', 'success');
  const statuses = c.on(topic).map((m) => c.json(m)['status']);
  t.strictSame(statuses, ['pending', 'sent', 'success'], 'every transition, in order');

  await c.client.publishAsync(`biogate/${r.a.id}/request/command`, JSON.stringify({ sn: 'RQ001', command: 'reboot', transaction: 7 }));
  t.match(
    c.json(await c.next(response, 'second answer', 2)),
    { status: 'ok', transaction: 7, data: { command: 'reboot' } },
    'numeric transaction echoed',
  );
  await c.client.publishAsync(`biogate/${r.a.id}/request/command`, JSON.stringify({ sn: 'RQ001', command: 'check' }));
  const third = c.json(await c.next(response, 'third answer', 3));
  t.match(third, { status: 'ok' });
  t.notOk('transaction' in third, 'no transaction asked, none echoed');

  // The admin acts for any location.
  const admin = await connect(t, r.url, { username: 'admin', password: ADMIN_TOKEN });
  await admin.client.subscribeAsync(response);
  await admin.client.publishAsync(
    `biogate/${r.a.id}/request/command`,
    JSON.stringify({ sn: 'RQ001', command: 'check', transaction: 'adm' }),
  );
  t.match(admin.json(await admin.until(response, (m) => m.text.includes('"adm"'), 'admin answer')), {
    status: 'ok',
    data: { created_by_token_id: null },
  });
});

t.test('invalid requests: an error envelope with the REST code, and nothing queued', async (t) => {
  const r = await rig(t);
  await terminal(t, r, 'BAD01');
  const c = await r.login(r.a);
  const response = `biogate/${r.a.id}/response/command`;
  await c.client.subscribeAsync(response);
  const request = `biogate/${r.a.id}/request/command`;
  const cases: [string, string | Buffer, Record<string, unknown>][] = [
    [
      'unknown preset',
      JSON.stringify({ sn: 'BAD01', command: 'explode', transaction: 'e1' }),
      { code: 'VALIDATION_FAILED', detail: [{ loc: ['body', 'command'] }] },
    ],
    [
      'priority out of range',
      JSON.stringify({ sn: 'BAD01', command: 'reboot', priority: 101, transaction: 'e2' }),
      { code: 'VALIDATION_FAILED', detail: [{ loc: ['body', 'priority'] }] },
    ],
    ['missing sn', JSON.stringify({ command: 'reboot', transaction: 'e3' }), { code: 'VALIDATION_FAILED' }],
    ['unknown device', JSON.stringify({ sn: 'NOPE', command: 'reboot', transaction: 'e4' }), { code: 'DEVICE_NOT_FOUND' }],
    ['not JSON', 'reboot please', { code: 'BAD_REQUEST' }],
    ['an array', '[1,2]', { code: 'BAD_REQUEST' }],
    ['too deep', '['.repeat(100) + ']'.repeat(100), { code: 'BAD_REQUEST' }],
    [
      'bad transaction',
      JSON.stringify({ sn: 'BAD01', command: 'reboot', transaction: { a: 1 } }),
      { code: 'VALIDATION_FAILED', detail: [{ loc: ['body', 'transaction'] }] },
    ],
    ['too large', Buffer.alloc(70_000, 0x20), { code: 'PAYLOAD_TOO_LARGE' }],
  ];
  for (const [i, [what, payload, expected]] of cases.entries()) {
    await c.client.publishAsync(request, payload);
    const answer = c.json<Record<string, unknown>>(await c.next(response, what, i + 1));
    t.match(answer, { status: 'error', error: expected }, what);
    if (what.startsWith('unknown preset')) t.equal(answer['transaction'], 'e1', 'the transaction comes back on errors too');
  }
  const read = await r.started.app.locations.issueToken({ location_id: r.a.id, scope: 'read', expires_in_days: null, label: null });
  const reader = await r.login({ id: r.a.id, token: read.token });
  await reader.client.subscribeAsync(response);
  await reader.client.publishAsync(request, JSON.stringify({ sn: 'BAD01', command: 'reboot', transaction: 'r' }));
  t.match(reader.json(await reader.until(response, (m) => m.text.includes('"r"'), 'read-scope answer')), {
    status: 'error',
    error: { code: 'SCOPE_DENIED' },
    transaction: 'r',
  });
  const operator = await r.started.app.locations.issueToken({ location_id: r.a.id, scope: 'operator', expires_in_days: null, label: null });
  const op = await r.login({ id: r.a.id, token: operator.token });
  await op.client.subscribeAsync(response);
  await op.client.publishAsync(request, JSON.stringify({ sn: 'BAD01', command: 'clear-data', transaction: 'o' }));
  t.match(
    op.json(await op.until(response, (m) => m.text.includes('"o"'), 'operator answer')),
    { status: 'error', error: { code: 'SCOPE_DENIED' } },
    'risky presets need the full scope, as over REST',
  );
  t.match((await r.api(r.a.token, 'GET', '/api/commands')).body, { total: 0 }, 'nothing was queued');
});

t.test('bridge state: retained online while running, offline on shutdown', async (t) => {
  const r = await rig(t);
  const c = await r.login(r.a);
  await c.client.subscribeAsync('biogate/bridge/state');
  const first = await c.next('biogate/bridge/state');
  t.strictSame({ text: first.text, retain: first.retain }, { text: 'online', retain: true });
  const closed = new Promise<void>((resolve) => c.client.once('close', () => resolve()));
  await r.started.close();
  await waitFor(() => c.on('biogate/bridge/state').length >= 2, 5000, 'offline before the broker goes');
  t.equal(c.on('biogate/bridge/state')[1]?.text, 'offline');
  await closed;
  t.pass('clients are disconnected at shutdown');
});

t.test('Home Assistant discovery: a device per terminal, filtered per location, locks that queue door commands', async (t) => {
  const r = await rig(t, { mqttHaDiscovery: 'on' });
  const ha = await r.login(r.a);
  await ha.client.subscribeAsync('homeassistant/#');
  const otherHa = await r.login(r.b);
  await otherHa.client.subscribeAsync('homeassistant/#');
  await ha.client.subscribeAsync(`biogate/${r.a.id}/response/command`);
  await terminal(t, r, 'HA001', 2);
  const node = `biogate_${r.a.id}_HA001`;
  const conn = ha.json(await ha.next(`homeassistant/binary_sensor/${node}/connectivity/config`));
  const availability = `biogate/${r.a.id}/devices/HA001/availability`;
  t.match(conn, {
    device_class: 'connectivity',
    state_topic: availability,
    payload_on: 'online',
    payload_off: 'offline',
    unique_id: `${node}_connectivity`,
    device: { identifiers: [node] },
  });
  const punch = ha.json(await ha.next(`homeassistant/sensor/${node}/last_punch/config`));
  t.match(punch, {
    state_topic: `biogate/${r.a.id}/attendance`,
    unique_id: `${node}_last_punch`,
    availability_topic: availability,
    device: { identifiers: [node] },
  });
  const lock1 = ha.json<Record<string, string>>(await ha.next(`homeassistant/lock/${node}/door_1/config`));
  const lock2 = ha.json<Record<string, string>>(await ha.next(`homeassistant/lock/${node}/door_2/config`));
  for (const lock of [lock1, lock2]) {
    t.match(lock, {
      command_topic: `biogate/${r.a.id}/request/command`,
      availability_topic: availability,
      payload_available: 'online',
      payload_not_available: 'offline',
      device: { identifiers: [node] },
    });
    t.type(lock['payload_lock'], 'string');
    t.type(lock['unique_id'], 'string');
  }
  t.strictSame(
    JSON.parse(lock2['payload_unlock'] as string),
    { sn: 'HA001', command: 'door-open', params: { door_id: 2 } },
    'unlock opens that door',
  );
  t.strictSame(JSON.parse(lock1['payload_lock'] as string), { sn: 'HA001', command: 'door-lock' });
  // Assigned before its handshake the terminal had one door (LockCount unknown); the handshake reported 2.
  t.strictSame(
    [...new Set(ha.messages.filter((m) => m.topic.startsWith('homeassistant/lock/')).map((m) => m.topic))].sort(),
    [1, 2].map((d) => `homeassistant/lock/${node}/door_${d}/config`),
    'one lock per door (LockCount 2)',
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(otherHa.messages.length, 0, 'another location sees no discovery of this one');

  // What Home Assistant does when the user unlocks door 2:
  await ha.client.publishAsync(lock2['command_topic'] as string, lock2['payload_unlock'] as string);
  const answer = ha.json(await ha.next(`biogate/${r.a.id}/response/command`));
  t.match(answer, { status: 'ok', data: { command: 'door-open', params: { door_id: 2 }, sn: 'HA001' } });
});

t.test("after a restart the new broker holds every terminal's state again (seeded from the store)", async (t) => {
  const r = await rig(t);
  await terminal(t, r, 'RS001');
  await r.api(r.a.token, 'POST', '/api/devices', { sn: 'RS002' }); // assigned, never seen
  const before = await r.login(r.a);
  await before.client.subscribeAsync(`biogate/${r.a.id}/devices/RS001/availability`);
  await before.until(`biogate/${r.a.id}/devices/RS001/availability`, (m) => m.text === 'online', 'online before the restart');
  await r.started.close();

  const again = await startApp(t, {
    clock: r.clock,
    storeUrl: r.started.storeUrl,
    config: { mqtt: 'embedded', mqttPort: 0, longpollS: 0, onlineThresholdS: 5 },
  });
  const c = await connect(t, `mqtt://127.0.0.1:${again.app.mqtt?.port ?? 0}`, { username: String(r.a.id), password: r.a.token });
  await c.client.subscribeAsync(`biogate/${r.a.id}/devices/#`);
  const online = await c.next(`biogate/${r.a.id}/devices/RS001/availability`, 'RS001 availability after the restart');
  t.strictSame({ text: online.text, retain: online.retain }, { text: 'online', retain: true }, 'seen within the threshold: online');
  t.equal((await c.next(`biogate/${r.a.id}/devices/RS002/availability`)).text, 'offline', 'never seen: offline');
  t.match(c.json(await c.next(`biogate/${r.a.id}/devices/RS001/state`)), { serial_number: 'RS001', location_id: r.a.id });
});

t.test('attendance: one message per record with PIN, user, device, UTC and local time; door events on events/<sn>', async (t) => {
  const r = await rig(t);
  const ann = await r.api(r.a.token, 'POST', '/api/users', { pin: 1001, first_name: 'Ann', last_name: 'Lee' });
  const sim = await terminal(t, r, 'ATT01');
  const c = await r.login(r.a);
  await c.client.subscribeAsync([`biogate/${r.a.id}/attendance`, `biogate/${r.a.id}/events/#`]);
  t.ok(await sim.punch('1001', '2026-03-01 09:15:00'));
  const record = c.json(await c.next(`biogate/${r.a.id}/attendance`));
  t.match(record, { sn: 'ATT01', pin: '1001', user_id: (ann.body as { id: number }).id });
  t.type(record['timestamp'], 'string');
  t.type(record['local_time'], 'string');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const door = c.messages.filter((m) => m.topic === `biogate/${r.a.id}/events/ATT01`);
  // A v3 punch travels as an rtlog line [PUSH-v3 §8]: it is also a door event, with structured fields.
  t.ok(door.length >= 1, 'the rtlog punch is a door event too');
  for (const m of door) {
    const e = c.json(m);
    t.match(e, { sn: 'ATT01', type: String, local_time: String, timestamp: String });
    t.ok(e['event'] === null || typeof e['event'] === 'number', 'the event code is a number, with its meaning beside it');
    t.ok(e['door'] === null || typeof e['door'] === 'number', 'door is a number (or null), not text');
  }
  t.equal(c.messages.filter((m) => m.topic === `biogate/${r.a.id}/attendance`).length, 1, 'one record, one message');
});

t.test('a connected client whose token is revoked is disconnected at the next check', async (t) => {
  const r = await rig(t);
  const issued = await r.started.app.locations.issueToken({ location_id: r.a.id, scope: 'full', expires_in_days: null, label: null });
  const doomed = await r.login({ id: r.a.id, token: issued.token });
  const kept = await r.login(r.a);
  const closed = new Promise<void>((resolve) => doomed.client.once('close', () => resolve()));
  await r.started.app.mqtt?.revalidate();
  t.ok(doomed.client.connected, 'a valid token stays connected');
  await r.api(ADMIN_TOKEN, 'DELETE', `/admin/tokens/${issued.id}`);
  await r.started.app.mqtt?.revalidate();
  await closed;
  t.pass("the revoked token's connection was closed");
  t.ok(kept.client.connected, 'other clients stay');
});

t.test('a busy MQTT port fails the start before bootstrap, so no location is created whose token nobody saw', async (t) => {
  const dir = await tempDir(t);
  const storePath = join(dir, 'biogate.db');
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => busy.close(() => resolve())));
  const port = (busy.address() as AddressInfo).port;
  await t.rejects(startApp(t, { storePath, config: { mqtt: 'embedded', mqttPort: port, bootstrap: 'on' } }), { code: 'EADDRINUSE' });
  const again = await startApp(t, { storePath, config: { mqtt: 'embedded', mqttPort: 0, bootstrap: 'on' } });
  t.match(again.announced, /bootstrap: created location "Default"/, 'the next start bootstraps and shows the token');
});
