/**
 * Producing for the event feed: facts emitted on this node become stored events, numbered per location in
 * the order they were emitted.
 *
 * Invariants:
 * - At most one pump runs per location. It appends the location's waiting facts one batch after the other,
 *   each batch what was emitted while the previous one was written (group commit, at most APPEND_BATCH
 *   events per store write), so the feed's order is the order of emission on this node.
 * - A pump starts after the current turn of the event loop, so facts emitted together leave together.
 * - While the store is unreachable (STORE_UNAVAILABLE), building or appending an event is retried every
 *   OUTAGE_RETRY_MS, OUTAGE_RETRIES times (a minute), holding the location's later facts back in order;
 *   then it is logged as lost and the pump goes on (an outbox fact's rows keep their marker: the
 *   sweep of ./outbox.ts stores it later).
 * - An outbox fact's event is appended under its outbox id, with its rows' markers cleared in the
 *   same store write; its id is `owed` from add() until that write ends, and add() gives its outcome:
 *   true once it is stored (or found stored before), false once given up (its owner keeps it owed).
 * - settled() resolves once what was emitted before it is stored and handed to `stored`.
 */
import { randomUUID } from 'node:crypto';
import { BioGateError } from '../errors.js';
import type { Logger } from '../log.js';
import type { OutboxSettle, StoredEvent } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import type { BusEventName } from './bus.js';
import type { FactOutbox } from './outbox.js';
import type { FeedDraft } from './views.js';

const OUTAGE_RETRY_MS = 1_000;
const OUTAGE_RETRIES = 60;
/** Most events in one store write. */
const APPEND_BATCH = 500;

/** A fact emitted on the bus; its draft (the public view) is built when its turn to be stored comes. */
export interface FeedFact {
  readonly name: BusEventName;
  readonly draft: () => Promise<FeedDraft | undefined>;
  /** Set when the fact's rows were written with an outbox marker. */
  readonly outbox?: FactOutbox;
}

export interface AppenderDeps {
  readonly store: Store;
  readonly log: Logger;
  /** This node, recorded on every event it appends. */
  readonly node: string;
  /** Takes each event once stored, with its seq; null when nothing is delivered in this process (the CLI). */
  readonly stored: ((e: StoredEvent) => void) | null;
}

export class FeedAppender {
  readonly #deps: AppenderDeps;
  /** Per location: the pump running now. */
  readonly #chains = new Map<number, Promise<void>>();
  /** Per location: facts emitted and not yet handed to an append, in emission order. */
  readonly #waiting = new Map<number, FeedFact[]>();
  /** Outbox event ids added and not yet through their append, with their outcome. */
  readonly #owed = new Map<string, { readonly outcome: Promise<boolean>; readonly settle: (stored: boolean) => void }>();
  #stopped = false;

  constructor(deps: AppenderDeps) {
    this.#deps = deps;
  }

  /**
   * Queues a fact of a location; ignored once stopped. For an outbox fact, resolves whether its event
   * was stored (never rejects).
   */
  add(locationId: number, fact: FeedFact): Promise<boolean> | undefined {
    if (this.#stopped) return fact.outbox ? Promise.resolve(false) : undefined;
    let outcome: Promise<boolean> | undefined;
    if (fact.outbox) {
      const owed = this.#owed.get(fact.outbox.eventId);
      if (owed) return owed.outcome; // the sweep offering what the live path is storing
      let settle: (stored: boolean) => void = () => {};
      outcome = new Promise<boolean>((resolve) => (settle = resolve));
      this.#owed.set(fact.outbox.eventId, { outcome, settle });
    }
    const waiting = this.#waiting.get(locationId);
    if (waiting) {
      waiting.push(fact);
      return outcome;
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
    return outcome;
  }

  /** Stores events at once, without waiting for a pump (node-to-node signals), and hands them on. */
  async append(events: readonly Omit<StoredEvent, 'seq'>[], settle: readonly OutboxSettle[] = []): Promise<void> {
    const stored = await this.#deps.store.cluster.appendEvents(events, settle);
    const deliver = this.#deps.stored;
    if (!deliver) return;
    for (const e of stored) deliver(e);
  }

  /** True while the outbox event of this id is queued or being appended here. */
  owes(eventId: string): boolean {
    return this.#owed.has(eventId);
  }

  /** Whatever was added before this resolves is stored and handed on. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#chains.values()]);
  }

  /** Nothing new is taken and outages are no longer waited out; settled() then waits for the pumps. */
  stop(): void {
    this.#stopped = true;
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
      const settle: OutboxSettle[] = [];
      /** Outbox ids whose event goes in this append (a fact whose draft failed stays owed). */
      const drafted = new Set<string>();
      for (const fact of batch) {
        try {
          const draft = await this.#outlasting(fact.draft);
          if (fact.outbox?.settle) settle.push(fact.outbox.settle);
          if (fact.outbox) drafted.add(fact.outbox.eventId);
          if (draft)
            drafts.push({
              id: fact.outbox?.eventId ?? randomUUID(),
              location_id: draft.location_id,
              type: draft.type,
              at: draft.at,
              node: this.#deps.node,
              data: draft.data,
            });
        } catch (err) {
          this.#deps.log.error(
            { err, event: fact.name, location_id: locationId, outbox: fact.outbox !== undefined },
            fact.outbox
              ? 'event feed: an event could not be stored now; the outbox sweep stores it later'
              : 'event feed: an event could not be stored; consumers miss it',
          );
        }
      }
      let stored = false;
      try {
        if (drafts.length > 0 || settle.length > 0) await this.#outlasting(() => this.append(drafts, settle));
        stored = true;
      } catch (err) {
        this.#deps.log.error(
          { err, events: drafts.length, location_id: locationId, outbox: settle.length },
          settle.length > 0
            ? 'event feed: events could not be stored now; consumers miss those not in the outbox, the outbox sweep stores the others later'
            : 'event feed: events could not be stored; consumers miss them',
        );
      } finally {
        for (const fact of batch) {
          if (!fact.outbox) continue;
          this.#owed.get(fact.outbox.eventId)?.settle(stored && drafted.has(fact.outbox.eventId));
          this.#owed.delete(fact.outbox.eventId);
        }
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
}

const isUnavailable = (err: unknown): boolean => err instanceof BioGateError && err.code === 'STORE_UNAVAILABLE';
