// A command's events reach the feed in the order of its transitions, whichever node wrote them. A
// command queued on one node is in the store (with its outbox marker) before that node's `pending`
// event is; a terminal polling another node may take it in between. The claim then stores the owed
// event first (src/devices/lifecycle.ts announceOwed), so no consumer sees `sent` before `pending`.
// Reproduced here on one node by writing the command the way a queueing node does, its event not
// yet appended; the MongoDB leg runs the same file on MongoDB.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { bearer, fetchJson, jsonBody, startApp, waitFor, waitForAsync } from '../helpers/app.js';

const statusesOf = (events: readonly AnyFeedEvent[], id: number) =>
  events.flatMap((e) => (e.type === 'command.updated' && e.data.command.id === id ? [e.data.command.status] : []));

t.test("a command whose `pending` event is still owed: the terminal's claim stores it before its `sent`", async (t) => {
  const app = await startApp(t);
  const auth = bearer(app.token);
  for (const [sn, version] of [
    ['ORDERV3', '3.0.0'],
    ['ORDERV2', '2.0.0'],
  ] as const)
    t.equal((await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn, version }, auth))).res.status, 201);
  const seen: AnyFeedEvent[] = [];
  app.app.feed.subscribe({ locationId: app.locationId }, (e) => seen.push(e));

  for (const [sn, protocol] of [
    ['ORDERV3', 'v3'],
    ['ORDERV2', 'v2'],
  ] as const) {
    const sim = createSimulatedDevice({ url: app.url, sn, protocol, pollDelayMs: 20, retryDelayMs: 50 });
    t.teardown(() => sim.stop());
    sim.start();
    await waitFor(() => sim.stats.online, 10_000, `${sn} online`);

    // As the queueing node writes it: the command with the marker of its `pending` event, which has
    // not reached the feed (that node's append is on its way).
    const queued = await app.app.store.commands.create(
      {
        location_id: app.locationId,
        sn,
        command: 'info',
        params: null,
        priority: 0,
        origin: 'api',
        expires_at: null,
        feed_event: randomUUID(),
      },
      new Date().toISOString(),
    );
    app.app.bus.emit('mailbox.changed', { location_id: app.locationId, sn });
    await waitForAsync(async () => (await app.app.store.commands.getById(queued.id))?.status === 'success', 10_000, `${sn}: info done`);
    await app.app.feed.settled();
    t.same(statusesOf(seen, queued.id), ['pending', 'sent', 'success'], `${sn}: pending → sent → success, in that order`);
    t.same(await app.app.store.commands.owedMarkers([queued.id]), new Map(), `${sn}: nothing owed any more`);
    t.equal(await app.app.feed.sweep(), 0, `${sn}: the sweep finds nothing left to store`);
  }
  const seqs = seen.map((e) => e.seq);
  t.same(
    seqs,
    seqs.map((_, i) => (seqs[0] ?? 1) + i),
    'sequence numbers without gaps or repeats',
  );
});
