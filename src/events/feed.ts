/**
 * The event feed (see ./types.ts for the contract, DESIGN.md "Events"). On each node:
 *
 *   bus event ─► draft (public view) ─► store.cluster.appendEvents (seqs) ─► deliver ─► subscribers
 *                                                     │
 *              other nodes ◄── change stream ◄────────┘   (MongoDB with a replica set)
 *
 * Drafts of one location are appended one batch after the other (one pump per location, each batch
 * what was emitted while the previous one was written), so the feed's order is the order the facts
 * were emitted on this node. Delivery goes through a reorder
 * buffer per location: events (from this node or, through the change stream, from others) pass on
 * strictly by seq. A missing seq is fetched from the store after GAP_FETCH_MS, and skipped after
 * GAP_SKIP_MS (a node that died between taking a seq and writing the event leaves a hole forever).
 *
 * System events (location 0) carry signals between nodes, such as "this node now serves device X";
 * they never reach public subscribers.
 */
import { randomUUID } from 'node:crypto';
import type { BusEventName, BusEvents, EventBus } from './bus.js';
import { BioGateError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { EventWatch, Location, StoredEvent } from '../store/ports/index.js';
import { draftOf, type FeedDraft, type ViewContext } from './views.js';
import { FEED_EVENT_TYPES, type AnyFeedEvent, type EventFeed, type FeedSubscription, type SubscribeOptions } from './types.js';

const GAP_FETCH_MS = 200;
const GAP_SKIP_MS = 2_000;
const REPLAY_PAGE = 500;
const WATCH_RETRY_MS = 1_000;
const LOCATION_CACHE_MS = 10_000;
/** While the store is unreachable an event is retried this often, this many times (a minute), then logged as lost. */
const OUTAGE_RETRY_MS = 1_000;
const OUTAGE_RETRIES = 60;
/** Most events in one store write. */
const APPEND_BATCH = 500;
export const SYSTEM_LOCATION = 0;

export interface SystemEvents {
  /** A node took over a device another node served: that node releases its held polls. */
  'device.claimed': { sn: string; owner: string; previous: string };
  /** A node gave up a leadership (src/events/leader.ts): another takes it now. */
  'leader.released': { name: string };
  /** A location was updated (disabled, time zone, comm key rule) on a node or by the CLI: snapshots of it go. */
  'location.changed': { id: number };
  /** A token was revoked on a node or by the CLI: no node accepts it from now on. */
  'token.revoked': { id: number };
}
type SystemEvent = { [K in keyof SystemEvents]: { type: K; data: SystemEvents[K]; node: string } }[keyof SystemEvents];

export interface FeedDeps {
  readonly store: Store;
  readonly bus: EventBus;
  readonly log: Logger;
  readonly node: string;
  readonly now: () => Date;
  readonly onlineThresholdS: number;
  /**
   * false: this process only adds to the feed (the CLI): its events are stored for the gateways and
   * their consumers, nothing is followed or delivered here. Default true.
   */
  readonly follow?: boolean;
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

export class ClusterFeed implements EventFeed {
  readonly #deps: FeedDeps;
  readonly #subs = new Set<Subscriber>();
  readonly #system = new Set<(e: SystemEvent) => void>();
  readonly #lanes = new Map<number, Lane>();
  /** Per location: the append running now (settled() and stop() wait for them). */
  readonly #chains = new Map<number, Promise<void>>();
  /** Per location: facts emitted and not yet handed to an append, in emission order. */
  readonly #waiting = new Map<number, { name: BusEventName; draft: () => Promise<FeedDraft | undefined> }[]>();
  readonly #locations = new Map<number, { at: number; value: Promise<Location | null> }>();
  readonly #ctx: ViewContext;
  #unsubscribe: (() => void)[] = [];
  #watch: EventWatch | undefined;
  #watchTimer: NodeJS.Timeout | undefined;
  #stopped = false;
  /**
   * True while the store delivers what other processes append (a MongoDB change stream, SQLite's
   * watch of the shared file): then every change anyone announces reaches this node, and what it
   * keeps in memory on the feed's word needs no periodic look at the store.
   */
  get clustered(): boolean {
    return this.#watch !== undefined;
  }
  readonly #doubters = new Set<() => void>();

  constructor(deps: FeedDeps) {
    this.#deps = deps;
    this.#ctx = { store: deps.store, onlineThresholdS: deps.onlineThresholdS, now: deps.now, location: (id) => this.#location(id) };
  }

  /** Loads where every location stands, subscribes to the bus and (MongoDB) to the other nodes. */
  async start(): Promise<void> {
    if (this.#deps.follow === false) {
      for (const name of FEED_EVENT_TYPES) this.#unsubscribe.push(this.#deps.bus.on(name, (payload) => this.#publish(name, payload)));
      return;
    }
    await this.#openWatch();
    for (const [locationId, seq] of await this.#deps.store.cluster.latestSeqs()) this.#lane(locationId).next = seq + 1;
    for (const name of FEED_EVENT_TYPES) {
      this.#unsubscribe.push(this.#deps.bus.on(name, (payload) => this.#publish(name, payload)));
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const off of this.#unsubscribe.splice(0)) off();
    clearTimeout(this.#watchTimer);
    for (const lane of this.#lanes.values()) if (lane.timer) clearTimeout(lane.timer);
    await Promise.allSettled([...this.#chains.values()]);
    await this.#watch?.close().catch(() => undefined);
    this.#watch = undefined;
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

  /**
   * What other processes appended is delivered now, where the store can tell at once (SQLite: one
   * read of the shared file's change counter). A caller about to trust what the feed vouches for
   * (the API's kept credentials) asks first, so a change the CLI made just before is never missed.
   */
  catchUp(): void {
    this.#watch?.catchUp?.();
  }

  async latestSeq(locationId: number): Promise<number> {
    return (await this.#deps.store.cluster.latestSeqs()).get(locationId) ?? 0;
  }

  /**
   * Called when what this node keeps on the feed's word may be stale: `clustered` changed (the
   * store stopped telling it what others append, or tells again after a gap), or another process
   * wrote to the store (SQLite), announced or not.
   */
  onDoubt(listener: () => void): () => void {
    this.#doubters.add(listener);
    return () => this.#doubters.delete(listener);
  }

  #doubt(): void {
    for (const l of this.#doubters) this.#safely(l);
  }

  /** Node-to-node signals (location 0); never shown to public subscribers. */
  onSystem(handler: (e: SystemEvent) => void): () => void {
    this.#system.add(handler);
    return () => this.#system.delete(handler);
  }

  async signal<K extends keyof SystemEvents>(type: K, data: SystemEvents[K]): Promise<void> {
    await this.#append([
      { id: randomUUID(), location_id: SYSTEM_LOCATION, type, at: this.#deps.now().toISOString(), node: this.#deps.node, data },
    ]);
  }

  /** Whatever was emitted before this resolves is in the store and delivered (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#chains.values()]);
  }

  // ------------------------------------------------------------------ producing

  #publish<K extends BusEventName>(name: K, payload: BusEvents[K]): void {
    const locationId = (payload as { location_id: number | null }).location_id;
    if (locationId === null || this.#stopped) return;
    const fact = { name, draft: () => draftOf(this.#ctx, name, payload) };
    const waiting = this.#waiting.get(locationId);
    if (waiting) {
      waiting.push(fact);
      return;
    }
    this.#waiting.set(locationId, [fact]);
    // Started after the current turn of the event loop, so facts emitted together (a reply's 50
    // results, handled in one turn on SQLite) leave together.
    const chain: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#pump(locationId))
      .catch((err: unknown) =>
        this.#deps.log.error({ err, location_id: locationId }, 'event feed: appending failed; consumers miss events'),
      )
      .finally(() => {
        // A fact emitted after this pump found its queue empty started the next one: leave that one be.
        if (this.#chains.get(locationId) === chain) this.#chains.delete(locationId);
      });
    this.#chains.set(locationId, chain);
  }

  /**
   * Appends a location's waiting facts until none is left: everything that arrived while the last
   * append ran goes in the next one, as one store write (group commit). One event at a time when
   * quiet; hundreds per write when a fan-out makes thousands per second (one transaction
   * per event would cost some 40 % of a 10,000-user fan-out's CPU).
   */
  async #pump(locationId: number): Promise<void> {
    for (;;) {
      const waiting = this.#waiting.get(locationId) ?? [];
      const batch = waiting.splice(0, APPEND_BATCH);
      if (batch.length === 0) {
        this.#waiting.delete(locationId);
        return;
      }
      const drafts: Omit<StoredEvent, 'seq'>[] = [];
      for (const fact of batch) {
        try {
          const draft = await this.#outlasting(fact.draft);
          if (draft)
            drafts.push({
              id: randomUUID(),
              location_id: draft.location_id,
              type: draft.type,
              at: draft.at,
              node: this.#deps.node,
              data: draft.data,
            });
        } catch (err) {
          this.#deps.log.error(
            { err, event: fact.name, location_id: locationId },
            'event feed: an event could not be stored; consumers miss it',
          );
        }
      }
      if (drafts.length === 0) continue;
      try {
        await this.#outlasting(() => this.#append(drafts));
      } catch (err) {
        this.#deps.log.error(
          { err, events: drafts.length, location_id: locationId },
          'event feed: events could not be stored; consumers miss them',
        );
      }
    }
  }

  /** A store outage holds a location's events back (in order) rather than losing them: retried for a minute. */
  async #outlasting<T>(f: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await f();
      } catch (err) {
        if (!isUnavailable(err) || attempt >= OUTAGE_RETRIES || this.#stopped) throw err;
        await new Promise((r) => setTimeout(r, OUTAGE_RETRY_MS).unref());
      }
    }
  }

  async #append(events: readonly Omit<StoredEvent, 'seq'>[]): Promise<void> {
    const stored = await this.#deps.store.cluster.appendEvents(events);
    if (this.#deps.follow === false) return;
    for (const e of stored) this.#deliver(e);
  }

  // ------------------------------------------------------------------ delivering

  #lane(locationId: number): Lane {
    let lane = this.#lanes.get(locationId);
    if (!lane) this.#lanes.set(locationId, (lane = { next: 1, held: new Map(), gapSince: null, timer: null }));
    return lane;
  }

  /** Every event, from this node or another, passes here; it goes on only in seq order, once. */
  #deliver(e: StoredEvent): void {
    const lane = this.#lane(e.location_id);
    if (e.seq < lane.next || lane.held.has(e.seq)) return;
    lane.held.set(e.seq, e);
    this.#drain(e.location_id, lane);
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
      for (const e of await this.#deps.store.cluster.eventsAfter(locationId, lane.next - 1, REPLAY_PAGE)) this.#deliver(e);
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
      for (const h of this.#system) this.#safely(() => h({ type: e.type, data: e.data, node: e.node } as SystemEvent));
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
    this.#safely(() => sub.handler(e as AnyFeedEvent));
  }

  #safely(f: () => void): void {
    try {
      f();
    } catch (err) {
      this.#deps.log.error({ err }, 'event feed: a consumer failed on an event');
    }
  }

  /** Stored events after `after`, then live ones; the node's own cursor bounds the replay so nothing passes a gap. */
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

  // ------------------------------------------------------------------ other nodes

  async #openWatch(): Promise<void> {
    if (this.#stopped) return;
    const { store, log } = this.#deps;
    try {
      this.#watch = await store.cluster.watchEvents(
        (e) => this.#deliver(e),
        (err) => void this.#watchFailed(err),
        () => this.#doubt(),
      );
    } catch (err) {
      await this.#watchFailed(err);
    }
    if (!this.#watch) return;
    // What other nodes wrote while the stream was down (or before it opened) comes from the store.
    for (const [locationId, lane] of this.#lanes) {
      const missed = await store.cluster.eventsAfter(locationId, lane.next - 1, REPLAY_PAGE).catch(() => []);
      for (const e of missed) this.#deliver(e);
    }
    this.#doubt();
    log.debug('event feed: following the other nodes through the change stream');
  }

  async #watchFailed(err: unknown): Promise<void> {
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
    clearTimeout(this.#watchTimer);
    this.#watchTimer = setTimeout(() => void this.#openWatch(), WATCH_RETRY_MS);
  }

  #location(id: number): Promise<Location | null> {
    const now = Date.now();
    const hit = this.#locations.get(id);
    if (hit && now - hit.at < LOCATION_CACHE_MS) return hit.value;
    const value = this.#deps.store.locations.get(id).then((l) => l ?? null);
    this.#locations.set(id, { at: now, value });
    value.catch(() => this.#locations.delete(id));
    return value;
  }
}

const isUnavailable = (err: unknown): boolean => err instanceof BioGateError && err.code === 'STORE_UNAVAILABLE';

/** MongoDB's answer on a standalone server: 40573 "The $changeStream stage is only supported on replica sets". */
function isNoChangeStreams(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === 40573 || (typeof e?.message === 'string' && /only supported on replica sets/i.test(e.message));
}
