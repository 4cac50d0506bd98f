/**
 * What a user write does beyond the store: the sync ops its outbox entry owes the devices and the
 * `user.changed` event it owes the feed, both from the outbox (src/sync/outbox.ts).
 */
import type { Clock } from '../clock.js';
import type { BusEvents, EventBus } from '../events/bus.js';
import { newMarker } from '../events/outbox.js';
import { createLogger, type Logger } from '../log.js';
import type { Store } from '../store/types.js';
import { createSyncOutbox, type SyncOutbox } from '../sync/outbox.js';
import type { SyncCounts, SyncQueue } from '../sync/queue.js';

export interface UsersDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly sync: SyncQueue;
  readonly bus: EventBus;
  /**
   * The sync outbox processor. Absent (the CLI import without a server), the outbox is drained in
   * the foreground before the import returns.
   */
  readonly outbox?: SyncOutbox;
  readonly log?: Logger;
  /** BIOGATE_QUOTA_USERS (default DEFAULT_QUOTAS.users): most users in one location. */
  readonly quotaUsers?: number;
}

const NOTHING: SyncCounts = { devices: 0, commands: 0 };

const silent: Logger = createLogger({ level: 'silent' });

/** The outbox processor of `deps`, or one for this call (the CLI without a server). */
export function outboxOf(deps: UsersDeps): SyncOutbox {
  return deps.outbox ?? createSyncOutbox({ store: deps.store, sync: deps.sync, clock: deps.clock, bus: deps.bus, log: deps.log ?? silent });
}

/**
 * The request's happy path of the outbox: queue what these users owe now (a retried write that
 * changed nothing still finishes an earlier write's sync). The write is committed with its outbox
 * entry either way, so a store failure here defers the ops to the recovery sweep instead of
 * failing a request whose change already happened.
 */
export async function flushOutbox(deps: UsersDeps, locationId: number, pins: readonly number[]): Promise<SyncCounts> {
  const outbox = outboxOf(deps);
  try {
    return await outbox.flush(locationId, pins);
  } catch (err) {
    deps.log?.error({ err, location: locationId, users: pins.length }, 'sync ops or user.changed deferred to the outbox sweep');
    return NOTHING;
  }
}

/** What the access-rule services (areas.ts, access.ts) need; `sync`, the part of the queue each uses. */
export interface RuleDeps<S> {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly sync: S;
  readonly log?: Logger | undefined;
}

type RuleEvent = 'area.changed' | 'schedule.changed' | 'access_level.changed';

/**
 * A rule's change on the feed, stored right after its write: the change is done, so a feed outage is logged,
 * not thrown (announced at most once; nothing on a terminal depends on it).
 */
export async function announceRule<K extends RuleEvent>(
  deps: Pick<RuleDeps<unknown>, 'bus' | 'log'>,
  name: K,
  payload: Omit<BusEvents[K], 'feed_event'>,
  id: number,
): Promise<void> {
  if (!(await deps.bus.emitStored(name, { ...payload, feed_event: newMarker() } as BusEvents[K])))
    deps.log?.warn({ location_id: payload.location_id, id, change: payload.change }, `${name} could not be stored in the feed`);
}
