// Group commit of the event feed (issue #20): facts emitted together are stored in one write, still
// numbered in the order they were emitted; a lone fact is not held back waiting for company.
import t from 'tap';
import { EventBus } from '../../src/events/bus.js';
import { ClusterFeed } from '../../src/events/feed.js';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { createLogger } from '../../src/log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { Store } from '../../src/store/types.js';

t.test('facts of one turn go to the store in one append, in emission order; the next turn appends on its own', async (t) => {
  const real = openSqliteStore(':memory:');
  t.teardown(() => real.close());
  const appends: number[] = [];
  // The real SQLite store, with its appends counted.
  const store: Store = {
    ...real,
    cluster: {
      ...real.cluster,
      appendEvents: async (events) => {
        appends.push(events.length);
        return real.cluster.appendEvents(events);
      },
    },
  };
  const location = await real.locations.create({ name: 'L', timezone: 'UTC' }, new Date().toISOString());
  const bus = new EventBus();
  const feed = new ClusterFeed({
    store,
    bus,
    log: createLogger({ level: 'silent' }),
    node: 'n1',
    now: () => new Date(),
    onlineThresholdS: 60,
  });
  await feed.start();
  t.teardown(() => feed.stop());
  const seen: AnyFeedEvent[] = [];
  feed.subscribe({ locationId: location.id }, (e) => seen.push(e));

  for (let pin = 1; pin <= 120; pin++) bus.emit('user.changed', { location_id: location.id, pins: [pin], change: 'upserted' });
  await feed.settled();
  t.same(appends, [120], 'one append for the 120 facts of one turn');
  t.same(
    seen.map((e) => e.seq),
    seen.map((_, i) => i + 1),
    'numbered 1…120',
  );
  t.same(
    seen.map((e) => (e.type === 'user.changed' ? e.data.pins[0] : 0)),
    seen.map((_, i) => i + 1),
    'in the order emitted',
  );

  bus.emit('user.changed', { location_id: location.id, pins: [121], change: 'deleted' });
  await feed.settled();
  t.same(appends, [120, 1], 'a later fact is appended by itself, without waiting for more');
  t.equal(seen.at(-1)?.seq, 121);
});
