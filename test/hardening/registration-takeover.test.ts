// Issue #32 High 3, High 5, Medium 7: nobody who knows a serial takes a terminal over by registering it,
// a token that is not `full` never sees what logs in as a v3 terminal (and the feed, MQTT, the stream and
// webhooks never carry it), and the comm key and allow-list change only with the full scope.
import { createHash } from 'node:crypto';
import t from 'tap';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { connect } from '../bridge/mqtt-client.js';
import { ADMIN_TOKEN, bearer, fetchJson, jsonBody, startApp, type StartOptions } from '../helpers/app.js';

type Json = Record<string, unknown>;

async function setup(tt: Parameters<typeof startApp>[0], options: StartOptions = {}) {
  const app = await startApp(tt, { ...options, config: { adminToken: ADMIN_TOKEN, longpollS: 0, ...options.config } });
  const as = (token: string) => async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));
  const api = as(app.token);
  const tokenOf = async (scope: 'read' | 'operator') =>
    ((await as(ADMIN_TOKEN)('POST', `/admin/locations/${app.locationId}/tokens`, { scope })).body as { token: string }).token;
  const raw = async (method: 'GET' | 'POST', path: string, opts: { cookie?: string; body?: string } = {}) => {
    const res = await fetch(`${app.url}/iclock/${path}`, {
      method,
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      headers: opts.cookie ? { cookie: opts.cookie } : {},
    });
    return { status: res.status, text: await res.text() };
  };
  const device = async (sn: string) => (await api('GET', `/api/devices/${sn}`)).body as Json;
  return { app, as, api, tokenOf, raw, device };
}

function simulate(tt: { teardown(fn: () => Promise<void> | void): void }, url: string, sn: string, protocol: 'v2' | 'v3'): SimulatedDevice {
  const sim = createSimulatedDevice({ url, sn, protocol, pollDelayMs: 60_000, fast: true, requestTimeoutMs: 30_000 });
  tt.teardown(() => sim.stop());
  return sim;
}

/** [PUSH-v3 §5] what a terminal computes: hex MD5 of RegistryCode + SN + SessionID. */
const token = (code: string, sn: string, session: string) => createHash('md5').update(`${code}${sn}${session}`).digest('hex');

t.test(
  'read and operator tokens get null for registry_code and session_id, see the binding, and cannot log in with what they see',
  async (t) => {
    const { app, as, tokenOf, raw, device } = await setup(t);
    await as(app.token)('POST', '/api/devices', { sn: 'V3SEE0001' });
    const sim = simulate(t, app.url, 'V3SEE0001', 'v3');
    await sim.handshake();
    while ((await sim.pollOnce()) > 0);

    const full = await device('V3SEE0001');
    t.equal(full['auth'], 'registration');
    t.type(full['registry_code'], 'string', 'a full token sees the registry code');
    t.type(full['session_id'], 'string', 'and the session id');
    t.match(full['registration'], { bound: true, bound_at: String, bound_address: /127\.0\.0\.1|::1/, accepted_at: String });

    for (const scope of ['read', 'operator'] as const) {
      const get = as(await tokenOf(scope));
      const one = (await get('GET', '/api/devices/V3SEE0001')).body as Json;
      t.equal(one['registry_code'], null, `${scope}: registry_code null`);
      t.equal(one['session_id'], null, `${scope}: session_id null`);
      t.same(one['registration'], full['registration'], `${scope}: whether, when and from where the registration is bound`);
      t.equal(one['auth'], 'registration');
      const list = (await get('GET', '/api/devices')).body as { data: Json[] };
      t.match(list.data, [{ serial_number: 'V3SEE0001', registry_code: null, session_id: null }], `${scope}: the list too`);
      const guessed = token(String(one['registry_code']), 'V3SEE0001', String(one['session_id']));
      t.equal(
        (await raw('GET', 'getrequest?SN=V3SEE0001', { cookie: `token=${guessed}` })).status,
        401,
        `${scope}: what it sees is no login`,
      );
    }
    t.equal(
      (await raw('GET', 'getrequest?SN=V3SEE0001', { cookie: `token=${String(sim.session().token)}` })).status,
      200,
      'the terminal still is',
    );
  },
);

t.test('device events in the feed (webhooks, stream) and the retained MQTT state carry no registry_code or session_id', async (t) => {
  const { app, api, device } = await setup(t, { config: { mqtt: 'embedded', mqttPort: 0 } });
  const port = app.app.mqtt?.port;
  if (!port) throw new Error('the embedded broker did not start');
  await api('POST', '/api/devices', { sn: 'V3FEED001' });
  const sim = simulate(t, app.url, 'V3FEED001', 'v3');
  await sim.handshake();
  while ((await sim.pollOnce()) > 0);
  const full = await device('V3FEED001');
  const code = String(full['registry_code']);
  const session = String(full['session_id']);

  const events = await app.app.store.cluster.eventsAfter(app.locationId, 0, 10_000);
  const deviceEvents = events.filter((e) => String((e as unknown as Json)['type']).startsWith('device.'));
  t.ok(deviceEvents.length > 0, 'device events were written');
  const text = JSON.stringify(events);
  t.notMatch(text, /registry_code|session_id/, 'no such fields in stored feed events');
  t.notOk(text.includes(code) || text.includes(session), 'nor their values');
  t.match(text, /"registration":\{"bound":/, 'the binding is shown instead');

  const watcher = await connect(t, `mqtt://127.0.0.1:${port}`, { username: String(app.locationId), password: app.token });
  await watcher.client.subscribeAsync(`biogate/${app.locationId}/devices/#`);
  const state = await watcher.next(`biogate/${app.locationId}/devices/V3FEED001/state`);
  t.notMatch(state.text, /registry_code|session_id/, 'retained MQTT state: no such fields');
  t.notOk(state.text.includes(code) || state.text.includes(session));
  t.match(JSON.parse(state.text), { serial_number: 'V3FEED001', registration: { bound: true } });
});

t.test(
  'a registry request for a serial that polls as v2 without a token: 406, not switched to v3, the terminal not locked out',
  async (t) => {
    const { app, api, raw, device } = await setup(t);
    await api('POST', '/api/devices', { sn: 'V2TAKE001' });
    const real = simulate(t, app.url, 'V2TAKE001', 'v2');
    await real.handshake();
    await real.pollOnce();
    t.equal((await device('V2TAKE001'))['version'], '2.0.0');

    t.equal((await raw('POST', 'registry?SN=V2TAKE001', { body: 'DeviceType=acc,~DeviceName=evil' })).status, 406, 'registration refused');
    const config = await raw('POST', 'push?SN=V2TAKE001', { body: '' });
    t.notMatch(config.text, /RegistryCode/, 'no registry code handed out');
    const after = await device('V2TAKE001');
    t.equal(after['version'], '2.0.0', 'not switched to 3.0.0');
    t.equal(after['registry_code'], null, 'no registry code issued');
    t.equal(after['auth'], 'serial_only');
    t.match(after['registration'], { bound: false, bound_at: null, bound_address: null, accepted_at: null });
    t.equal((await raw('GET', 'getrequest?SN=V2TAKE001')).status, 200, 'the real terminal is not locked out');
    await real.handshake();
    await real.pollOnce();
    t.equal((await device('V2TAKE001'))['version'], '2.0.0');

    // A v2 terminal that only polls (no handshake yet) is known from its first request on.
    t.equal((await raw('GET', 'getrequest?SN=V2POLL001')).status, 200);
    t.equal((await raw('POST', 'registry?SN=V2POLL001', { body: 'DeviceType=acc' })).status, 406, 'polled first: refused too');

    // A genuinely new v3 terminal still registers (its first contact speaks Security PUSH).
    const fresh = simulate(t, app.url, 'V3NEW0001', 'v3');
    await api('POST', '/api/devices', { sn: 'V3NEW0001' });
    await fresh.handshake();
    while ((await fresh.pollOnce()) > 0);
    t.match(await device('V3NEW0001'), { version: '3.0.0', auth: 'registration', registration: { bound: true, accepted_at: String } });
    // And a registry request as a first contact opens registration too [PUSH-v3 §3.3].
    t.match((await raw('POST', 'registry?SN=V3REG0001', { body: 'DeviceType=acc' })).text, /^RegistryCode=/);
  },
);

t.test('two nodes on one store: a serial first heard on one node cannot register on the other as a first contact', async (t) => {
  const { app, api } = await setup(t);
  const other = await startApp(t, { storeUrl: app.storeUrl, config: { adminToken: ADMIN_TOKEN, longpollS: 0 } });
  await api('POST', '/api/devices', { sn: 'V2TWON001' });
  const poll = await fetch(`${app.url}/iclock/getrequest?SN=V2TWON001`);
  t.equal(poll.status, 200, 'the terminal polls node one (its last_seen is not yet written behind)');
  await poll.text();
  const registry = await fetch(`${other.url}/iclock/registry?SN=V2TWON001`, { method: 'POST', body: 'DeviceType=acc' });
  t.equal(registry.status, 406, 'node two knows it is not a first contact: registration refused');
  await registry.text();
  const after = (await api('GET', '/api/devices/V2TWON001')).body as Json;
  t.equal(after['registry_code'], null, 'no registry code issued');
  // Each serial's first contact is claimed once, whichever node sees it.
  const fresh = await Promise.all(
    [app.url, other.url].map((u) => fetch(`${u}/iclock/registry?SN=V3TWON001`, { method: 'POST', body: 'DeviceType=acc' })),
  );
  const codes = await Promise.all(fresh.map(async (r) => [r.status, await r.text()] as const));
  t.equal(codes.filter(([, text]) => /^RegistryCode=/.test(text)).length >= 1, true, 'a genuine first contact registers');
});

t.test('accept-registration: full scope lets a terminal first seen as v2 register as v3; operator gets 403', async (t) => {
  const { app, as, api, tokenOf, device } = await setup(t);
  await api('POST', '/api/devices', { sn: 'V2UPGR001' });
  const old = simulate(t, app.url, 'V2UPGR001', 'v2');
  await old.handshake();
  await old.pollOnce();
  const v3 = simulate(t, app.url, 'V2UPGR001', 'v3');
  await t.rejects(v3.handshake(), /406/, 'new v3 firmware: registration refused until accepted');

  const denied = await as(await tokenOf('operator'))('POST', '/api/devices/V2UPGR001/accept-registration');
  t.match(denied, { res: { status: 403 }, body: { code: 'SCOPE_DENIED' } }, 'operator: 403');
  t.equal((await api('POST', '/api/devices/NOPE0001/accept-registration')).res.status, 404);
  const accepted = await api('POST', '/api/devices/V2UPGR001/accept-registration');
  t.equal(accepted.res.status, 200);
  t.match(accepted.body, { serial_number: 'V2UPGR001', registry_code: null, registration: { bound: false, accepted_at: String } });

  await v3.handshake();
  while ((await v3.pollOnce()) > 0);
  t.match(await device('V2UPGR001'), { version: '3.0.0', auth: 'registration', registration: { bound: true } });
});

t.test('comm key and allowed networks change only with the full scope', async (t) => {
  const { app, as, api, tokenOf, device } = await setup(t);
  t.equal(
    (await api('POST', '/api/devices', { sn: 'KEYED0001', comm_key: '1234', allowed_networks: ['127.0.0.0/8', '::1/128'] })).res.status,
    201,
  );
  const operator = as(await tokenOf('operator'));
  for (const body of [
    { sn: 'KEYED0001', comm_key: null },
    { sn: 'KEYED0001', allowed_networks: null },
    { sn: 'KEYED0001', allowed_networks: [] },
    { sn: 'KEYED0001', comm_key: '99' },
    { sn: 'OTHER0001', comm_key: '99' },
  ]) {
    t.match(await operator('POST', '/api/devices', body), { res: { status: 403 }, body: { code: 'SCOPE_DENIED' } }, JSON.stringify(body));
  }
  const kept = await device('KEYED0001');
  t.equal(kept['auth'], 'comm_key', 'the key is kept');
  t.same(kept['allowed_networks'], ['127.0.0.0/8', '::1/128'], 'the allow-list is kept');
  t.equal((await operator('POST', '/api/devices', { sn: 'KEYED0001', name: 'Front door' })).res.status, 200, 'other fields: operator may');
  t.equal((await device('KEYED0001'))['auth'], 'comm_key');
  t.equal((await api('POST', '/api/devices', { sn: 'KEYED0001', comm_key: null, allowed_networks: null })).res.status, 200, 'full may');
  t.equal((await device('KEYED0001'))['auth'], 'serial_only');
  t.equal(app.token.length > 0, true);
});
