/**
 * The event feed (see ./types.ts for the contract, DESIGN.md "Events"). On each node:
 *
 *   bus event ─► draft (public view) ─► store.cluster.appendEvents (seqs) ─► deliver ─► subscribers
 *                                                     │
 *              other nodes ◄── change stream ◄────────┘   (MongoDB with a replica set)
 *
 * ClusterFeed wires three parts, each with its invariants stated at its top:
 * - ./feed-appender.ts: drafts of one location are appended one batch after the other (group commit), so
 *   the feed's order is the order the facts were emitted on this node; a store outage holds them back.
 * - ./feed-lanes.ts: delivery goes through a reorder buffer per location: events (from this node or, through
 *   the change stream, from others) pass on strictly by seq; a hole is fetched, then skipped.
 * - ./feed-watch.ts: the store's watch brings what other nodes append, and says when it cannot.
 *
 * ./outbox.ts: attendance, door events and command transitions (results a terminal posted, and what
 * follows from them) are written with an outbox marker; what a crash or a long outage kept from the
 * feed is swept into it at start and every SWEEP_EVERY_MS.
 *
 * System events (location 0, ./system-events.ts) carry signals between nodes, such as "this node now
 * serves device X"; they never reach public subscribers.
 */
import { randomUUID } from 'node:crypto';
import type { BusEventName, BusEvents, EventBus } from './bus.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { Location } from '../store/ports/index.js';
import { FeedAppender } from './feed-appender.js';
import { FeedLanes } from './feed-lanes.js';
import { FeedWatch } from './feed-watch.js';
import { outboxOf, owedEvents, SWEEP_AGE_MS, SWEEP_EVERY_MS } from './outbox.js';
import { OwedWait } from './owed-wait.js';
import { SYSTEM_LOCATION, type SystemEvent, type SystemEvents } from './system-events.js';
import { draftOf, type ViewContext } from './views.js';
import { FEED_EVENT_TYPES, type AnyFeedEvent, type EventFeed, type FeedSubscription, type SubscribeOptions } from './types.js';

export { SYSTEM_LOCATION } from './system-events.js';
export type { SystemEvents } from './system-events.js';

const LOCATION_CACHE_MS = 10_000;

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

export class ClusterFeed implements EventFeed {
  readonly #deps: FeedDeps;
  readonly #lanes: FeedLanes;
  readonly #watch: FeedWatch;
  readonly #appender: FeedAppender;
  readonly #owedWait: OwedWait;
  readonly #locations = new Map<number, { at: number; value: Promise<Location | null> }>();
  readonly #ctx: ViewContext;
  #unsubscribe: (() => void)[] = [];
  #sweeping: Promise<number> | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;

  /**
   * True while the store delivers what other processes append (a MongoDB change stream, SQLite's
   * watch of the shared file): then every change anyone announces reaches this node, and what it
   * keeps in memory on the feed's word needs no periodic look at the store.
   */
  get clustered(): boolean {
    return this.#watch.clustered;
  }

  constructor(deps: FeedDeps) {
    this.#deps = deps;
    const { store, log, node } = deps;
    this.#lanes = new FeedLanes({ store, log, node });
    this.#watch = new FeedWatch({ store, log, lanes: this.#lanes });
    this.#appender = new FeedAppender({ store, log, node, stored: deps.follow === false ? null : (e) => this.#lanes.deliver(e) });
    this.#owedWait = new OwedWait(store);
    this.#ctx = { store, onlineThresholdS: deps.onlineThresholdS, now: deps.now, location: (id) => this.#location(id) };
  }

  /** Loads where every location stands, subscribes to the bus and (MongoDB) to the other nodes. */
  async start(): Promise<void> {
    if (this.#deps.follow === false) {
      for (const name of FEED_EVENT_TYPES) this.#unsubscribe.push(this.#deps.bus.on(name, (payload) => this.#publish(name, payload)));
      return;
    }
    await this.#watch.open();
    for (const [locationId, seq] of await this.#deps.store.cluster.latestSeqs()) this.#lanes.resumeAfter(locationId, seq);
    for (const name of FEED_EVENT_TYPES) {
      this.#unsubscribe.push(this.#deps.bus.on(name, (payload) => this.#publish(name, payload)));
    }
    this.#unsubscribe.push(this.#deps.bus.on('command.owed', (payload) => this.#owed(payload)));
    // Owed at start: whatever a crash or an outage kept from the feed; later, what an outage past the
    // appender's minute left (only markers old enough that no node's appender still holds them).
    void this.sweep();
    this.#sweepTimer = setInterval(
      () => void this.sweep(new Date(this.#deps.now().getTime() - SWEEP_AGE_MS).toISOString()),
      SWEEP_EVERY_MS,
    );
    this.#sweepTimer.unref();
  }

  /**
   * Hands the appender every event the outbox says is owed (rows written before `before`; all when
   * undefined), and resolves with how many once they are stored or given up. One sweep at a time.
   */
  sweep(before?: string): Promise<number> {
    this.#sweeping ??= this.#sweepRounds(before)
      .catch((err: unknown) => {
        this.#deps.log.warn({ err }, 'event feed: the outbox sweep failed; it runs again later');
        return 0;
      })
      .finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  async #sweepRounds(before: string | undefined): Promise<number> {
    let total = 0;
    // An event offered once and still owed (its append failed) waits for the next sweep.
    const offered = new Set<string>();
    for (;;) {
      const owed = (await owedEvents(this.#deps.store, before)).flatMap((o) => {
        const outbox = outboxOf(o.name, o.payload);
        return outbox === undefined || offered.has(outbox.eventId) || this.#appender.owes(outbox.eventId)
          ? []
          : [{ ...o, id: outbox.eventId }];
      });
      if (owed.length === 0) break;
      for (const o of owed) {
        offered.add(o.id);
        void this.#publish(o.name, o.payload);
      }
      await this.#appender.settled();
      total += owed.length;
    }
    if (total > 0) this.#deps.log.warn({ events: total }, 'event feed: events owed by the outbox stored');
    return total;
  }

  async stop(): Promise<void> {
    clearInterval(this.#sweepTimer);
    this.#appender.stop();
    this.#watch.stop();
    this.#lanes.stop();
    for (const off of this.#unsubscribe.splice(0)) off();
    await this.#sweeping;
    await this.#appender.settled();
    await this.#watch.close();
  }

  subscribe(options: SubscribeOptions, handler: (event: AnyFeedEvent) => void): FeedSubscription {
    return this.#lanes.subscribe(options, handler);
  }

  /**
   * What other processes appended is delivered now, where the store can tell at once (SQLite: one
   * read of the shared file's change counter). A caller about to trust what the feed vouches for
   * (the API's kept credentials) asks first, so a change the CLI made just before is never missed.
   */
  catchUp(): void {
    this.#watch.catchUp();
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
    return this.#watch.onDoubt(listener);
  }

  /** Node-to-node signals (location 0); never shown to public subscribers. */
  onSystem(handler: (e: SystemEvent) => void): () => void {
    return this.#lanes.onSystem(handler);
  }

  async signal<K extends keyof SystemEvents>(type: K, data: SystemEvents[K]): Promise<void> {
    await this.#appender.append([
      { id: randomUUID(), location_id: SYSTEM_LOCATION, type, at: this.#deps.now().toISOString(), node: this.#deps.node, data },
    ]);
  }

  /** Whatever was emitted before this resolves is in the store and delivered (tests, shutdown). */
  async settled(): Promise<void> {
    await this.#sweeping;
    await this.#appender.settled();
  }

  /** For an outbox event, whether it was stored (EventBus.emitStored waits for it). */
  #publish<K extends BusEventName>(name: K, payload: BusEvents[K]): Promise<boolean> | undefined {
    const locationId = (payload as { location_id: number | null }).location_id;
    if (locationId === null) return undefined;
    const outbox = outboxOf(name, payload);
    return this.#appender.add(locationId, { name, draft: () => draftOf(this.#ctx, name, payload), ...(outbox ? { outbox } : {}) });
  }

  /**
   * A command event owed by another writer, offered before what follows it. Queued here already: the
   * location's pump stores it before anything added after it (true at once). Otherwise its writer's
   * append is given a moment to land (./owed-wait.ts); still owed then, it is stored from here, under
   * the id its writer and the sweep give it (stored once, whoever comes first).
   */
  async #owed(payload: BusEvents['command.owed']): Promise<boolean> {
    const outbox = outboxOf('command.updated', payload);
    if (outbox === undefined || this.#appender.owes(outbox.eventId)) return true;
    if (await this.#owedWait.cleared(payload.command.id, payload.feed_event)) return true;
    return (await this.#publish('command.updated', payload)) ?? true;
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
