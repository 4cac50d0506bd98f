// End-to-end device runtime: the real app on port 0 (temporary SQLite), terminals played by the
// simulator (which shares no code with protocols/) and by raw recorded-style HTTP requests.
import t from 'tap';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fakeClock, fetchJson, jsonBody, startApp, waitFor } from '../helpers/app.js';

interface CommandView {
  id: number;
  status: string;
  response: string | null;
  error_message: string | null;
  result: unknown;
  sent_at: string | null;
  acknowledged_at: string | null;
}

async function setup(tt: Parameters<typeof startApp>[0], config: Parameters<typeof startApp>[1] = {}) {
  const app = await startApp(tt, config);
  const api = async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  return { app, api };
}

function simulate(
  tt: { teardown(fn: () => Promise<void> | void): void },
  url: string,
  sn: string,
  protocol: 'v2' | 'v3',
  extra: Partial<Parameters<typeof createSimulatedDevice>[0]> = {},
): SimulatedDevice {
  const device = createSimulatedDevice({ url, sn, protocol, pollDelayMs: 100, fast: true, requestTimeoutMs: 30_000, ...extra });
  tt.teardown(() => device.stop());
  return device;
}

async function commandDone(api: Awaited<ReturnType<typeof setup>>['api'], id: number, ms = 15_000): Promise<CommandView> {
  let last: CommandView | undefined;
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    last = (await api('GET', `/api/commands/${id}`)).body as CommandView;
    if (last.status === 'success' || last.status === 'failed') return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`command ${id} still ${last?.status} after ${ms} ms`);
}

t.test('v2 terminal: handshake, user sync with the exact wire string, info result', async (t) => {
  const { app, api } = await setup(t);
  await api('POST', '/api/users', { pin: 1001, first_name: 'Ann', last_name: 'Lee', card_no: '123456789' });
  t.equal((await api('POST', '/api/devices', { sn: 'RTV20001' })).res.status, 201);
  const sim = simulate(t, app.url, 'RTV20001', 'v2');
  sim.start();
  await waitFor(() => sim.users().has('1001'), 15_000, 'user 1001 on the v2 terminal');
  t.ok(
    sim
      .executed()
      .some((c) => c.command === 'DATA UPDATE USERINFO PIN=1001\tName=Ann Lee\tPri=0\tPasswd=\tCard=123456789\tGrp=1\tTZ=0000000100000000'),
  );

  const device = (await api('GET', '/api/devices/RTV20001')).body as { version: string; registered_at: string | null; is_active: boolean };
  t.equal(device.version, '2.0.0');
  t.ok(device.registered_at);
  t.equal(device.is_active, true);

  const queued = (await api('POST', '/api/commands', { sn: 'RTV20001', command: 'info' })).body as CommandView;
  t.equal(queued.status, 'pending');
  const done = await commandDone(api, queued.id);
  t.equal(done.status, 'success');
  t.ok(done.sent_at && done.acknowledged_at);
  t.match(done.response, /^ID=\d+&Return=0&CMD=INFO/);
  t.type(done.result, 'object');
  t.ok(sim.executed().some((c) => c.command === 'INFO'));
});

t.test('v3 terminal: registration, user + userauthorize with child ids, door-open, long-poll released by a new command', async (t) => {
  const { app, api } = await setup(t, { config: { longpollS: 20 } });
  await api('POST', '/api/users', { pin: 7, first_name: 'Bo' });
  await api('POST', '/api/devices', { sn: 'RTV30001' });
  const sim = simulate(t, app.url, 'RTV30001', 'v3', { pollDelayMs: 60_000 });
  sim.start();
  await waitFor(() => sim.users().has('7') && sim.authorizations('7').length > 0, 15_000, 'user 7 authorised on the v3 terminal');
  const device = (await api('GET', '/api/devices/RTV30001')).body as {
    version: string;
    registry_code: string | null;
    session_id: string | null;
  };
  t.equal(device.version, '3.0.0');
  t.match(device.registry_code, /^[A-Za-z0-9]{10,32}$/);
  t.ok(device.session_id);

  // The terminal now waits in a held poll (its own delay is 60 s): a new command must be answered at once.
  await new Promise((r) => setTimeout(r, 500));
  const before = Date.now();
  const queued = (await api('POST', '/api/commands', { sn: 'RTV30001', command: 'door-open', params: { door_id: 1, duration: 7 } }))
    .body as CommandView;
  const done = await commandDone(api, queued.id, 10_000);
  t.equal(done.status, 'success');
  t.ok(Date.now() - before < 8_000, 'delivered through the held poll, not the next scheduled poll');
  t.ok(sim.executed().some((c) => c.command === 'CONTROL DEVICE 01010107'));
});

t.test('priority order: higher priority first, API commands before sync ops', async (t) => {
  const { app, api } = await setup(t);
  await api('POST', '/api/devices', { sn: 'RTPRIO01' });
  await api('POST', '/api/users', { pin: 5, first_name: 'Cy' });
  const low = (await api('POST', '/api/commands', { sn: 'RTPRIO01', command: 'check', priority: 1 })).body as CommandView;
  const high = (await api('POST', '/api/commands', { sn: 'RTPRIO01', command: 'info', priority: 50 })).body as CommandView;
  await fetch(`${app.url}/iclock/cdata?SN=RTPRIO01&options=all&pushver=2.4.1`);
  const reply = await (await fetch(`${app.url}/iclock/getrequest?SN=RTPRIO01`)).text();
  const ids = reply.split('\n').map((l) => Number(l.split(':')[1]));
  t.same(ids.slice(0, 2), [high.id, low.id]);
  t.match(reply.split('\n')[2], /^C:\d+:DATA UPDATE USERINFO PIN=5\t/);
});

t.test('attendance upload is stored once when re-sent, with UTC from the location time zone', async (t) => {
  const { app, api } = await setup(t);
  await app.app.locations.update(app.locationId, { timezone: 'Europe/Berlin' });
  await api('POST', '/api/devices', { sn: 'RTATT001' });
  const body = '1001\t2026-07-01 08:00:00\t0\t1\t0\t0\t0\n1002\t2026-07-01 08:05:00\t1\t15\t\t0\t0\n';
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${app.url}/iclock/cdata?SN=RTATT001&table=ATTLOG&Stamp=9`, { method: 'POST', body });
    t.equal(res.status, 200);
    t.match(await res.text(), /^OK: ?2$/);
  }
  const page = (await api('GET', '/api/attendance')).body as {
    total: number;
    data: { pin: string; timestamp: string; local_time: string }[];
  };
  t.equal(page.total, 2);
  t.same(
    page.data.map((a) => [a.pin, a.local_time, a.timestamp]),
    [
      ['1002', '2026-07-01 08:05:00', '2026-07-01T06:05:00.000Z'],
      ['1001', '2026-07-01 08:00:00', '2026-07-01T06:00:00.000Z'],
    ],
  );
});

t.test('unassigned serials: valid protocol replies, recorded, no commands, punches refused until assigned', async (t) => {
  const { app, api } = await setup(t);
  const hs = await fetch(`${app.url}/iclock/cdata?SN=STRAY001&options=all&pushver=2.4.1`);
  t.equal(hs.status, 200);
  t.match(await hs.text(), /^GET OPTION FROM: STRAY001/);
  t.equal(await (await fetch(`${app.url}/iclock/getrequest?SN=STRAY001`)).text(), 'OK');
  const up = await fetch(`${app.url}/iclock/cdata?SN=STRAY001&table=ATTLOG`, { method: 'POST', body: '1\t2026-07-01 08:00:00\t0\t1\n' });
  t.equal(up.status, 503, 'non-200 makes the terminal keep the punch [PUSH-v2 §2.2]');
  t.equal((await app.app.store.devices.getBySerial('STRAY001'))?.location_id, null);
  t.equal((await api('POST', '/api/devices', { sn: 'STRAY001' })).res.status, 201);
  const again = await fetch(`${app.url}/iclock/cdata?SN=STRAY001&table=ATTLOG`, { method: 'POST', body: '1\t2026-07-01 08:00:00\t0\t1\n' });
  t.equal(again.status, 200);
});

t.test('a sent command without a result fails after the ack timeout (fake clock); sync ops are re-queued', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const { app, api } = await setup(t, { clock });
  await api('POST', '/api/devices', { sn: 'RTACK001' });
  await api('POST', '/api/users', { pin: 9, first_name: 'Di' });
  const cmd = (await api('POST', '/api/commands', { sn: 'RTACK001', command: 'reboot' })).body as CommandView;
  await fetch(`${app.url}/iclock/cdata?SN=RTACK001&options=all&pushver=2.4.1`);
  // The API command goes first and REBOOT ends its batch; the sync op waits for the next poll.
  t.equal(await (await fetch(`${app.url}/iclock/getrequest?SN=RTACK001`)).text(), `C:${cmd.id}:REBOOT`);
  t.match(await (await fetch(`${app.url}/iclock/getrequest?SN=RTACK001`)).text(), /^C:\d+:DATA UPDATE USERINFO PIN=9\t/);
  t.equal(((await api('GET', `/api/commands/${cmd.id}`)).body as CommandView).status, 'sent');
  clock.advance(301_000);
  await app.app.hub.sweepCommands();
  const failed = (await api('GET', `/api/commands/${cmd.id}`)).body as CommandView;
  t.equal(failed.status, 'failed');
  t.equal(failed.error_message, 'no result from device');
  const sync = (await api('GET', '/api/commands?command=sync-users')).body as { data: CommandView[] };
  t.equal(sync.data[0]?.status, 'pending', 'the sync op is queued again');
});

t.test('results: negative Return fails with the code meaning; unknown ids are ignored', async (t) => {
  const { app, api } = await setup(t);
  await api('POST', '/api/devices', { sn: 'RTRES001' });
  const cmd = (await api('POST', '/api/commands', { sn: 'RTRES001', command: 'clear-log' })).body as CommandView;
  await fetch(`${app.url}/iclock/cdata?SN=RTRES001&options=all&pushver=2.4.1`);
  t.match(await (await fetch(`${app.url}/iclock/getrequest?SN=RTRES001`)).text(), new RegExp(`^C:${cmd.id}:CLEAR LOG$`));
  const res = await fetch(`${app.url}/iclock/devicecmd?SN=RTRES001`, {
    method: 'POST',
    body: `ID=${cmd.id}&Return=-1002&CMD=CLEAR_LOG\nID=999999&Return=0&CMD=INFO\n`,
  });
  t.equal(await res.text(), 'OK');
  const done = (await api('GET', `/api/commands/${cmd.id}`)).body as CommandView;
  t.equal(done.status, 'failed');
  t.match(done.error_message, /-1002/);
  t.match(done.response, /Return=-1002/);
});

t.test('garbage device requests are answered without a crash', async (t) => {
  const { app } = await setup(t);
  t.equal((await fetch(`${app.url}/iclock/cdata`)).status, 400);
  t.equal((await fetch(`${app.url}/iclock/nowhere?SN=X1`)).status, 404);
  const junk = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
  for (const path of [
    'cdata?SN=JUNK1&table=ATTLOG',
    'devicecmd?SN=JUNK1',
    'cdata?SN=JUNK1&table=OPERLOG',
    'querydata?SN=JUNK1&type=tabledata&tablename=user&count=1&cmdid=1',
  ]) {
    const res = await fetch(`${app.url}/iclock/${path}`, { method: 'POST', body: junk });
    t.ok(res.status < 500 || res.status === 503, `${path} → ${res.status}`);
  }
  t.equal((await fetch(`${app.url}/healthz`)).status, 200);
});
