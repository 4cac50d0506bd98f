/**
 * Following the other nodes: the store's watch (a MongoDB change stream with a replica set, SQLite's watch of
 * the shared file) hands what other processes append to the lanes.
 *
 * Invariants:
 * - `clustered` is true exactly while a watch is open. Each time it opens or is lost, and each time the
 *   store reports that another process wrote to it, the doubters are told (what this node keeps on the
 *   feed's word may be stale).
 * - When a watch opens, what other nodes wrote before it (or while it was down) is read from the store for
 *   every lane this node knows, so the lanes miss nothing in between.
 * - A lost watch is reopened WATCH_RETRY_MS later, until the feed stops. A MongoDB that offers no change
 *   streams (not a replica set) is not asked again: this node then sees only its own events.
 */
import type { Logger } from '../log.js';
import type { EventWatch } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { REPLAY_PAGE, type FeedLanes } from './feed-lanes.js';

const WATCH_RETRY_MS = 1_000;

export interface WatchDeps {
  readonly store: Store;
  readonly log: Logger;
  /** Where what the watch brings goes. */
  readonly lanes: FeedLanes;
}

export class FeedWatch {
  readonly #deps: WatchDeps;
  readonly #doubters = new Set<() => void>();
  #watch: EventWatch | undefined;
  #retry: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(deps: WatchDeps) {
    this.#deps = deps;
  }

  /** True while the store delivers what other processes append. */
  get clustered(): boolean {
    return this.#watch !== undefined;
  }

  /** What other processes appended is delivered now, where the store can tell at once. */
  catchUp(): void {
    this.#watch?.catchUp?.();
  }

  /** Called when `clustered` changes or another process wrote to the store. */
  onDoubt(listener: () => void): () => void {
    this.#doubters.add(listener);
    return () => this.#doubters.delete(listener);
  }

  async open(): Promise<void> {
    if (this.#stopped) return;
    const { store, log, lanes } = this.#deps;
    try {
      this.#watch = await store.cluster.watchEvents(
        (e) => lanes.deliver(e),
        (err) => void this.#failed(err),
        () => this.#doubt(),
      );
    } catch (err) {
      await this.#failed(err);
    }
    if (!this.#watch) return;
    // What other nodes wrote while the stream was down (or before it opened) comes from the store.
    for (const [locationId, delivered] of lanes.delivered()) {
      const missed = await store.cluster.eventsAfter(locationId, delivered, REPLAY_PAGE).catch(() => []);
      for (const e of missed) lanes.deliver(e);
    }
    this.#doubt();
    log.debug('event feed: following the other nodes through the change stream');
  }

  /** No reopening from now on; close() then ends the watch. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#retry);
  }

  async close(): Promise<void> {
    await this.#watch?.close().catch(() => undefined);
    this.#watch = undefined;
  }

  #doubt(): void {
    for (const l of this.#doubters) this.#deps.lanes.safely(l);
  }

  async #failed(err: unknown): Promise<void> {
    const w = this.#watch;
    this.#watch = undefined;
    if (w) this.#doubt();
    await w?.close().catch(() => undefined);
    if (this.#stopped) return;
    if (isNoChangeStreams(err)) {
      this.#deps.log.warn(
        'event feed: this MongoDB offers no change streams (not a replica set): this node sees only its own events; run a replica set for several nodes',
      );
      return;
    }
    this.#deps.log.warn({ err }, 'event feed: change stream lost; reopening');
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => void this.open(), WATCH_RETRY_MS);
  }
}

/** MongoDB's answer on a standalone server: 40573 "The $changeStream stage is only supported on replica sets". */
function isNoChangeStreams(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === 40573 || (typeof e?.message === 'string' && /only supported on replica sets/i.test(e.message));
}
