// The event feed on one node (issue #14; the cluster side is test/scale/cluster-feed.test.ts): every
// transition once, in order, with the public view and nothing store-internal; per-location
// sequence numbers that survive a restart; resuming after a sequence number; location scoping.
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { ADMIN_TOKEN, bearer, fakeClock, fetchJson, jsonBody, startApp, waitFor } from '../helpers/app.js';

const INTERNAL_FIELDS = [
  'comm_key_hash',
  'idempotency_key',
  'idem',
  'sync_slot',
  'sync_key',
  'wire',
  'hash',
  'token_hash',
  'attempts',
  'origin',
];

function fieldsOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) fieldsOf(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      fieldsOf(v, out);
    }
  }
  return out;
}

t.test('one node: every transition once, in seq order, as the API shows it; resume; restart; scoping', async (t) => {
  const clock = fakeClock();
  let app = await startApp(t, { clock, config: { adminToken: ADMIN_TOKEN, longpollS: 0 } });
  const { token, locationId, storeUrl } = app;
  const api = (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));
  const other = (await fetchJson(`${app.url}/admin/locations`, jsonBody('POST', { name: 'Other' }, bearer(ADMIN_TOKEN)))).body as {
    location: { id: number };
    token: string;
  };

  const mine: AnyFeedEvent[] = [];
  const theirs: AnyFeedEvent[] = [];
  app.app.feed.subscribe({ locationId }, (e) => mine.push(e));
  app.app.feed.subscribe({ locationId: other.location.id }, (e) => theirs.push(e));

  t.equal((await api('POST', '/api/devices', { sn: 'KEYED', comm_key: '918273' })).res.status, 201);
  t.equal((await api('POST', '/api/devices', { sn: 'FEED1' })).res.status, 201);
  const sim = createSimulatedDevice({ url: app.url, sn: 'FEED1', protocol: 'v2', pollDelayMs: 20 });
  t.teardown(() => sim.stop());
  sim.start();
  await waitFor(() => sim.stats.online, 10_000, 'terminal online');
  t.equal((await api('POST', '/api/users', { pin: 7, first_name: 'Ann' })).res.status, 201);
  const cmd = (await api('POST', '/api/commands', { sn: 'FEED1', command: 'info' })).body as { id: number };
  await waitFor(
    () => mine.some((e) => e.type === 'command.updated' && e.data.command.id === cmd.id && e.data.command.status === 'success'),
    10_000,
    'info succeeded',
  );
  await sim.punch('7', '2026-03-01 09:00:00');
  await waitFor(() => mine.some((e) => e.type === 'attendance.recorded'), 10_000, 'the punch');
  await app.app.feed.settled();

  const types = new Set(mine.map((e) => e.type));
  for (const type of ['device.updated', 'device.online', 'user.changed', 'command.updated', 'attendance.recorded'])
    t.ok(types.has(type as never), `feed has ${type}`);
  t.same(
    mine.map((e) => e.seq),
    mine.map((_, i) => i + 1),
    'seq 1, 2, 3 … without gaps or repeats',
  );
  t.equal(new Set(mine.map((e) => e.id)).size, mine.length, 'unique ids');
  t.ok(
    mine.every((e) => e.location_id === locationId && e.node === app.app.nodeId),
    'scoped and signed by the node',
  );
  // At most the audit entries of the admin creating that location (announced after their commit, so they may
  // arrive after the subscription).
  t.same(
    theirs.filter((e) => !(e.type === 'audit.recorded' && (e.data.entry as { actor?: { kind?: string } }).actor?.kind === 'admin')),
    [],
    'the other location saw none of it',
  );
  const statuses = mine.flatMap((e) => (e.type === 'command.updated' && e.data.command.id === cmd.id ? [e.data.command.status] : []));
  t.same(statuses, ['pending', 'sent', 'success'], 'the command: each transition once, in order');
  const final = mine.find((e) => e.type === 'command.updated' && e.data.command.id === cmd.id && e.data.command.status === 'success');
  t.same(
    final?.type === 'command.updated' ? final.data.command : undefined,
    (await api('GET', `/api/commands/${cmd.id}`)).body,
    'the payload is what GET /api/commands/{id} returns',
  );
  const leaked = [...fieldsOf(mine.map((e) => e.data))].filter((k) => INTERNAL_FIELDS.includes(k));
  t.same(leaked, [], 'no store-internal field in any payload');
  t.notMatch(JSON.stringify(mine), /918273/, 'the comm key appears nowhere');
  t.ok(
    mine.some((e) => e.type === 'device.updated' && e.data.sn === 'KEYED' && e.data.device['auth'] === 'comm_key'),
    "the keyed device's event says how it authenticates, not with what",
  );
  const punch = mine.find((e) => e.type === 'attendance.recorded');
  t.match(punch?.data, { sn: 'FEED1', records: [{ pin: '7', sn: 'FEED1', local_time: '2026-03-01 09:00:00' }] });

  // Resume: a consumer that saw up to seq 3 gets 4… from the store, then live ones, each once.
  const resumed: AnyFeedEvent[] = [];
  app.app.feed.subscribe({ locationId, after: 3 }, (e) => resumed.push(e));
  t.equal((await api('POST', '/api/users', { pin: 8, first_name: 'Bob' })).res.status, 201);
  await app.app.feed.settled();
  await waitFor(() => resumed.length === mine.length - 3, 5_000, 'replay and the live event');
  t.same(
    resumed.map((e) => e.seq),
    mine.slice(3).map((e) => e.seq),
    'replayed from 4, then live, no duplicates',
  );
  t.same(
    resumed.map((e) => e.id),
    mine.slice(3).map((e) => e.id),
    'the same events',
  );

  // Restart on the same store: numbering continues, and a consumer resumes across the restart.
  // The simulator's last exchanges (the new user's sync op, its sync state) may still be on their way to
  // the store: pause it (its exchange under way completes on the server too, where stop() would abort
  // it client-side while the server still handles what it had received), let the outbox, the terminal's
  // sync state (refreshed 250 ms after a confirmation), the presence feed and the feed settle until the store's number holds
  // still, then wait until the subscriber holds all the store has.
  await sim.pause();
  let stored = -1;
  for (let seen = await app.app.feed.latestSeq(locationId); seen !== stored; seen = await app.app.feed.latestSeq(locationId)) {
    stored = seen;
    await app.app.outbox.idle();
    await app.app.terminals.settled();
    await app.app.presence.idle(); // the punch's presence.changed (read a second after it)
    await app.app.feed.settled();
    await new Promise((r) => setTimeout(r, 100));
  }
  await waitFor(() => (mine.at(-1)?.seq ?? 0) === stored, 5_000, 'every stored event delivered');
  const lastSeq = stored;
  await app.close();
  app = await startApp(t, { clock, storeUrl, config: { adminToken: ADMIN_TOKEN, longpollS: 0 } });
  t.equal(await app.app.feed.latestSeq(locationId), lastSeq, 'latestSeq after restart');
  const after: AnyFeedEvent[] = [];
  app.app.feed.subscribe({ locationId, after: lastSeq - 2 }, (e) => after.push(e));
  t.ok((await api('DELETE', '/api/users/8')).res.ok);
  await app.app.feed.settled();
  // The delete may bring a sync op for the terminal along (when the upsert's op had already been sent to
  // it before the restart), so wait for the deletion itself rather than for a count.
  const deleted = (e: AnyFeedEvent) => e.type === 'user.changed' && e.data.change === 'deleted';
  await waitFor(() => after.some(deleted), 5_000, 'two old events and the deletion');
  const seqs = after.map((e) => e.seq);
  t.same(seqs.slice(0, 2), [lastSeq - 1, lastSeq], 'resumed across the restart');
  t.same(
    seqs,
    seqs.map((_, i) => lastSeq - 1 + i),
    'numbering continued after the restart, without gaps',
  );
  t.match(after.find(deleted), { type: 'user.changed', data: { pins: [8], change: 'deleted' } });
  t.ok(
    after.slice(2).every((e) => e.type === 'user.changed' || e.type === 'command.updated' || e.type === 'audit.recorded'),
    'only the deletion, its audit entry and its sync op are new',
  );
});

t.test('subscribe: resuming needs one location', async (t) => {
  const app = await startApp(t);
  t.throws(() => app.app.feed.subscribe({ locationId: null, after: 1 }, () => {}), /single location/);
});
