// Issue #31 item 2: the audit reads what a terminal holds and repairs the difference with its roster:
// keypad enrolments deleted, users lost or edited at the terminal sent again, a wiped v2 terminal
// refilled after the heartbeat that reports it empty, another location's users removed without
// showing in this location's commands. Both dialects, over HTTP, on the store of this run (SQLite, or
// MongoDB in the MongoDB leg).
import t from 'tap';
import { feedEvents } from '../helpers/feed.js';
import { ADMIN_TOKEN, bearer, fetchJson, jsonBody } from '../helpers/app.js';
import { setup, type Setup } from './helpers.js';

interface Command {
  id: number;
  command: string;
  status: string;
  created_by_token_id: number | null;
  params: Record<string, unknown> | null;
  result: { users?: { pin: string }[] } | null;
}

/** Calls the API with another token of the same gateway. */
const as = (s: Setup, token: string) => async (method: string, path: string, body?: unknown) => {
  const init = body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token));
  const { res, body: parsed } = await fetchJson(`${s.app.url}${path}`, init);
  return { status: res.status, body: parsed };
};
const admin = (s: Setup, path: string, body: unknown) => fetchJson(`${s.app.url}${path}`, jsonBody('POST', body, bearer(ADMIN_TOKEN)));
const newLocation = async (s: Setup, name: string) => ((await admin(s, '/admin/locations', { name })).body as { token: string }).token;

const pinsOf = (sim: { users(): ReadonlyMap<string, unknown> }) => [...sim.users().keys()].sort((a, b) => Number(a) - Number(b));
const commands = async (s: Setup, filter = '') =>
  ((await s.api('GET', `/api/commands?limit=100${filter}`)).body as { data: Command[] }).data;

/** The device.sync events of `sn` in the feed: `state` or `state@last_audit_at` each. */
async function syncEvents(s: Setup, sn: string): Promise<string[]> {
  return (await feedEvents(s.app.app, s.app.locationId)).flatMap((e) =>
    e.type === 'device.sync' && e.data.sn === sn
      ? [e.data.sync.last_audit_at ? `${String(e.data.sync.state)}@${String(e.data.sync.last_audit_at)}` : String(e.data.sync.state)]
      : [],
  );
}

for (const protocol of ['v2', 'v3'] as const) {
  t.test(`${protocol}: an audit on demand deletes keypad users, sends lost and edited users again`, async (t) => {
    const s = await setup(t);
    for (const pin of [1, 2, 3]) t.equal((await s.api('POST', '/api/users', { pin, first_name: `User${pin}` })).status, 201);
    const sn = `AUDIT-${protocol.toUpperCase()}`;
    const sim = await s.terminal(sn, protocol, { keypadUsers: 2 });
    await s.until(async () => ['1', '2', '3'].every((p) => sim.users().has(p)) && (await s.sync(sn)).state === 'in_sync', 'roster held');
    t.same(pinsOf(sim), ['1', '2', '3', '90001', '90002'], 'the keypad users are still there: nothing compared yet');
    t.equal((await s.sync(sn)).last_audit_at, null, 'never audited');

    sim.keypad('2', null);
    sim.keypad('3', { name: 'Renamed at the keypad' });
    // Unplugged while the audit is asked twice: a terminal polling meanwhile may answer the query between the two
    // requests, and a compared audit is rightly followed by a new one.
    await sim.pause();
    const started = await s.api('POST', `/api/devices/${sn}/audit`);
    t.equal(started.status, 202, 'POST /api/devices/{sn}/audit answers 202');
    const query = started.body as Command;
    t.match(query, { command: 'load-users', status: 'pending' }, 'with the query it queued');
    const again = await s.api('POST', `/api/devices/${sn}/audit`);
    t.equal((again.body as Command).id, query.id, 'an audit outstanding is answered, not doubled');
    sim.start();

    await s.until(
      async () =>
        pinsOf(sim).join() === '1,2,3' &&
        (sim.users().get('3') as { name: string }).name === 'User3' &&
        (await s.sync(sn)).state === 'in_sync',
      'repaired and in_sync',
    );
    t.same(pinsOf(sim), ['1', '2', '3'], 'keypad users deleted, the lost user sent again');
    t.equal((sim.users().get('3') as { name: string }).name, 'User3', 'the edited user sent again');
    const state = await s.sync(sn);
    t.ok(state.last_audit_at !== null, 'last_audit_at is set');
    const done = (await s.api('GET', `/api/commands/${query.id}`)).body as Command;
    t.equal(done.status, 'success', 'the query succeeded');
    t.same((done.result?.users ?? []).map((u) => u.pin).sort(), ['1', '3', '90001', '90002'], 'its result shows what the terminal held');
    const deletes = (await commands(s, '&command=sync-users')).filter((c) => c.params?.['op'] === 'user.delete');
    t.same(deletes.map((c) => c.params?.['pin']).sort(), [90001, 90002], 'the keypad users were deleted by sync ops of this location');
  });
}

t.test('v2: a wiped terminal gets its roster back after the heartbeat that reports it empty', async (t) => {
  const s = await setup(t);
  for (const pin of [11, 12]) t.equal((await s.api('POST', '/api/users', { pin, first_name: `W${pin}` })).status, 201);
  const sim = await s.terminal('AUDIT-WIPE', 'v2');
  await s.until(async () => sim.users().size === 2 && (await s.sync('AUDIT-WIPE')).state === 'in_sync', 'roster held');
  sim.wipe();
  t.equal(sim.users().size, 0, 'wiped');
  await s.until(() => pinsOf(sim).join() === '11,12', 'the roster back');
  const audits = (await commands(s, '&command=load-users')).filter((c) => c.created_by_token_id === null);
  t.equal(audits.length, 1, 'one audit, started by the heartbeat count');
  await s.until(async () => (await s.sync('AUDIT-WIPE')).state === 'in_sync', 'in_sync');
});

t.test('the first audit follows the delivered roster; the schedule audits an interval after the last audit', async (t) => {
  const s = await setup(t, { auditIntervalS: 10, adminToken: ADMIN_TOKEN });
  t.equal((await s.api('POST', '/api/users', { pin: 21, first_name: 'Sched' })).status, 201);
  const sim = await s.terminal('AUDIT-SCHED', 'v3', { keypadUsers: 1 });
  // No clock moves: the first audit needs no interval, only the roster delivered (nothing owed).
  await s.until(() => sim.users().has('21') && !sim.users().has('90001'), 'the first audit removed the keypad user', 30_000);
  await s.until(async () => (await s.sync('AUDIT-SCHED')).last_audit_at !== null, 'last_audit_at');
  const first = (await s.sync('AUDIT-SCHED')).last_audit_at as string;
  sim.keypad('90005', { name: 'Later' });
  s.clock.advance(11_000);
  await s.until(() => !sim.users().has('90005'), 'the next interval audits again', 30_000);
  await s.until(async () => ((await s.sync('AUDIT-SCHED')).last_audit_at as string) > first, 'a later last_audit_at');
  const audits = (await commands(s, '&command=load-users')).filter((c) => c.created_by_token_id === null);
  t.equal(audits.length, 2, 'two audits: the first after the roster, the next an interval later');
  const metrics = await (await fetch(`${s.app.url}/metrics`, { headers: bearer(ADMIN_TOKEN) })).text();
  t.match(metrics, /biogate_sync_audits_total\{trigger="initial"[^}]*\} 1\b/, 'the first counted as initial');
  t.match(metrics, /biogate_sync_audits_total\{trigger="schedule"[^}]*\} 1\b/, 'the next as schedule');
});

t.test('an audit whose query never answered does not hold back the next one', async (t) => {
  const s = await setup(t, { auditIntervalS: 10 });
  t.equal((await s.api('POST', '/api/users', { pin: 31, first_name: 'Lost' })).status, 201);
  const sim = await s.terminal('AUDIT-LOST', 'v3');
  await s.until(async () => sim.users().has('31') && (await s.sync('AUDIT-LOST')).last_audit_at !== null, 'roster held, first audit done');
  const queries = async () => commands(s, '&command=load-users');
  await s.until(async () => (await queries()).every((c) => c.status === 'success'), 'the first audit settled');
  // The access tables are read after the roster (a v3 terminal): settled too, so only the next query meets the faults.
  await s.until(async () => (await commands(s, '&command=access-audit')).every((c) => c.status === 'success'), 'its access audit settled');
  sim.keypad('90001', { name: 'Keypad' });
  sim.setFaults({ loseRate: 1 });
  const lost = sim.stats.resultsLost;
  s.clock.advance(11_000);
  await s.until(async () => (await queries()).some((c) => c.status === 'sent'), 'the audit query sent', 30_000);
  // Faults back off only once the terminal dropped the query's result (it decides after uploading the table).
  await s.until(() => sim.stats.resultsLost > lost, 'its result lost');
  t.ok(sim.users().has('90001'), 'nothing compared: the keypad user stays');
  sim.setFaults({ loseRate: 0 });
  s.clock.advance(31_000);
  await s.app.app.hub.sweepCommands();
  await s.until(async () => (await queries()).some((c) => c.status === 'failed'), 'the query failed after the ack timeout');
  await s.until(() => !sim.users().has('90001'), 'the next scheduled audit removed the keypad user', 30_000);
  t.equal((await queries()).length, 3, 'the first audit, the lost query, and a query that replaced it');
});

t.test("an audit removes another location's users as ops of no location", async (t) => {
  const s = await setup(t, { adminToken: ADMIN_TOKEN });
  // Location B syncs user 501 to the terminal; the terminal then moves to this location (A).
  const apiB = as(s, await newLocation(s, 'Other site'));
  t.equal((await apiB('POST', '/api/users', { pin: 501, first_name: 'Theirs' })).status, 201);
  t.equal((await apiB('POST', '/api/devices', { sn: 'AUDIT-MOVE', name: 'm' })).status, 201);
  const sim = await s.terminal('AUDIT-MOVE', 'v3', {}, false);
  // Held, and its op confirmed (a line whose result is still on its way: the next case).
  const confirmed = async () =>
    ((await apiB('GET', '/api/commands?command=sync-users&sn=AUDIT-MOVE')).body as { data: Command[] }).data.some(
      (c) => c.params?.['pin'] === 501 && c.status === 'success',
    );
  await s.until(async () => sim.users().has('501') && (await confirmed()), "B's user on the terminal, confirmed");
  // Unassigned and assigned to A by the admin API: its move deletes run; then the user comes back at the keypad.
  t.equal((await apiB('DELETE', '/api/devices/AUDIT-MOVE')).status, 200);
  t.equal((await s.api('POST', '/api/devices', { sn: 'AUDIT-MOVE', name: 'm' })).status, 201);
  await s.until(() => !sim.users().has('501'), 'the move deletes ran');
  sim.keypad('501', { name: 'Theirs' });
  t.equal((await s.api('POST', '/api/devices/AUDIT-MOVE/audit')).status, 202);
  await s.until(() => !sim.users().has('501'), 'the audit deleted it');
  const mine = await commands(s);
  t.same(
    mine.filter((c) => JSON.stringify(c).includes('501')),
    [],
    "none of this location's commands shows B's PIN",
  );
  t.notOk(JSON.stringify(mine.filter((c) => c.command === 'load-users')).includes('Theirs'), 'nor its name');
});

t.test("a terminal moved while B's line is unconfirmed has B's user deleted by the move, not left to the audit", async (t) => {
  const s = await setup(t, { adminToken: ADMIN_TOKEN });
  const apiB = as(s, await newLocation(s, 'Other site'));
  t.equal((await apiB('POST', '/api/devices', { sn: 'MOVE-SENT', name: 'm' })).status, 201);
  const sim = await s.terminal('MOVE-SENT', 'v3', { loseRate: 1 }, false);
  // The terminal applies B's line, its result is lost: the op stays `sent`.
  t.equal((await apiB('POST', '/api/users', { pin: 502, first_name: 'Unconfirmed' })).status, 201);
  const sent = async () =>
    ((await apiB('GET', '/api/commands?command=sync-users&sn=MOVE-SENT')).body as { data: Command[] }).data.some(
      (c) => c.params?.['pin'] === 502 && c.status === 'sent',
    );
  await s.until(async () => sim.users().has('502') && (await sent()), "B's user held, its op still sent");
  t.equal((await apiB('DELETE', '/api/devices/MOVE-SENT')).status, 200);
  sim.setFaults({ loseRate: 0 });
  t.equal((await s.api('POST', '/api/devices', { sn: 'MOVE-SENT', name: 'm' })).status, 201);
  await s.until(() => !sim.users().has('502'), 'the move deleted the unconfirmed user');
  t.notOk(JSON.stringify(await commands(s)).includes('502'), "this location's commands do not show B's PIN");
});

t.test('POST /api/devices/{sn}/audit: another location, unknown terminal, read token', async (t) => {
  const s = await setup(t, { adminToken: ADMIN_TOKEN });
  t.equal((await s.api('POST', '/api/devices/NOPE/audit')).status, 404);
  t.equal((await as(s, await newLocation(s, 'B'))('POST', '/api/devices', { sn: 'AUDIT-B', name: 'b' })).status, 201);
  t.equal((await s.api('POST', '/api/devices/AUDIT-B/audit')).status, 404, "another location's terminal is not found");
  const read = (await admin(s, `/admin/locations/${s.app.locationId}/tokens`, { scope: 'read' })).body as { token: string };
  t.equal((await s.api('POST', '/api/devices', { sn: 'AUDIT-A', name: 'a' })).status, 201);
  const refused = await as(s, read.token)('POST', '/api/devices/AUDIT-A/audit');
  t.equal(refused.status, 403, 'a read token may not start one');
});

t.test('POST /api/devices/{sn}/audit: concurrent requests all answer 202 with the one audit outstanding', async (t) => {
  const s = await setup(t);
  t.equal((await s.api('POST', '/api/devices', { sn: 'AUDIT-RACE', name: 'r' })).status, 201);
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(Array.from({ length: 8 }, () => s.api('POST', '/api/devices/AUDIT-RACE/audit')));
    t.same(
      answers.map((a) => a.status),
      Array(8).fill(202),
      `round ${round}: every request is answered 202`,
    );
    t.equal(new Set(answers.map((a) => (a.body as Command).id)).size, 1, `round ${round}: one audit, the same for all`);
    // The terminal never answers: cancel it so the next round starts a fresh one.
    const id = (answers[0]?.body as Command).id;
    await s.api('DELETE', `/api/commands/${id}`);
  }
});

t.test('an audit that finds nothing to repair is still announced as device.sync (last_audit_at moved)', async (t) => {
  const s = await setup(t);
  t.equal((await s.api('POST', '/api/users', { pin: 1, first_name: 'Ann' })).status, 201);
  const sim = await s.terminal('AUDIT-QUIET', 'v3');
  await s.until(async () => sim.users().has('1') && (await syncEvents(s, 'AUDIT-QUIET')).at(-1) === 'in_sync', 'in sync, announced');
  t.equal((await s.api('POST', '/api/devices/AUDIT-QUIET/audit')).status, 202);
  await s.until(async () => (await s.sync('AUDIT-QUIET')).last_audit_at !== null, 'the audit compared');
  const at = (await s.sync('AUDIT-QUIET')).last_audit_at as string;
  t.equal((await s.sync('AUDIT-QUIET')).state, 'in_sync', 'nothing changed');
  await s.until(async () => (await syncEvents(s, 'AUDIT-QUIET')).includes(`in_sync@${at}`), 'a device.sync event carrying it');
  t.pass('announced, so retained copies (MQTT devices/<sn>/sync) show last_audit_at');
});
