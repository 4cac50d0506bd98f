// A device moved from location B to location A (sync/device-move.ts, issues #13 and #31): B's users
// are deleted from it (confirmed) before anything of A is sent, A's own load-users included,
// and attendance the terminal buffered while it served B (device-local time before the assignment
// to A) is acknowledged but never recorded for A.
import t from 'tap';
import { ADMIN_TOKEN, bearer, fakeClock, fetchJson, jsonBody, startApp } from '../helpers/app.js';

interface Page {
  data: { pin: string; local_time: string }[];
  total: number;
}

t.test("moved B → A: B's users go first, B-time attendance is not A's", async (t) => {
  const clock = fakeClock('2026-05-04T09:00:00.000Z');
  const app = await startApp(t, { clock, config: { adminToken: ADMIN_TOKEN, longpollS: 1 } });
  const as = (token: string) => async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));
  const a = as(app.token);
  const created = (await fetchJson(`${app.url}/admin/locations`, jsonBody('POST', { name: 'B' }, bearer(ADMIN_TOKEN)))).body as {
    token: string;
  };
  const b = as(created.token);
  const SN = 'MOVEB2A1';
  const iclock = async (path: string, body?: string) =>
    (
      await fetch(`${app.url}/iclock/${path}${path.includes('?') ? '&' : '?'}SN=${SN}`, body === undefined ? {} : { method: 'POST', body })
    ).text();
  const drain = async (): Promise<string[]> => {
    const all: string[] = [];
    for (let i = 0; i < 20; i++) {
      const text = await iclock('getrequest');
      if (text === 'OK') return all;
      const lines = text.split('\n').filter(Boolean);
      await iclock('devicecmd', lines.map((l) => `ID=${l.split(':')[1]}&Return=0&CMD=DATA`).join('\n'));
      all.push(...lines.map((l) => l.split(':').slice(2).join(':').split('\t')[0] as string));
    }
    throw new Error('mailbox did not drain');
  };

  await b('POST', '/api/users', { pin: 1, first_name: 'Bea' });
  t.equal((await b('POST', '/api/devices', { sn: SN })).res.status, 201);
  t.same(await drain(), ['DATA UPDATE USERINFO PIN=1'], "B's user on the terminal");
  clock.set('2026-05-04T12:00:00.000Z');
  t.equal((await b('DELETE', `/api/devices/${SN}`)).res.status, 200);
  await a('POST', '/api/users', { pin: 2, first_name: 'Al' });
  t.equal((await a('POST', '/api/devices', { sn: SN })).res.status, 201, 'assigned to A at 12:00 UTC');

  // A asks the terminal for its users at once. Issue #31: B's user is deleted, and the delete confirmed,
  // before anything of A goes out, A's own API commands included.
  const load = (await a('POST', '/api/commands', { sn: SN, command: 'load-users' })).body as { id: number };
  const first = (await iclock('getrequest')).split('\n').filter(Boolean);
  t.same(
    first.map((l) => l.split(':').slice(2).join(':')),
    ['DATA DELETE USERINFO PIN=1'],
    "B's user is deleted first, and alone",
  );
  t.equal(await iclock('getrequest'), 'OK', 'nothing of A while the delete is unconfirmed');
  await iclock('devicecmd', first.map((l) => `ID=${l.split(':')[1]}&Return=0&CMD=DATA`).join('\n'));
  const second = (await iclock('getrequest')).split('\n').filter(Boolean);
  t.equal(second[0], `C:${load.id}:DATA QUERY USERINFO`, "then the integrator's load-users");
  // [PUSH-v2 §6.5] the users come as an OPERLOG upload: a user enrolled on the terminal itself.
  await iclock('cdata?table=OPERLOG', 'USER PIN=7\tName=Local\tPri=0\n');
  await iclock('devicecmd', second.map((l) => `ID=${l.split(':')[1]}&Return=0&CMD=DATA`).join('\n'));
  const loaded = (await a('GET', `/api/commands/${load.id}`)).body as { status: string; result: unknown };
  t.equal(loaded.status, 'success');
  t.notMatch(JSON.stringify(loaded.result), /Bea/, "B's user is not in A's load-users result");
  t.match(JSON.stringify(loaded.result), /Local/, 'a user enrolled on the terminal itself is');
  t.same(
    [...second.slice(1).map((l) => l.split(':').slice(2).join(':').split('\t')[0]), ...(await drain())],
    ['DATA UPDATE USERINFO PIN=2'],
    "A's user after B's user was deleted",
  );

  // The terminal had buffered a punch of B's user at 11:00 and records one of A's at 12:30.
  clock.set('2026-05-04T12:30:00.000Z');
  const answer = await iclock(
    'cdata?table=ATTLOG&Stamp=9999',
    '1\t2026-05-04 11:00:00\t0\t1\t0\t0\t0\n2\t2026-05-04 12:30:00\t0\t1\t0\t0\t0\n',
  );
  t.equal(answer.trim(), 'OK: 2', 'both acknowledged (the terminal must not resend them)');
  const seen = (await a('GET', '/api/attendance')).body as Page;
  t.same(
    seen.data.map((r) => [r.pin, r.local_time]),
    [['2', '2026-05-04 12:30:00']],
    'A sees only what happened after the move',
  );
  t.equal(((await b('GET', '/api/attendance')).body as Page).total, 0, 'and B gets nothing from a device that is no longer its own');
});

t.test("moved B → A: a sync-users audit removes B's users without showing them to A", async (t) => {
  const app = await startApp(t, { config: { adminToken: ADMIN_TOKEN, longpollS: 0 } });
  const as = (token: string) => async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));
  const a = as(app.token);
  const b = as(
    ((await fetchJson(`${app.url}/admin/locations`, jsonBody('POST', { name: 'B' }, bearer(ADMIN_TOKEN)))).body as { token: string }).token,
  );
  const SN = 'MOVEB2A2';
  const iclock = async (path: string, body?: string) =>
    (
      await fetch(`${app.url}/iclock/${path}${path.includes('?') ? '&' : '?'}SN=${SN}`, body === undefined ? {} : { method: 'POST', body })
    ).text();
  const answerAll = async () => {
    const lines = (await iclock('getrequest')).split('\n').filter((l) => l.startsWith('C:'));
    if (lines.length > 0) await iclock('devicecmd', lines.map((l) => `ID=${l.split(':')[1]}&Return=0&CMD=DATA`).join('\n'));
    return lines;
  };
  await b('POST', '/api/users', { pin: 1, first_name: 'Bea', card_no: '4242' });
  await b('POST', '/api/devices', { sn: SN });
  await answerAll();
  await b('DELETE', `/api/devices/${SN}`);
  await a('POST', '/api/users', { pin: 2, first_name: 'Al' });
  await a('POST', '/api/devices', { sn: SN });
  const sync = (await a('POST', '/api/commands', { sn: SN, command: 'sync-users' })).body as {
    id: number;
    result: { load_users_id: number };
  };
  // The terminal answers the audit before anything else ran: it still holds B's user 1.
  const lines = (await iclock('getrequest')).split('\n').filter((l) => l.startsWith('C:'));
  await iclock('cdata?table=OPERLOG', 'USER PIN=1\tName=Bea\tPri=0\tCard=4242\nUSER PIN=2\tName=Al\tPri=0\n');
  await iclock('devicecmd', lines.map((l) => `ID=${l.split(':')[1]}&Return=0&CMD=DATA`).join('\n'));
  for (let i = 0; i < 5 && (await answerAll()).length > 0; i++);
  const audit = (await a('GET', `/api/commands/${sync.result.load_users_id}`)).body as { status: string; result: unknown };
  t.equal(audit.status, 'success');
  t.notMatch(JSON.stringify(audit.result), /Bea|4242|"1"/, "nothing of B's user in A's audit result");
  t.match((await a('GET', `/api/commands/${sync.id}`)).body, { status: 'success' }, 'the sync-users completed');
});
