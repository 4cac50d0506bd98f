/**
 * The sync outbox processor [DESIGN "Sync"]: a user write commits its outbox entry with the change
 * (store ports, see OutboxEntry); this turns entries into per-device sync ops for the user's
 * CURRENT state (active → user.upsert, inactive or gone → user.delete) and removes them.
 *
 * - In the request (`flush`): the happy path, so a single write is synced before it answers.
 * - In the background (`kick`): bulk writes (an import's fan-out of up to 180,000 ops) in bounded
 *   chunks that yield to the event loop between them; the request does not wait.
 * - As recovery (`start`): every entry at start-up, then periodically those older than a grace
 *   period (a crash between a write and its ops, another node that died mid-fan-out).
 *
 * Processing is idempotent (ops coalesce per device and user, and render from the user's data at
 * dispatch time), so two nodes or a request and a sweep may process the same entry. The entries
 * also owe the `user.changed` event of their users' state: an entry is removed only once that event
 * is stored in the feed, so it is announced at least once (twice when two processors meet, or when
 * a crash falls between the event and the removal; on MongoDB an entry whose write never happened
 * announces the unchanged state). An entry marked
 * again while it was processed (a newer write) is not removed; its users are queued once more from
 * their now current state, so a slow processor cannot leave a stale op behind a newer one.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { BioGateError } from '../errors.js';
import type { EventBus } from '../events/bus.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import { holdsUser, type Device, type OutboxEntry } from '../store/ports/index.js';
import type { SyncCounts, SyncQueue } from './queue.js';

/** Sync ops queued per chunk before yielding to the event loop. */
export const OUTBOX_CHUNK_OPS = 500;
/** Users announced in one user.changed event (per change) by a background drain. */
const ANNOUNCE_PINS = 1_000;
/** Entries read from the store per round. */
const ROUND = 1_000;
/** The periodic sweep leaves younger entries to the request that wrote them. */
export const OUTBOX_GRACE_MS = 10_000;
const SWEEP_EVERY_MS = 15_000;
const ALL = new Date('9999-12-31T23:59:59.999Z');

export interface SyncOutbox {
  /** Queues what the outbox owes for these pins now; store errors propagate (the entries stay). */
  flush(locationId: number, pins: readonly number[]): Promise<SyncCounts>;
  /** Drains entries marked at or before `before` (default: all) in the background. */
  kick(before?: Date): void;
  /** Drains in the foreground (the CLI, tests); returns how many entries it processed. */
  drain(before?: Date): Promise<number>;
  /** The start-up recovery drain, then a periodic sweep (unref'd timer). */
  start(): void;
  /** Stops the timer and waits for a running drain. */
  stop(): Promise<void>;
  /** Resolves when no background drain runs and every request's events are stored (or given up). */
  idle(): Promise<void>;
}

/** Of the PINs processed, the users' state now (the `change` of their user.changed). */
interface UserStates {
  readonly upserted: readonly number[];
  readonly deactivated: readonly number[];
  readonly deleted: readonly number[];
}

const NONE: SyncCounts = { devices: 0, commands: 0 };
/** Per PIN, the areas its user left (OutboxEntry.areas). */
type Left = ReadonlyMap<number, readonly number[]>;
const NO_LEFT: Left = new Map();
const leftOf = (entries: readonly OutboxEntry[]): Left => new Map(entries.flatMap((e) => (e.areas ? [[e.pin, e.areas] as const] : [])));
/** Reads after queueing (queueCurrent): each a store read of the PINs whose op kind changed under the previous one. */
const REREAD_ROUNDS = 3;

/** The users' state after a change: active, inactive, gone. */
function stateOf(pins: readonly number[], users: readonly { pin: number; is_active: boolean }[]): UserStates {
  const active = new Set(users.filter((u) => u.is_active).map((u) => u.pin));
  const inactive = new Set(users.filter((u) => !u.is_active).map((u) => u.pin));
  return {
    upserted: pins.filter((p) => active.has(p)),
    deactivated: pins.filter((p) => inactive.has(p)),
    deleted: pins.filter((p) => !active.has(p) && !inactive.has(p)),
  };
}

/** The op kind each PIN's state asks for: an upsert for an active user, else a delete. */
const kinds = (state: UserStates): Map<number, 'upsert' | 'delete'> =>
  new Map([
    ...state.upserted.map((p) => [p, 'upsert'] as const),
    ...state.deactivated.map((p) => [p, 'delete'] as const),
    ...state.deleted.map((p) => [p, 'delete'] as const),
  ]);

export function createSyncOutbox(deps: { store: Store; sync: SyncQueue; clock: Clock; bus: EventBus; log: Logger }): SyncOutbox {
  const { store, sync, clock, bus, log } = deps;
  let running: Promise<void> | undefined;
  let next: Date | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** Set by stop(): a background drain ends after its current chunk (the rest stays in the outbox). */
  let stopping = false;
  /** Requests' chunks whose events are being stored before their entries go. */
  const settling = new Set<Promise<void>>();

  /**
   * The ops for the users' current state, and that state: active, inactive, gone.
   *
   * Another write may change these users while this queues from what it read (on MongoDB a write marks
   * its entries before it changes the users, so a read in between sees the old state) and queue its own
   * ops first: this op, written last, would then replace that write's newer one. So the users are read
   * again once the ops are written, and the PINs whose op changed kind (upsert, delete) are queued once
   * more: a change that shows only after that read queues its own ops after these.
   */
  async function queueCurrent(
    locationId: number,
    pins: readonly number[],
    left: Left = NO_LEFT,
  ): Promise<{ counts: SyncCounts; state: UserStates }> {
    const first = await queueState(locationId, pins, left);
    let { counts } = first;
    let state = first.state;
    for (let round = 0, stale = pins; round < REREAD_ROUNDS && stale.length > 0; round++) {
      const was = kinds(state);
      const now = kinds(stateOf(stale, await store.users.getMany(locationId, stale)));
      stale = stale.filter((p) => was.get(p) !== now.get(p));
      if (stale.length === 0) break;
      const again = await queueState(locationId, stale, left);
      counts = { devices: Math.max(counts.devices, again.counts.devices), commands: counts.commands + again.counts.commands };
      const moved = new Set(stale);
      const keep = (list: readonly number[]) => list.filter((p) => !moved.has(p));
      state = {
        upserted: [...keep(state.upserted), ...again.state.upserted],
        deactivated: [...keep(state.deactivated), ...again.state.deactivated],
        deleted: [...keep(state.deleted), ...again.state.deleted],
      };
    }
    return { counts, state };
  }

  /**
   * Revocations (gone or inactive users) go to every terminal of the location; an active user's upsert
   * to the terminals that hold it (without an area, or of one of its areas), and its delete to the
   * terminals of the areas it left (`left`, from the outbox entries) [issue #33].
   */
  async function queueState(locationId: number, pins: readonly number[], left: Left): Promise<{ counts: SyncCounts; state: UserStates }> {
    const users = await store.users.getMany(locationId, pins);
    const state = stateOf(pins, users);
    const active = new Set(state.upserted);
    // No device, nothing owed (an import before any device is assigned; the assignment queues the
    // roster). Counted per chunk, like queueUsers reads its devices.
    if ((await store.devices.count(locationId)) === 0) return { counts: NONE, state };
    const byPin = new Map(users.map((u) => [u.pin, u]));
    const holds = (d: Device, pin: number) => {
      const user = byPin.get(pin);
      return user !== undefined && holdsUser(d, user);
    };
    const leaves = (d: Device, pin: number) => d.area_id !== null && !holds(d, pin) && (left.get(pin)?.includes(d.area_id) ?? false);
    // Revocations first [API-CONTRACT §5]: their ops also rank first in the mailbox.
    const gone = pins.filter((p) => !active.has(p));
    const moving = state.upserted.filter((p) => left.has(p));
    const counts = [
      gone.length > 0 ? await sync.queueUsers(locationId, gone, 'user.delete') : NONE,
      moving.length > 0 ? await sync.queueUsers(locationId, moving, 'user.delete', { pairs: leaves }) : NONE,
      state.upserted.length > 0 ? await sync.queueUsers(locationId, state.upserted, 'user.upsert', { pairs: holds }) : NONE,
    ];
    return {
      counts: { devices: Math.max(...counts.map((c) => c.devices)), commands: counts.reduce((n, c) => n + c.commands, 0) },
      state,
    };
  }

  /**
   * `user.changed` for what these entries owe, each stored in the feed before the entries go (a
   * fresh id per announcement: a crash in between announces again, at least once). False when the
   * feed could not store one (the entries stay for the sweep).
   */
  async function announce(locationId: number, state: UserStates): Promise<boolean> {
    for (const change of ['upserted', 'deactivated', 'deleted'] as const) {
      const pins = state[change];
      if (pins.length === 0) continue;
      if (!(await bus.emitStored('user.changed', { location_id: locationId, pins, change, feed_event: randomUUID() }))) return false;
    }
    return true;
  }

  /** Announces processed chunks, then removes their entries; false when an event was not stored (they stay). */
  async function settle(locationId: number, chunk: readonly OutboxEntry[], state: UserStates): Promise<boolean> {
    if (!(await announce(locationId, state))) return false;
    // Marked again meanwhile (a newer write): queued once more from the state now; that entry
    // stays, and its own processing announces it.
    const missed = await store.syncOutbox.done(chunk);
    if (missed.length > 0)
      await queueCurrent(
        locationId,
        missed.map((e) => e.pin),
        leftOf(chunk),
      );
    return true;
  }

  /**
   * Entries of one location, in chunks of about OUTBOX_CHUNK_OPS ops. In the background (`yielding`)
   * the chunks' events are announced ANNOUNCE_PINS users at a time (an import's users in a few events,
   * as an import's chunks did) and their entries removed after, with a turn of the event loop between
   * chunks; a request does not wait for its events (an outage would hold its answer for the feed's
   * minute): they are stored and the entries removed after it answered (`settling`, awaited by idle()).
   */
  async function processLocation(locationId: number, entries: readonly OutboxEntry[], yielding: boolean): Promise<SyncCounts> {
    const devices = await store.devices.count(locationId);
    const size = Math.max(1, Math.floor(OUTBOX_CHUNK_OPS / Math.max(1, devices)));
    let commands = 0;
    let held: OutboxEntry[] = [];
    let heldState: UserStates = { upserted: [], deactivated: [], deleted: [] };
    const release = async () => {
      if (held.length === 0) return;
      const [chunk, state] = [held, heldState];
      held = [];
      heldState = { upserted: [], deactivated: [], deleted: [] };
      if (!(await settle(locationId, chunk, state)))
        throw new BioGateError('STORE_UNAVAILABLE', 'a user.changed event could not be stored; the outbox sweep announces it');
    };
    for (let i = 0; i < entries.length; i += size) {
      const chunk = entries.slice(i, i + size);
      const queued = await queueCurrent(
        locationId,
        chunk.map((e) => e.pin),
        leftOf(chunk),
      );
      commands += queued.counts.commands;
      if (yielding) {
        held = held.concat(chunk);
        heldState = {
          upserted: [...heldState.upserted, ...queued.state.upserted],
          deactivated: [...heldState.deactivated, ...queued.state.deactivated],
          deleted: [...heldState.deleted, ...queued.state.deleted],
        };
        if (held.length >= ANNOUNCE_PINS) await release();
        await yieldToLoop();
        if (stopping) break;
        continue;
      }
      const settled: Promise<void> = settle(locationId, chunk, queued.state)
        .then(
          (stored) => {
            if (!stored) log.warn({ location: locationId, users: chunk.length }, 'user.changed not stored: left to the outbox sweep');
          },
          (err: unknown) => log.error({ err, location: locationId }, 'sync outbox: settling a write failed; the sweep retries'),
        )
        .finally(() => settling.delete(settled));
      settling.add(settled);
    }
    await release();
    return { devices, commands };
  }

  async function processEntries(entries: readonly OutboxEntry[], yielding: boolean): Promise<SyncCounts> {
    const byLocation = new Map<number, OutboxEntry[]>();
    for (const e of entries) byLocation.set(e.location_id, [...(byLocation.get(e.location_id) ?? []), e]);
    let devices = 0;
    let commands = 0;
    for (const [locationId, group] of byLocation) {
      const r = await processLocation(locationId, group, yielding);
      devices += r.devices;
      commands += r.commands;
    }
    return { devices, commands };
  }

  async function drain(before: Date = ALL): Promise<number> {
    let total = 0;
    while (!stopping) {
      const entries = await store.syncOutbox.due(before.toISOString(), ROUND);
      if (entries.length === 0) return total;
      await processEntries(entries, true);
      total += entries.length;
    }
    return total;
  }

  function kick(before: Date = ALL): void {
    next = next === undefined || before > next ? before : next;
    if (running) return;
    running = (async () => {
      while (next !== undefined) {
        const upTo = next;
        next = undefined;
        const n = await drain(upTo);
        if (n > 0) log.info({ users: n }, 'sync outbox: ops queued in the background');
      }
    })()
      .catch((err: unknown) => log.error({ err }, 'sync outbox: drain failed; the next sweep retries'))
      .finally(() => {
        running = undefined;
        next = undefined;
      });
  }

  return {
    async flush(locationId, pins) {
      if (pins.length === 0) return { devices: 0, commands: 0 };
      const entries = await store.syncOutbox.get(locationId, pins);
      if (entries.length === 0) return { devices: 0, commands: 0 };
      return processEntries(entries, false);
    },
    kick,
    drain,
    start() {
      stopping = false;
      kick();
      timer = setInterval(() => kick(new Date(clock.now().getTime() - OUTBOX_GRACE_MS)), SWEEP_EVERY_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      stopping = true;
      next = undefined;
      await running;
      await Promise.all(settling);
    },
    idle: async () => {
      while (running || settling.size > 0) {
        await running;
        await Promise.all(settling);
      }
    },
  };
}
