// Issue #16: on several nodes sharing MongoDB (change streams on), events produced on any node reach
// the receiver once: only the holder of the `webhooks` job lease delivers. When it stops, another
// node takes the lease over (after it runs out) and delivers what is left.
import t from 'tap';
import { bearer, fakeClock, fetchJson, jsonBody, startApp, waitFor, type StartedApp } from '../helpers/app.js';
import { startControlledMongo } from '../helpers/mongo-control.js';
import { startReceiver } from './receiver.js';

t.test('two nodes: every event once, from the lease holder; the other node takes over when it stops', async (t) => {
  const mongo = await startControlledMongo(t);
  if (typeof mongo === 'string') return t.plan(0, mongo); // a visible skip: Java/Maven missing
  const storeUrl = `${mongo.server}/biogate_webhooks_${process.pid}`;
  const clock = fakeClock();
  const config = { webhookAllowPrivate: 'on', webhookAllowHttp: 'on' } as const;
  const nodes: StartedApp[] = [];
  for (const [i, name] of ['node-a', 'node-b'].entries())
    nodes.push(await startApp(t, { clock, storeUrl, config: { ...config, nodeId: name, bootstrap: i === 0 ? 'on' : 'off' } }));
  const [a, b] = nodes as [StartedApp, StartedApp];
  for (const n of nodes) await waitFor(() => n.app.feed.clustered, 5_000, 'change stream open');
  const token = a.token;
  const api = (node: StartedApp, method: string, path: string, body?: unknown) =>
    fetchJson(`${node.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));

  const rx = await startReceiver(t);
  t.equal((await api(b, 'POST', '/api/webhooks', { url: rx.url, events: ['user.changed'] })).res.status, 201, 'created on node b');
  for (let pin = 1; pin <= 20; pin++)
    t.equal((await api(pin % 2 === 0 ? a : b, 'POST', '/api/users', { pin, first_name: `P${pin}` })).res.status, 201);
  const pinsOf = () => rx.received.map((r) => (JSON.parse(r.body) as { data: { pins: number[] } }).data.pins[0]);
  await waitFor(() => rx.received.length >= 20, 20_000, '20 events at the receiver');
  await new Promise((r) => setTimeout(r, 1_500)); // a second node delivering too would show by now
  t.equal(rx.received.length, 20, 'each once');
  t.same(
    pinsOf(),
    Array.from({ length: 20 }, (_, i) => i + 1),
    'in feed order',
  );
  t.equal(new Set(rx.received.map((r) => r.headers['webhook-id'])).size, 20);

  // Which node led? Stop it; the other takes over once the lease has run out.
  const leader = await Promise.all(
    nodes.map((n) =>
      n.app.store.cluster.acquireLease(
        'job:webhooks',
        n.app.nodeId,
        clock.now().toISOString(),
        new Date(clock.now().getTime() + 30_000).toISOString(),
      ),
    ),
  );
  t.equal(leader.filter(Boolean).length, 1, 'one node holds the job lease');
  const [gone, survivor] = leader[0] ? [a, b] : [b, a];
  await gone.close();
  t.equal((await api(survivor, 'POST', '/api/users', { pin: 21, first_name: 'After' })).res.status, 201);
  clock.advance(31_000);
  await waitFor(() => rx.received.length === 21, 20_000, 'the event after the leader stopped');
  t.equal(pinsOf()[20], 21, 'delivered by the other node');
});
