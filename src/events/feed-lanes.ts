/**
 * Delivery of the event feed: one lane per location, through which every event passes on its way to the
 * subscribers, whether this node appended it or the store's watch brought it from another node.
 *
 * Invariants:
 * - A lane passes events on strictly by seq, each once: `next` is the one seq it waits for, later seqs wait
 *   in `held`, and a seq below `next` or already held is dropped.
 * - A missing seq is looked for in the store after GAP_FETCH_MS and skipped after GAP_SKIP_MS (a node that
 *   died between taking a seq and writing the event leaves a hole forever). `gapSince` is set exactly while
 *   `held` is not empty.
 * - A subscriber gets the events of a location in increasing seq order, each at most once (`last`). While
 *   its replay runs, live events queue behind it; the replay stops at the lane's `next`, so it never passes
 *   a gap the lane is still waiting on.
 * - System events (SYSTEM_LOCATION) reach only the system handlers, and never the node that sent them.
 * - A consumer that throws is logged; delivery to the others goes on.
 */
import type { Logger } from '../log.js';
import type { StoredEvent } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { SYSTEM_LOCATION, type SystemEvent } from './system-events.js';
import type { AnyFeedEvent, FeedSubscription, SubscribeOptions } from './types.js';

const GAP_FETCH_MS = 200;
const GAP_SKIP_MS = 2_000;
/** Most events read from the store at once (gap fills, replays, catching up with other nodes). */
export const REPLAY_PAGE = 500;

export interface LaneDeps {
  readonly store: Store;
  readonly log: Logger;
  /** This node: its own system events are not handed back to it. */
  readonly node: string;
}

interface Subscriber {
  readonly locationId: number | null;
  readonly handler: (e: AnyFeedEvent) => void;
  /** Last seq handed to this subscriber, per location. */
  readonly last: Map<number, number>;
  /** Live events held back while a replay runs; null when live. */
  queue: StoredEvent[] | null;
  closed: boolean;
}

interface Lane {
  /** The next seq to pass on. */
  next: number;
  readonly held: Map<number, StoredEvent>;
  /** When the oldest missing seq was first noticed missing. */
  gapSince: number | null;
  timer: NodeJS.Timeout | null;
}

export class FeedLanes {
  readonly #deps: LaneDeps;
  readonly #lanes = new Map<number, Lane>();
  readonly #subs = new Set<Subscriber>();
  readonly #system = new Set<(e: SystemEvent) => void>();
  #stopped = false;

  constructor(deps: LaneDeps) {
    this.#deps = deps;
  }

  /** Where a location stands when the feed starts: `seq` and the events before it are not passed on again. */
  resumeAfter(locationId: number, seq: number): void {
    this.#lane(locationId).next = seq + 1;
  }

  /** Per lane, the last seq passed on; each is read when the iteration reaches it. */
  *delivered(): Generator<[locationId: number, seq: number]> {
    for (const [locationId, lane] of this.#lanes) yield [locationId, lane.next - 1];
  }

  subscribe(options: SubscribeOptions, handler: (event: AnyFeedEvent) => void): FeedSubscription {
    if (options.after !== undefined && options.locationId === null) throw new Error('feed: resuming needs a single location');
    const sub: Subscriber = { locationId: options.locationId, handler, last: new Map(), queue: null, closed: false };
    this.#subs.add(sub);
    if (options.after !== undefined && options.locationId !== null) void this.#replay(sub, options.locationId, options.after);
    return {
      close: () => {
        sub.closed = true;
        this.#subs.delete(sub);
      },
    };
  }

  onSystem(handler: (e: SystemEvent) => void): () => void {
    this.#system.add(handler);
    return () => this.#system.delete(handler);
  }

  /** Every event, from this node or another, passes here; it goes on only in seq order, once. */
  deliver(e: StoredEvent): void {
    const lane = this.#lane(e.location_id);
    if (e.seq < lane.next || lane.held.has(e.seq)) return;
    lane.held.set(e.seq, e);
    this.#drain(e.location_id, lane);
  }

  /** Calls a consumer; what it throws is logged and goes no further. */
  safely(f: () => void): void {
    try {
      f();
    } catch (err) {
      this.#deps.log.error({ err }, 'event feed: a consumer failed on an event');
    }
  }

  /** No gap is looked for from now on. */
  stop(): void {
    this.#stopped = true;
    for (const lane of this.#lanes.values()) if (lane.timer) clearTimeout(lane.timer);
  }

  #lane(locationId: number): Lane {
    let lane = this.#lanes.get(locationId);
    if (!lane) this.#lanes.set(locationId, (lane = { next: 1, held: new Map(), gapSince: null, timer: null }));
    return lane;
  }

  #drain(locationId: number, lane: Lane): void {
    for (let e = lane.held.get(lane.next); e; e = lane.held.get(lane.next)) {
      lane.held.delete(lane.next);
      lane.next++;
      this.#dispatch(e);
    }
    if (lane.held.size === 0) {
      lane.gapSince = null;
      if (lane.timer) clearTimeout(lane.timer);
      lane.timer = null;
      return;
    }
    lane.gapSince ??= Date.now();
    lane.timer ??= setTimeout(() => void this.#fillGap(locationId, lane), GAP_FETCH_MS);
  }

  /** The change stream may deliver seq 8 before 7 (two nodes, one location): look in the store, then give up on a hole. */
  async #fillGap(locationId: number, lane: Lane): Promise<void> {
    lane.timer = null;
    if (this.#stopped) return;
    try {
      for (const e of await this.#deps.store.cluster.eventsAfter(locationId, lane.next - 1, REPLAY_PAGE)) this.deliver(e);
    } catch (err) {
      this.#deps.log.warn({ err, location_id: locationId }, 'event feed: cannot read the store to fill a gap');
    }
    if (lane.held.size > 0 && lane.gapSince !== null && Date.now() - lane.gapSince >= GAP_SKIP_MS) {
      const resume = Math.min(...lane.held.keys());
      this.#deps.log.warn(
        { location_id: locationId, missing_from: lane.next, missing_to: resume - 1 },
        'event feed: sequence numbers never written (a node stopped mid-write): skipped',
      );
      lane.next = resume;
      lane.gapSince = null;
    }
    this.#drain(locationId, lane);
  }

  #dispatch(e: StoredEvent): void {
    if (e.location_id === SYSTEM_LOCATION) {
      if (e.node === this.#deps.node) return;
      for (const h of this.#system) this.safely(() => h({ type: e.type, data: e.data, node: e.node } as SystemEvent));
      return;
    }
    for (const sub of this.#subs) {
      if (sub.locationId !== null && sub.locationId !== e.location_id) continue;
      if (sub.queue) sub.queue.push(e);
      else this.#hand(sub, e);
    }
  }

  #hand(sub: Subscriber, e: StoredEvent): void {
    if (sub.closed || e.seq <= (sub.last.get(e.location_id) ?? 0)) return;
    sub.last.set(e.location_id, e.seq);
    this.safely(() => sub.handler(e as AnyFeedEvent));
  }

  /** Stored events after `after`, then live ones; the lane's cursor bounds the replay so nothing passes a gap. */
  async #replay(sub: Subscriber, locationId: number, after: number): Promise<void> {
    sub.queue = [];
    sub.last.set(locationId, after);
    try {
      for (;;) {
        const delivered = this.#lane(locationId).next - 1;
        const from = sub.last.get(locationId) ?? after;
        if (from >= delivered) break;
        const page = await this.#deps.store.cluster.eventsAfter(locationId, from, Math.min(REPLAY_PAGE, delivered - from));
        if (page.length === 0) break;
        for (const e of page) this.#hand(sub, e);
      }
    } catch (err) {
      this.#deps.log.warn({ err, location_id: locationId }, 'event feed: replay failed; the subscriber continues live');
    }
    const queued = sub.queue ?? [];
    sub.queue = null;
    for (const e of queued) this.#hand(sub, e);
  }
}
