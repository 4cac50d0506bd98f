// Sync rules of API-CONTRACT §6 over real HTTP with raw terminals: reassignment removes another
// location's users first, sync-users removes users the location does not hold (via load-users),
// v2 access windows are enforced by the gateway, templates skipped for incompatible devices say why.
import t from 'tap';
import { ADMIN_TOKEN, bearer, DAY_MS, fakeClock, fetchJson, jsonBody, startApp, type StartOptions } from '../helpers/app.js';

interface CommandView {
  id: number;
  command: string;
  status: string;
  params: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  response: string | null;
}

async function setup(tt: Parameters<typeof startApp>[0], options: StartOptions = {}) {
  const app = await startApp(tt, { ...options, config: { adminToken: ADMIN_TOKEN, ...options.config } });
  const as = (token: string) => async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));
  const api = as(app.token);
  const terminal = (sn: string) => ({
    get: async (path: string) => (await fetch(`${app.url}/iclock/${path}${path.includes('?') ? '&' : '?'}SN=${sn}`)).text(),
    post: async (path: string, body: string) =>
      (await fetch(`${app.url}/iclock/${path}${path.includes('?') ? '&' : '?'}SN=${sn}`, { method: 'POST', body })).text(),
  });
  /** Polls once and acknowledges every line with Return=0; returns the wire lines. */
  const exchange = async (sn: string): Promise<string[]> => {
    const text = await terminal(sn).get('getrequest');
    if (text === 'OK') return [];
    const lines = text.split('\n').filter(Boolean);
    await terminal(sn).post('devicecmd', lines.map((l) => `ID=${l.split(':')[1]}&Return=0&CMD=DATA`).join('\n'));
    return lines.map((l) => l.split(':').slice(2).join(':'));
  };
  /** Polls until the mailbox is empty; returns every wire line sent. */
  const drain = async (sn: string): Promise<string[]> => {
    const all: string[] = [];
    for (let i = 0; i < 50; i++) {
      const lines = await exchange(sn);
      if (lines.length === 0) return all;
      all.push(...lines);
    }
    throw new Error(`${sn}: mailbox did not drain`);
  };
  return { app, api, as, terminal, exchange, drain };
}

t.test('reassignment: users synced for the old location are deleted from the device before the new roster', async (t) => {
  const { app, api, as, drain } = await setup(t);
  await api('POST', '/api/users', { pin: 1, first_name: 'Old' });
  await api('POST', '/api/users', { pin: 2, first_name: 'Shared' });
  await api('POST', '/api/devices', { sn: 'MOVE0001' });
  t.same(
    (await drain('MOVE0001')).map((l) => l.split('\t')[0]),
    ['DATA UPDATE USERINFO PIN=1', 'DATA UPDATE USERINFO PIN=2'],
  );
  t.equal((await api('DELETE', '/api/devices/MOVE0001')).res.status, 200);

  const created = (await fetchJson(`${app.url}/admin/locations`, jsonBody('POST', { name: 'Second' }, bearer(ADMIN_TOKEN)))).body as {
    token: string;
  };
  const second = as(created.token);
  await second('POST', '/api/users', { pin: 2, first_name: 'Other' });
  await second('POST', '/api/users', { pin: 3, first_name: 'New' });
  t.equal((await second('POST', '/api/devices', { sn: 'MOVE0001' })).res.status, 201);
  const wire = await drain('MOVE0001');
  t.same(
    wire,
    [
      'DATA DELETE USERINFO PIN=1',
      'DATA DELETE USERINFO PIN=2',
      'DATA UPDATE USERINFO PIN=2\tName=Other\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000',
      'DATA UPDATE USERINFO PIN=3\tName=New\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000',
    ],
    // A PIN both locations use is deleted too: an overwrite would leave the old person's templates under it.
    "every user of the first location removed first, PIN 2 included; then the new location's roster",
  );
  const first = (await api('GET', '/api/commands?sn=MOVE0001')).body as { total: number };
  t.equal(first.total, 2, "the first location keeps its own history and sees none of the second's ops");
});

t.test("sync-users: the device's users are audited with load-users and the extras removed", async (t) => {
  const { api, terminal, drain } = await setup(t);
  await api('POST', '/api/users', { pin: 10, first_name: 'Kept' });
  await api('POST', '/api/users', { pin: 11, first_name: 'Gone', is_active: false });
  await api('POST', '/api/devices', { sn: 'AUDIT001' });
  await drain('AUDIT001');
  const sync = (await api('POST', '/api/commands', { sn: 'AUDIT001', command: 'sync-users' })).body as CommandView;
  t.equal(sync.status, 'pending', 'not success before the terminal got anything (issue #13)');
  const auditId = sync.result?.['load_users_id'] as number;
  t.ok(Number.isInteger(auditId));
  const lines = (await terminal('AUDIT001').get('getrequest')).split('\n');
  t.equal(lines[0], `C:${auditId}:DATA QUERY USERINFO`, 'the audit goes before the roster');
  // [PUSH-v2 §6.5] the device answers with its users as an OPERLOG upload, then the result.
  await terminal('AUDIT001').post(
    'cdata?table=OPERLOG',
    'USER PIN=10\tName=Kept\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000\nUSER PIN=11\tName=Gone\tPri=0\nUSER PIN=99\tName=Stranger\tPri=14\n',
  );
  const ids = lines.map((l) => l.split(':')[1]);
  await terminal('AUDIT001').post('devicecmd', ids.map((id) => `ID=${id}&Return=0&CMD=DATA`).join('\n'));
  const audit = (await api('GET', `/api/commands/${auditId}`)).body as CommandView;
  t.equal(audit.status, 'success');
  t.same(audit.result?.['unknown_pins'], ['99']);
  t.match(
    (await api('GET', `/api/commands/${sync.id}`)).body,
    { status: 'sent' },
    'the deletes the audit found are part of it: not done yet',
  );
  const after = await drain('AUDIT001');
  t.same(
    after.filter((l) => l.startsWith('DATA DELETE')).sort(),
    ['DATA DELETE USERINFO PIN=11', 'DATA DELETE USERINFO PIN=99'],
    'the inactive user and the stranger are deleted',
  );
  t.notOk(
    after.some((l) => l.includes('PIN=10\t') && l.startsWith('DATA DELETE')),
    'the active user stays',
  );
  t.match(
    (await api('GET', `/api/commands/${sync.id}`)).body,
    { status: 'success', result: { queued: 4, delivered: 4, failed: 0, load_users_id: auditId } },
    'success once audit, roster and deletes were acknowledged',
  );
});

t.test(
  'v2 access windows: outside the window the user is removed; the scheduler adds and removes them at the edges; v3 stores the window',
  async (t) => {
    const clock = fakeClock('2026-03-01T08:00:00.000Z');
    const { app, api, drain } = await setup(t, { clock });
    await app.app.locations.update(app.locationId, { timezone: 'Europe/Berlin' });
    await api('POST', '/api/users', { pin: 5, first_name: 'Temp', start_time: '2026-03-02', end_time: '2026-03-03' });
    await api('POST', '/api/devices', { sn: 'WINDOW02' });
    await api('POST', '/api/devices', { sn: 'WINDOW03', version: '3.0.0' });
    t.same(await drain('WINDOW02'), ['DATA DELETE USERINFO PIN=5'], 'before the window the v2 device must not hold the user');
    const v3 = await drain('WINDOW03');
    t.match(v3[0], /^DATA UPDATE user CardNo=\tPin=5\t.*StartTime=20260302\tEndTime=20260303/, 'v3 holds the window itself');

    await app.app.hub.sweepAccessWindows();
    clock.set('2026-03-01T23:00:01.000Z'); // 00:00:01 on 2 March in Berlin
    await app.app.hub.sweepAccessWindows();
    t.match((await drain('WINDOW02'))[0], /^DATA UPDATE USERINFO PIN=5\tName=Temp\t/, 'added when the window opens');
    t.same(await drain('WINDOW03'), [], 'v3 devices are not bothered by the scheduler');
    clock.set(new Date(Date.parse('2026-03-03T23:00:00.000Z') + 1000).toISOString()); // after 23:59:59 local on 3 March
    await app.app.hub.sweepAccessWindows();
    t.same(await drain('WINDOW02'), ['DATA DELETE USERINFO PIN=5'], 'removed when it closes');
    clock.advance(DAY_MS);
    t.equal(await app.app.hub.sweepAccessWindows(), 0, 'no edge: nothing queued');
  },
);

t.test('templates a device cannot take are skipped with the reason recorded on the sync op', async (t) => {
  const { api, terminal, drain } = await setup(t);
  await api('POST', '/api/users', { pin: 7, first_name: 'Finger' });
  await api('POST', '/api/devices', { sn: 'FPV10001' });
  await api('POST', '/api/devices', { sn: 'FPV12001' });
  for (const [sn, v] of [
    ['FPV10001', '10'],
    ['FPV12001', '12'],
  ] as const) {
    await terminal(sn).get('cdata?options=all&pushver=2.4.1');
    await terminal(sn).post('cdata?table=options', `FPVersion=${v},FingerFunOn=1\n`);
    await drain(sn);
  }
  // A v10 fingerprint enrolled on the first device [PUSH-v2 §6.6].
  const tmp = Buffer.from('fingerprint-template-bytes').toString('base64');
  await terminal('FPV10001').post('cdata?table=OPERLOG', `FP PIN=7\tFID=3\tSize=${tmp.length}\tValid=1\tTMP=${tmp}\n`);
  const sent = await drain('FPV12001');
  t.ok(
    sent.some((l) => l.startsWith('DATA UPDATE USERINFO PIN=7')),
    'the user still goes',
  );
  t.notOk(
    sent.some((l) => l.includes('FINGERTMP') || l.includes('BIODATA')),
    'the v10 template does not go to a v12 device',
  );
  const ops = (await api('GET', '/api/commands?sn=FPV12001&command=sync-users&status=success')).body as { data: CommandView[] };
  t.same(ops.data[0]?.result, { note: 'templates skipped: fingerprint 3: template v10, device v12' });
});
