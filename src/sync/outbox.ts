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
 * dispatch time), so two nodes or a request and a sweep may process the same entry. An entry marked
 * again while it was processed (a newer write) is not removed; its users are queued once more from
 * their now current state, so a slow processor cannot leave a stale op behind a newer one.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { OutboxEntry } from '../store/ports/index.js';
import type { SyncCounts, SyncQueue } from './queue.js';

/** Sync ops queued per chunk before yielding to the event loop. */
export const OUTBOX_CHUNK_OPS = 500;
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
  /** Resolves when no background drain runs. */
  idle(): Promise<void>;
}

export function createSyncOutbox(deps: { store: Store; sync: SyncQueue; clock: Clock; log: Logger }): SyncOutbox {
  const { store, sync, clock, log } = deps;
  let running: Promise<void> | undefined;
  let next: Date | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** Set by stop(): a background drain ends after its current chunk (the rest stays in the outbox). */
  let stopping = false;

  /** The ops for the users' current state; returns the counts. */
  async function queueCurrent(locationId: number, pins: readonly number[]): Promise<SyncCounts> {
    // No device, nothing owed: the users are not read (an import before any device is assigned;
    // the assignment queues the roster). Counted per chunk, like queueUsers reads its devices.
    if ((await store.devices.count(locationId)) === 0) return { devices: 0, commands: 0 };
    const active = new Set((await store.users.getMany(locationId, pins)).filter((u) => u.is_active).map((u) => u.pin));
    // Revocations first [API-CONTRACT §5]: their ops also rank first in the mailbox.
    const none: SyncCounts = { devices: 0, commands: 0 };
    const gone = pins.filter((p) => !active.has(p));
    const kept = pins.filter((p) => active.has(p));
    const deleted = gone.length > 0 ? await sync.queueUsers(locationId, gone, 'user.delete') : none;
    const upserted = kept.length > 0 ? await sync.queueUsers(locationId, kept, 'user.upsert') : none;
    return { devices: Math.max(deleted.devices, upserted.devices), commands: deleted.commands + upserted.commands };
  }

  /** Entries of one location, in chunks of about OUTBOX_CHUNK_OPS ops; yields between chunks when asked. */
  async function processLocation(locationId: number, entries: readonly OutboxEntry[], yielding: boolean): Promise<SyncCounts> {
    const devices = (await store.devices.listAssigned(locationId)).length;
    const size = Math.max(1, Math.floor(OUTBOX_CHUNK_OPS / Math.max(1, devices)));
    let commands = 0;
    for (let i = 0; i < entries.length; i += size) {
      const chunk = entries.slice(i, i + size);
      commands += (
        await queueCurrent(
          locationId,
          chunk.map((e) => e.pin),
        )
      ).commands;
      const missed = await store.syncOutbox.done(chunk);
      if (missed.length > 0)
        commands += (
          await queueCurrent(
            locationId,
            missed.map((e) => e.pin),
          )
        ).commands;
      if (yielding) await yieldToLoop();
      if (yielding && stopping) break;
    }
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
    },
    idle: async () => {
      while (running) await running;
    },
  };
}
