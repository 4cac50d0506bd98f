/**
 * Issue #32 item 15: users a terminal uploads while a `load-users` is outstanding are kept on the
 * command de-duplicated by PIN (the latest upload of a PIN wins) and at most MAX_LOADED_USERS of
 * them: repeated uploads of the same users do not grow the command. Real app, raw HTTP; both stores.
 */
import t from 'tap';
import type { UserRecord } from '../../protocols/index.js';
import { MAX_LOADED_USERS, mergeUsers } from '../../src/devices/progress.js';
import { bearer, fetchJson, jsonBody, startApp } from '../helpers/app.js';

const USERS = 500;
const userLines = (round: number) =>
  Array.from(
    { length: USERS },
    (_, i) => `USER PIN=${i + 1}\tName=User ${i + 1} r${round}\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000\n`,
  ).join('');

t.test('12 uploads of the same users leave one entry per PIN on the load-users command', async (t) => {
  const s = await startApp(t);
  const api = (method: string, path: string, body?: unknown) =>
    fetchJson(`${s.url}${path}`, body === undefined ? { method, headers: bearer(s.token) } : jsonBody(method, body, bearer(s.token)));
  t.equal((await api('POST', '/api/devices', { sn: 'LOADU001' })).res.status, 201);
  t.equal((await fetch(`${s.url}/iclock/cdata?SN=LOADU001&options=all&pushver=2.4.1`)).status, 200);
  const queued = await api('POST', '/api/commands', { sn: 'LOADU001', command: 'load-users' });
  t.equal(queued.res.status, 201);
  const id = (queued.body as { id: number }).id;
  t.equal(await (await fetch(`${s.url}/iclock/getrequest?SN=LOADU001`)).text(), `C:${id}:DATA QUERY USERINFO`);

  for (let round = 0; round < 12; round++) {
    const res = await fetch(`${s.url}/iclock/cdata?SN=LOADU001&table=OPERLOG`, { method: 'POST', body: userLines(round) });
    t.equal(res.status, 200, `upload ${round} answered`);
    await res.text();
  }
  const progress = (await s.app.store.commands.getById(id))?.result as { users?: { pin: string; name: string }[] } | null;
  t.equal(progress?.users?.length, USERS, 'while outstanding: one entry per PIN');

  const done = await fetch(`${s.url}/iclock/devicecmd?SN=LOADU001`, { method: 'POST', body: `ID=${id}&Return=0&CMD=DATA` });
  t.equal(done.status, 200);
  await done.text();
  const command = (await api('GET', `/api/commands/${id}`)).body as { status: string; result: { users: { pin: string; name: string }[] } };
  t.equal(command.status, 'success');
  t.equal(command.result.users.length, USERS, 'the result: one entry per PIN');
  t.equal(new Set(command.result.users.map((u) => u.pin)).size, USERS, 'no PIN twice');
  t.equal(command.result.users.find((u) => u.pin === '7')?.name, 'User 7 r11', 'the latest upload of a PIN wins');
});

t.test('mergeUsers: at most the cap, a known PIN still replaced at the cap', async (t) => {
  const user = (pin: string, name: string) => ({ pin, name }) as UserRecord;
  const first = mergeUsers([], [user('1', 'a'), user('2', 'b'), user('3', 'c')], 2);
  t.same(
    first.users.map((u) => u.pin),
    ['1', '2'],
  );
  t.equal(first.dropped, 1);
  const again = mergeUsers(first.users, [user('2', 'B'), user('4', 'd')], 2);
  t.same(
    again.users.map((u) => `${u.pin}${u.name}`),
    ['1a', '2B'],
  );
  t.equal(again.dropped, 1);
  t.equal(MAX_LOADED_USERS, 100_000);
});
