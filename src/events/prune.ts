/**
 * The `events-prune` job: the feed keeps events BIOGATE_EVENTS_RETENTION_S and the newest BIOGATE_EVENTS_KEEP
 * of each location, and also every event an enabled webhook subscription has not collected yet (behind the
 * oldest cursor of its location), but such held events at most BIOGATE_EVENTS_HOLD_MAX_S: past that they are
 * pruned anyway, with a warning naming each subscription that loses them. Deletes go in bounded batches
 * (EVENT_PRUNE_BATCH) with a turn of the event loop between them, until none is due.
 */
import { setImmediate as turn } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { EVENT_PRUNE_BATCH } from '../store/ports/index.js';
import type { Store } from '../store/types.js';

export interface EventPruneDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly retentionS: number;
  readonly keep: number;
  readonly holdMaxS: number;
}

/** One run of the job; resolves with how many events went. */
export function createEventPrune(deps: EventPruneDeps): () => Promise<number> {
  const { store, clock, log } = deps;
  return async () => {
    const now = clock.now().getTime();
    const before = new Date(now - deps.retentionS * 1000).toISOString();
    // Never earlier than the plain retention: a hold only ever keeps events longer.
    const hardBefore = new Date(Math.min(now - deps.holdMaxS * 1000, now - deps.retentionS * 1000)).toISOString();
    const subs = await store.webhooks.listEnabled();
    const holds = new Map<number, number>();
    for (const s of subs) holds.set(s.location_id, Math.min(holds.get(s.location_id) ?? Number.POSITIVE_INFINITY, s.cursor));
    if (subs.length > 0) {
      const latest = await store.cluster.latestSeqs();
      for (const s of subs) {
        const [next] = await store.cluster.eventsAfter(s.location_id, s.cursor, 1);
        if (!next || next.at >= hardBefore || next.seq > (latest.get(s.location_id) ?? 0) - deps.keep) continue;
        log.warn(
          { webhook_id: s.id, location_id: s.location_id, from_seq: next.seq, hold_max_s: deps.holdMaxS },
          'events pruned before a webhook subscription collected them (BIOGATE_EVENTS_HOLD_MAX_S)',
        );
      }
    }
    let deleted = 0;
    for (;;) {
      const n = await store.cluster.pruneEvents(before, deps.keep, { holds, hardBefore, limit: EVENT_PRUNE_BATCH });
      deleted += n;
      if (n < EVENT_PRUNE_BATCH) return deleted;
      await turn();
    }
  };
}
