// Reading a location's event feed as a consumer resuming from seq 0 does (the stream, webhooks, MQTT):
// what the feed stored, not what the bus carried.
import type { AnyFeedEvent } from '../../src/events/types.js';
import type { App } from '../../src/app.js';

/** Every stored event of the location, once what was emitted before the call is stored. */
export async function feedEvents(app: Pick<App, 'feed'>, locationId: number): Promise<AnyFeedEvent[]> {
  await app.feed.settled();
  const seen: AnyFeedEvent[] = [];
  const sub = app.feed.subscribe({ locationId, after: 0 }, (e) => seen.push(e));
  const last = await app.feed.latestSeq(locationId);
  for (let i = 0; i < 300 && (seen.at(-1)?.seq ?? 0) < last; i++) await new Promise((r) => setTimeout(r, 10));
  sub.close();
  return seen;
}
