// The event feed through a store outage (issue #14 with #12): an event emitted while MongoDB is
// unreachable is held back, in order, and delivered once the store answers again; none is lost.
import t from 'tap';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { startApp } from '../helpers/app.js';
import { startControlledMongo } from '../helpers/mongo-control.js';

t.test('events emitted during a store outage are stored and delivered, in order, when it ends', async (t) => {
  const mongo = await startControlledMongo(t);
  if (typeof mongo === 'string') return t.plan(0, mongo); // a visible skip: Java/Maven missing
  const app = await startApp(t, { storeUrl: `${mongo.server}/biogate_feed_outage` });
  const seen: AnyFeedEvent[] = [];
  app.app.feed.subscribe({ locationId: app.locationId }, (e) => seen.push(e));
  app.app.bus.emit('user.changed', { location_id: app.locationId, pins: [1], change: 'upserted' });
  await app.app.feed.settled();
  t.equal(seen.length, 1, 'delivered while the store is up');

  await mongo.stop();
  app.app.bus.emit('user.changed', { location_id: app.locationId, pins: [2], change: 'upserted' });
  app.app.bus.emit('user.changed', { location_id: app.locationId, pins: [3], change: 'deleted' });
  await new Promise((r) => setTimeout(r, 2_500));
  t.equal(seen.length, 1, 'nothing delivered while the store is down');
  await mongo.start();
  await app.app.feed.settled();
  t.same(
    seen.map((e) => (e.type === 'user.changed' ? e.data.pins[0] : 0)),
    [1, 2, 3],
    'both held-back events, in order',
  );
  t.same(
    seen.map((e) => e.seq),
    [1, 2, 3],
    'with the next sequence numbers',
  );
});
