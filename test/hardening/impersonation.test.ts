// Issue #12 "No one can pose as a terminal": v3 registration token, comm key throttle, require_comm_key,
// `auth` in the device view, per-device IP allow-lists, implausible serial numbers. Real app, real store,
// the simulator (which shares no code with protocols/) and raw device requests.
import { createHash } from 'node:crypto';
import t from 'tap';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { ADMIN_TOKEN, bearer, fakeClock, fetchJson, jsonBody, logCapture, startApp, type StartOptions } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';

type Json = Record<string, unknown>;
const ATTLOG = '7\t2026-07-01 08:00:00\t0\t1\n';

async function setup(tt: Parameters<typeof startApp>[0], options: StartOptions = {}) {
  const app = await startApp(tt, { ...options, config: { adminToken: ADMIN_TOKEN, longpollS: 0, ...options.config } });
  const as = (token: string) => async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));
  const api = as(app.token);
  const admin = as(ADMIN_TOKEN);
  /** A raw device request, with the cookie a terminal would send. */
  const raw = async (method: 'GET' | 'POST', path: string, opts: { cookie?: string; body?: string } = {}) => {
    const res = await fetch(`${app.url}/iclock/${path}`, {
      method,
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      headers: opts.cookie ? { cookie: opts.cookie } : {},
    });
    return { status: res.status, text: await res.text() };
  };
  const device = async (sn: string) => (await api('GET', `/api/devices/${sn}`)).body as Json;
  const attendanceTotal = async () => ((await api('GET', '/api/attendance')).body as { total: number }).total;
  const command = async (id: number) => (await api('GET', `/api/commands/${id}`)).body as Json;
  const metrics = async () => (await fetch(`${app.url}/metrics`, { headers: bearer(ADMIN_TOKEN) })).text();
  return { app, api, admin, as, raw, device, attendanceTotal, command, metrics };
}

function simulate(
  tt: { teardown(fn: () => Promise<void> | void): void },
  url: string,
  sn: string,
  protocol: 'v2' | 'v3',
  extra: Partial<Parameters<typeof createSimulatedDevice>[0]> = {},
): SimulatedDevice {
  const sim = createSimulatedDevice({ url, sn, protocol, pollDelayMs: 60_000, fast: true, requestTimeoutMs: 30_000, ...extra });
  tt.teardown(() => sim.stop());
  return sim;
}

const metric = (text: string, name: string, labels = ''): number => {
  // Every sample carries node="…" (issue #14); these checks are about the other labels.
  const line = text
    .split('\n')
    .map((l) => l.replace(/,?node="[^"]*"/, '').replace('{}', ''))
    .find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
};

/** [PUSH-v3 §5] what a terminal computes: hex MD5 of RegistryCode + SN + SessionID. */
const token = (code: string, sn: string, session: string) => createHash('md5').update(`${code}${sn}${session}`).digest('hex');

t.test('v3: once registered, a request without the token the gateway issued gets 401, no commands, stores nothing', async (t) => {
  const { app, api, raw, device, attendanceTotal, command } = await setup(t);
  t.equal((await api('POST', '/api/devices', { sn: 'V3TOKEN01' })).res.status, 201);
  t.equal((await device('V3TOKEN01'))['auth'], 'serial_only', 'assigned without a key, never registered');

  const sim = simulate(t, app.url, 'V3TOKEN01', 'v3');
  await sim.handshake();
  while ((await sim.pollOnce()) > 0); // the roster first; the poll carries the token and binds it
  const registered = await device('V3TOKEN01');
  t.equal(registered['auth'], 'registration', 'the terminal presented its token: bound');
  const session = sim.session();
  t.ok(session.token, 'the simulator sends the token back like the firmware does [PUSH-v3 §5]');
  t.equal(session.token, token(String(registered['registry_code']), 'V3TOKEN01', String(registered['session_id'])));

  const queued = (await api('POST', '/api/commands', { sn: 'V3TOKEN01', command: 'info' })).body as { id: number };
  const before = await attendanceTotal();
  // An impostor who knows only the serial (or guesses a token) gets nothing and stores nothing.
  for (const cookie of [undefined, 'token=0123456789abcdef0123456789abcdef', `token=${'x'.repeat(5000)}`, 'timestamp=1']) {
    const poll = await raw('GET', 'getrequest?SN=V3TOKEN01', cookie ? { cookie } : {});
    t.same(poll, { status: 401, text: 'Unauthorized' }, `getrequest with ${cookie?.slice(0, 20) ?? 'no cookie'}`);
  }
  t.equal((await raw('POST', 'cdata?SN=V3TOKEN01&table=ATTLOG', { body: ATTLOG })).status, 401, 'an upload without the token');
  t.equal((await raw('POST', `devicecmd?SN=V3TOKEN01`, { body: `ID=${queued.id}&Return=0&CMD=INFO` })).status, 401, 'a forged result');
  const first = await raw('GET', 'cdata?SN=V3TOKEN01&options=all&pushver=3.1.2');
  t.equal(first.status, 401, 'the first-contact reply (which carries RegistryCode and SessionID) is refused too');
  t.notMatch(first.text, /RegistryCode|SessionID/);
  t.equal(
    (await raw('POST', 'registry?SN=V3TOKEN01', { body: 'DeviceType=acc,~DeviceName=evil' })).status,
    401,
    're-registration without the token',
  );
  t.equal((await raw('POST', 'push?SN=V3TOKEN01', { body: '' })).status, 401, 'configuration download without the token');
  t.equal(await attendanceTotal(), before, 'nothing stored');
  t.equal((await command(queued.id))['status'], 'pending', "the command is still the terminal's");
  t.equal((await device('V3TOKEN01'))['registry_code'], registered['registry_code'], 'registration unchanged');

  // The real terminal (any letter case of the hex) still works, re-registration included [PUSH-v3 §3.6].
  const cookie = `token=${String(session.token).toUpperCase()}; timestamp=1`;
  t.equal((await raw('POST', 'cdata?SN=V3TOKEN01&table=ATTLOG', { body: ATTLOG, cookie })).status, 200);
  await sim.handshake();
  t.equal(sim.session().token, session.token, 'session and token stable across re-registration');
  t.ok((await sim.pollOnce()) >= 1, 'the terminal gets its command');
  t.not((await command(queued.id))['status'], 'pending');
  t.equal(await attendanceTotal(), before + 1);
});

t.test('v3: reset-registration (full scope) lets a terminal that lost its token register again', async (t) => {
  const { app, api, admin, as, raw, device } = await setup(t);
  await api('POST', '/api/devices', { sn: 'V3RESET01' });
  const old = simulate(t, app.url, 'V3RESET01', 'v3');
  await old.handshake();
  while ((await old.pollOnce()) > 0);
  const bound = await device('V3RESET01');
  t.equal(bound['auth'], 'registration');

  // A replacement unit (or a factory reset) has no token: refused until the operator resets.
  const fresh = simulate(t, app.url, 'V3RESET01', 'v3');
  await t.rejects(fresh.handshake(), /401/, 'first contact refused');

  const location = (await api('GET', '/api/me')).body as { location: { id: number } } & { id?: number };
  const locationId = location.location?.id ?? location.id;
  const readToken = ((await admin('POST', `/admin/locations/${locationId}/tokens`, { scope: 'operator' })).body as { token: string }).token;
  t.match(
    (await as(readToken)('POST', '/api/devices/V3RESET01/reset-registration')).body,
    { code: 'SCOPE_DENIED' },
    'an operator token may not',
  );
  t.equal((await api('POST', '/api/devices/NOPE0001/reset-registration')).res.status, 404);
  const reset = await api('POST', '/api/devices/V3RESET01/reset-registration');
  t.equal(reset.res.status, 200);
  t.match(reset.body, { serial_number: 'V3RESET01', registry_code: null, session_id: null, auth: 'serial_only' });

  await fresh.handshake();
  while ((await fresh.pollOnce()) > 0);
  const again = await device('V3RESET01');
  t.equal(again['auth'], 'registration', 'registered and bound again');
  t.not(again['registry_code'], bound['registry_code'], 'with a new registry code');
  t.equal(
    (await raw('GET', 'getrequest?SN=V3RESET01', { cookie: `token=${String(old.session().token)}` })).status,
    401,
    'the old token no longer works',
  );

  // The CLI counterpart, on the same store while the server runs.
  const env = { BIOGATE_STORE: app.storeUrl };
  t.equal(
    (await cli(['device', 'reset-registration', '--location', String(locationId), '--sn', 'NOPE0001'], env)).code,
    1,
    'unknown device: exit 1',
  );
  t.equal(
    (await cli(['device', 'reset-registration', '--location', String(locationId), '--sn', 'a/b'], env)).code,
    2,
    'implausible serial: exit 2',
  );
  const viaCli = await cli(['device', 'reset-registration', '--location', String(locationId), '--sn', 'V3RESET01'], env);
  t.equal(viaCli.code, 0, viaCli.stderr);
  t.match(await device('V3RESET01'), { registry_code: null, session_id: null, auth: 'serial_only' });
});

t.test('comm key: wrong keys are throttled with growing back-off, reset on success; visible in metrics and logs', async (t) => {
  const clock = fakeClock();
  const logs = logCapture();
  const { api, raw, metrics, device } = await setup(t, { clock, logs, config: { logLevel: 'info' } });
  await api('POST', '/api/devices', { sn: 'CKTHROT01', comm_key: '20261124' });
  t.equal((await device('CKTHROT01'))['auth'], 'comm_key');
  const guess = (key: string) => raw('GET', `getrequest?SN=CKTHROT01&ComKey=${key}`);

  for (let i = 0; i < 4; i++) t.equal((await guess(String(10_000_000 + i))).status, 401, `wrong key ${i + 1}: checked, refused`);
  // Four wrong keys: the next second is refused without checking, even the right key (same answer).
  t.same(await guess('20261124'), { status: 401, text: 'Unauthorized' }, 'right key inside the window: refused unchecked');
  clock.advance(1_000);
  t.equal((await guess('20261124')).status, 200, 'after the window the right key works, and resets the count');

  // Thousands of guesses a second become a handful: only the first ones are ever checked.
  let text = await metrics();
  const checkedBefore = metric(text, 'biogate_device_auth_refused_total', '{reason="comm_key"}');
  for (let i = 0; i < 200; i++) t.equal((await guess(String(20_000_000 + i))).status, 401);
  text = await metrics();
  t.equal(
    metric(text, 'biogate_device_auth_refused_total', '{reason="comm_key"}') - checkedBefore,
    4,
    'only 4 of 200 guesses were checked',
  );
  t.ok(metric(text, 'biogate_device_auth_refused_total', '{reason="throttled"}') >= 196, 'the rest refused unchecked');
  t.equal(metric(text, 'biogate_device_auth_throttled_serials'), 1, 'gauge: one serial throttled');

  // Growing windows: each further wrong key doubles it (1 s, 2 s, 4 s …, at most 5 min).
  clock.advance(1_000);
  t.equal((await guess('99999999')).status, 401, 'fifth wrong key: window now 2 s');
  clock.advance(1_500);
  t.equal((await guess('20261124')).status, 401, 'still inside the 2 s window');
  clock.advance(500);
  t.equal((await guess('20261124')).status, 200);
  t.equal(metric(await metrics(), 'biogate_device_auth_throttled_serials'), 0, 'success clears it');
  for (let i = 0; i < 40; i++) {
    await guess('11111111');
    clock.advance(300_000);
  }
  t.equal((await guess('11111111')).status, 401);
  clock.advance(299_000);
  t.equal((await guess('20261124')).status, 401, 'the window never exceeds 5 min, but it is 5 min');
  clock.advance(1_000);
  t.equal((await guess('20261124')).status, 200);

  const refusals = logs
    .entries()
    .filter((e) => e['sn'] === 'CKTHROT01' && typeof e['msg'] === 'string' && /refused|throttled/.test(e['msg'] as string));
  t.ok(
    refusals.length > 0 && refusals.length <= 60,
    `refusals are logged, rate-limited (${refusals.length} lines for ${200 + 50} refusals)`,
  );
  t.notMatch(logs.text(), /20261124|10000000|20000000/, 'keys are never logged');
});

t.test('require_comm_key: the location setting and BIOGATE_REQUIRE_COMM_KEY refuse devices without a key', async (t) => {
  const { app, api, admin } = await setup(t);
  const me = (await api('GET', '/api/me')).body as Json;
  const locationId = ((me['location'] as Json | undefined)?.['id'] ?? me['id']) as number;
  const patched = await admin('PATCH', `/admin/locations/${locationId}`, { require_comm_key: true });
  t.match(patched.body, { id: locationId, require_comm_key: true });
  const refused = await api('POST', '/api/devices', { sn: 'NOKEY0001' });
  t.equal(refused.res.status, 422);
  t.match(JSON.stringify(refused.body), /require_comm_key/, 'the error names the rule');
  t.equal((await api('POST', '/api/devices', { sn: 'NOKEY0001', comm_key: null })).res.status, 422, 'null is no key either');
  t.equal((await api('GET', '/api/devices/NOKEY0001')).res.status, 404, 'not assigned');
  t.equal((await api('POST', '/api/devices', { sn: 'KEYED0001', comm_key: '1234' })).res.status, 201);
  t.equal(
    (await api('POST', '/api/devices', { sn: 'KEYED0001', name: 'renamed' })).res.status,
    200,
    'a keyed device keeps its key when the field is absent',
  );
  t.equal((await api('POST', '/api/devices', { sn: 'KEYED0001', comm_key: null })).res.status, 422, 'the key cannot be removed');

  // The CLI sets it too.
  const env = { BIOGATE_STORE: app.storeUrl };
  const off = await cli(['location', 'update', '--id', String(locationId), '--require-comm-key', 'off', '--json'], env);
  t.equal(off.code, 0, off.stderr);
  t.match(JSON.parse(off.stdout), { require_comm_key: false });
  t.equal((await cli(['location', 'update', '--id', String(locationId), '--require-comm-key', 'maybe'], env)).code, 2, 'on|off only');
  t.equal((await api('POST', '/api/devices', { sn: 'NOKEY0001' })).res.status, 201, 'off: assignable again');
  const created = await cli(['location', 'create', '--name', 'Strict', '--require-comm-key', 'on', '--json'], env);
  t.equal(created.code, 0, created.stderr);
  t.match(JSON.parse(created.stdout), { location: { name: 'Strict', require_comm_key: true } });
  const viaAdmin = await admin('POST', '/admin/locations', { name: 'Strict 2', require_comm_key: true });
  t.match(viaAdmin.body, { location: { require_comm_key: true } });
  const strict = (viaAdmin.body as { token: string }).token;
  const theirs = await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn: 'NOKEY0001' }, bearer(strict)));
  t.match(theirs, { res: { status: 403 }, body: { code: 'DEVICE_OTHER_LOCATION' } }, "another location's device: 403 before the key rule");

  const global = await setup(t, { config: { requireCommKey: 'on' } });
  const g = await global.api('POST', '/api/devices', { sn: 'NOKEY0002' });
  t.equal(g.res.status, 422);
  t.match(JSON.stringify(g.body), /BIOGATE_REQUIRE_COMM_KEY/);
  t.equal((await global.api('POST', '/api/devices', { sn: 'NOKEY0002', comm_key: '77' })).res.status, 201);
});

t.test('allowed_networks: requests from other addresses get 403, no data in or out, not presence', async (t) => {
  const { api, raw, device, attendanceTotal, command } = await setup(t);
  for (const bad of [
    ['10.0.0.0/33'],
    ['300.1.1.1/8'],
    ['fe80::/129'],
    ['not-a-network'],
    ['10.0.0.0/8', ''],
    Array.from({ length: 33 }, (_, i) => `10.${i}.0.0/16`),
  ]) {
    const r = await api('POST', '/api/devices', { sn: 'NETS0001', allowed_networks: bad });
    t.equal(r.res.status, 422, `refused: ${JSON.stringify(bad).slice(0, 40)}`);
  }
  const made = await api('POST', '/api/devices', { sn: 'NETS0001', allowed_networks: ['10.1.2.3/8', '2001:DB8:0:0::1/32'] });
  t.equal(made.res.status, 201);
  t.same((made.body as Json)['allowed_networks'], ['10.0.0.0/8', '2001:db8::/32'], 'canonical form in the view');
  t.same((await device('NETS0001'))['allowed_networks'], ['10.0.0.0/8', '2001:db8::/32']);
  const queued = (await api('POST', '/api/commands', { sn: 'NETS0001', command: 'info' })).body as { id: number };

  // The test client connects from 127.0.0.1 (or ::ffff:127.0.0.1): outside the list.
  t.same(await raw('GET', 'getrequest?SN=NETS0001'), { status: 403, text: 'Forbidden' });
  t.equal((await raw('GET', 'cdata?SN=NETS0001&options=all')).status, 403);
  t.equal((await raw('POST', 'cdata?SN=NETS0001&table=ATTLOG', { body: ATTLOG })).status, 403);
  t.equal(await attendanceTotal(), 0, 'no data in');
  t.equal((await command(queued.id))['status'], 'pending', 'no commands out');
  t.equal((await device('NETS0001'))['last_seen'], null, 'not presence');

  t.equal((await api('POST', '/api/devices', { sn: 'NETS0001', allowed_networks: ['127.0.0.0/8', '::1/128'] })).res.status, 200);
  t.match((await raw('GET', 'getrequest?SN=NETS0001')).text, new RegExp(`^C:${queued.id}:`), 'inside the list: served');
  t.equal((await api('POST', '/api/devices', { sn: 'NETS0001', allowed_networks: [] })).res.status, 200);
  t.equal((await device('NETS0001'))['allowed_networks'], null, '[] clears it');
});

t.test('implausible serial numbers get 400 on every device endpoint; plausible unassigned ones keep 503 on uploads', async (t) => {
  const { raw, app } = await setup(t);
  const bad = ['', 'x'.repeat(65), 'A%20B', 'a%2Fb', 'a%3Cb', 'a%25b', '%C3%A9t%C3%A9', 'a%7Fb', 'a%00b', 'a%0Ab', '%'];
  const endpoints: ['GET' | 'POST', string][] = [
    ['GET', 'cdata?options=all'],
    ['POST', 'cdata?table=ATTLOG'],
    ['GET', 'getrequest'],
    ['POST', 'devicecmd'],
    ['GET', 'ping'],
    ['POST', 'fdata?table=ATTPHOTO'],
    ['GET', 'file?url=x'],
    ['POST', 'registry'],
    ['POST', 'push'],
    ['POST', 'querydata?type=count&cmdid=1&tablename=user&count=1&packcnt=1&packidx=1'],
    ['GET', 'rtdata?type=time'],
    ['GET', 'service/control'],
    ['POST', 'exchange?type=publickey'],
    ['POST', 'cdata?table=rtlog'],
  ];
  for (const sn of bad) {
    for (const [method, path] of endpoints) {
      const r = await raw(method, `${path}&SN=${sn}`.replace(/^([^?]*)&/, '$1?'), method === 'POST' ? { body: ATTLOG } : {});
      t.equal(r.status, 400, `${method} ${path.split('?')[0]} SN=${sn.slice(0, 12)}`);
    }
  }
  const twoSerials = await raw('GET', 'getrequest?SN=GOOD0001&SN=a%2Fb');
  t.equal(twoSerials.status, 200, 'the first SN counts');
  t.equal(
    (await raw('POST', 'cdata?SN=UNASSIGNED1&table=ATTLOG', { body: ATTLOG })).status,
    503,
    'plausible but unassigned: 503, the terminal keeps its data',
  );
  t.equal((await fetch(`${app.url}/healthz`)).status, 200, 'alive');
});
