// Issue #32 items 6 and 12: pruning keeps up with the insert rate in bounded batches, and the feed's pruning
// keeps what an enabled webhook subscription has not collected, up to BIOGATE_EVENTS_HOLD_MAX_S.
import t from 'tap';
import { createEventPrune } from '../../src/events/prune.js';
import { createLogger } from '../../src/log.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/types.js';
import { bearer, DAY_MS, fakeClock, fetchJson, logCapture, startApp } from '../helpers/app.js';
import { startReceiver } from './receiver.js';

const OPEN = { webhookAllowPrivate: 'on', webhookAllowHttp: 'on' } as const;

t.test('finished deliveries past their week are all pruned in one run, not 5,000 per 10 minutes', async (t) => {
  const clock = fakeClock();
  const app = await startApp(t, { clock, config: OPEN });
  const rx = await startReceiver(t);
  const created = await fetchJson(`${app.url}/api/webhooks`, {
    method: 'POST',
    headers: { ...bearer(app.token), 'content-type': 'application/json' },
    body: JSON.stringify({ url: rx.url, events: ['user.changed'] }),
  });
  const hook = (created.body as { id: number }).id;
  const store = app.app.store;
  const old = new Date(clock.now().getTime() - 8 * DAY_MS).toISOString();
  const N = 6_500;
  await store.webhooks.addDeliveries(
    Array.from({ length: N }, (_, i) => ({
      subscription_id: hook,
      location_id: app.locationId,
      event_id: `old-${i}`,
      event_seq: 0,
      type: 'ping',
      payload: '{}',
      created_at: old,
    })),
  );
  const total = async () =>
    ((await fetchJson(`${app.url}/api/webhooks/${hook}/deliveries?limit=1`, { headers: bearer(app.token) })).body as { total: number })
      .total;
  t.equal(await total(), N, 'seeded');
  for (
    let page = await store.webhooks.due(app.locationId, hook, old, 500);
    page.length > 0;
    page = await store.webhooks.due(app.locationId, hook, old, 500)
  )
    await store.webhooks.recordAttempts(
      app.locationId,
      page.map((d) => ({
        id: d.id,
        status: 'delivered' as const,
        attempts: 1,
        next_attempt_at: null,
        last_status_code: 204,
        last_error: null,
        duration_ms: 1,
        delivered_at: old,
      })),
    );
  clock.advance(61_000); // past the prune period, whatever the job's own runs did meanwhile
  await app.app.webhooks.runOnce();
  let left = await total();
  for (let i = 0; i < 400 && left > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    left = await total();
  }
  t.equal(left, 0, 'every finished delivery older than 7 days went (batches of 1,000 until none is due)');
});

t.test('events-prune keeps what an enabled subscription has not collected, up to the hard cap, and names it', async (t) => {
  const clock = fakeClock();
  const app = await startApp(t, { clock });
  await app.close(); // no delivery job: the subscription's cursor stays where this test puts it
  const store: Store = await openStore(app.storeUrl);
  t.teardown(() => store.close());
  const logs = logCapture();
  const log = createLogger({ level: 'info', destination: logs });
  const loc = app.locationId;
  const base = clock.now().getTime();
  // 300 events, one a minute, the first 5 hours ago.
  for (let i = 0; i < 300; i++) {
    await store.cluster.appendEvents([
      {
        id: `e-${i}`,
        location_id: loc,
        type: 'user.changed',
        at: new Date(base - 5 * 3_600_000 + i * 60_000).toISOString(),
        node: 'n',
        data: {},
      },
    ]);
  }
  const lagging = await store.webhooks.create(
    {
      location_id: loc,
      url: 'https://example.com/',
      events: ['user.changed'],
      description: null,
      secret: 's',
      attendance_batch: 1,
      cursor: 50,
    },
    clock.now().toISOString(),
  );
  const prune = (holdMaxS: number) => createEventPrune({ store, clock, log, retentionS: 3600, keep: 100, holdMaxS })();
  const seqs = async () => (await store.cluster.eventsAfter(loc, 0, 1000)).map((e) => e.seq);

  t.equal(await prune(24 * 3600), 50, 'only what the subscription collected (1..50) goes, though 1..200 are old enough');
  t.equal((await seqs())[0], 51);
  t.notOk(logs.text().includes('BIOGATE_EVENTS_HOLD_MAX_S'), 'no warning: nothing it needs was pruned');

  await store.webhooks.update(loc, lagging.id, { enabled: false }, clock.now().toISOString());
  t.equal(await prune(24 * 3600), 150, 'disabled: it holds nothing; 51..200 go (the newest 100 and the last hour stay)');
  await store.webhooks.update(loc, lagging.id, { enabled: true }, clock.now().toISOString());

  clock.advance(3 * 3_600_000);
  for (let i = 0; i < 200; i++) {
    await store.cluster.appendEvents([
      { id: `f-${i}`, location_id: loc, type: 'user.changed', at: clock.now().toISOString(), node: 'n', data: {} },
    ]);
  }
  t.equal(await prune(7_200), 100, 'past the hard cap (2 h) the held events go anyway: 201..300');
  const warning = logs.entries().find((e) => String(e['msg']).includes('BIOGATE_EVENTS_HOLD_MAX_S'));
  t.match(warning, { level: 'warn', webhook_id: lagging.id, location_id: loc, from_seq: 201 }, 'a warning names the subscription');
  t.equal((await seqs())[0], 301, 'the newest 100 and the last hour stay');
});
