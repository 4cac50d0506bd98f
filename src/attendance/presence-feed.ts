/**
 * The presence feed (issue #35 item 2): after punches of a location are stored (`attendance.recorded`, live or from
 * the outbox sweep) or voided (`attendance.voided`), who is in is read again (days.ts presenceOf, exactly what
 * GET /api/presence answers) and `presence.changed` carries the location's head count and the presence of the PINs those punches were of.
 *
 * Invariants:
 * - Batches of one location that arrive within the delay are one read; the delay is `coalesceMs`, or READ_COST_FACTOR
 *   times the location's last read when that is longer (at most MAX_DELAY_MS). One read runs at a time on a node, so
 *   a busy site costs a day's read now and then, not one per upload.
 * - Each node announces what it stored; several nodes may each announce the same location, every event with the
 *   store's answer at its time (the last one in the feed is the newest read).
 * - At most once, like `area.changed`: a consumer that missed one reads GET /api/presence again. A read that fails
 *   (store down, a day beyond MAX_PUNCHES) is logged and skipped; the location's next read waits MAX_DELAY_MS.
 * - A new working day empties presence (`rollover`, a singleton job): the PINs present on a location's last day are
 *   read again, so the day's first event names them `absent` (retained topics cleared) unless they punched already.
 *   The window (mark, now] is claimed by compare-and-set in the store (JobsPort): of several nodes, exactly one
 *   announces a turn, and a restart resumes from the last mark.
 */
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import { comparePins, workingDayAt } from '../time/time-cards.js';
import { pinsOn, presenceOf } from './days.js';

/** How long punches of a location are gathered before who is in is read again (at least). */
export const PRESENCE_COALESCE_MS = 1_000;
/**
 * A location whose day is large reads less often: the next read waits this many times the last one's duration, so
 * the presence feed spends at most about a twentieth of a node's time on a busy location's reads.
 */
const READ_COST_FACTOR = 20;
/** The longest a location's presence lags its punches. */
const MAX_DELAY_MS = 60_000;
/** The store's mark (JobsPort) of the working-day turns announced so far. */
export const PRESENCE_ROLLOVER_JOB = 'presence-rollover';

export interface PresenceFeedDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
  /** Default PRESENCE_COALESCE_MS. */
  readonly coalesceMs?: number;
}

export interface PresenceFeed {
  /** Starts listening to the bus. */
  start(): void;
  /** Resolves when no punches wait for a read and no read runs (a test's or a shutdown's settling point). */
  idle(): Promise<void>;
  /** Stops listening; waits for the reads under way. */
  stop(): Promise<void>;
  /**
   * Announces the working days that turned since the last call on any node (the singleton job's run): the PINs
   * present on each such location's last day are read again. Returns how many locations turned.
   */
  rollover(): Promise<number>;
}

export function createPresenceFeed(deps: PresenceFeedDeps): PresenceFeed {
  const coalesceMs = deps.coalesceMs ?? PRESENCE_COALESCE_MS;
  /** PINs whose punches were stored since the location's last read. */
  const pending = new Map<number, Set<string>>();
  const timers = new Map<number, NodeJS.Timeout>();
  /** How long the location's last read took: the next one waits READ_COST_FACTOR times that, at least coalesceMs. */
  const lastReadMs = new Map<number, number>();
  /** One read at a time on a node, whatever the location: reads queue here. */
  let reads: Promise<void> = Promise.resolve();
  let stopped = false;

  const punched = (locationId: number, records: readonly { readonly pin: string }[]) => {
    if (stopped) return;
    let pins = pending.get(locationId);
    if (!pins) pending.set(locationId, (pins = new Set()));
    for (const r of records) pins.add(r.pin);
    if (timers.has(locationId)) return;
    const delay = Math.min(MAX_DELAY_MS, Math.max(coalesceMs, READ_COST_FACTOR * (lastReadMs.get(locationId) ?? 0)));
    timers.set(
      locationId,
      setTimeout(() => {
        reads = reads.then(() => run(locationId));
      }, delay),
    );
  };
  let offs: (() => void)[] = [];

  async function run(locationId: number): Promise<void> {
    timers.delete(locationId);
    const pins = pending.get(locationId);
    pending.delete(locationId);
    if (!pins || stopped) return;
    const began = performance.now();
    try {
      await announce(locationId, pins);
      lastReadMs.set(locationId, performance.now() - began);
    } catch (err) {
      lastReadMs.set(locationId, MAX_DELAY_MS / READ_COST_FACTOR);
      deps.log.warn({ err, location_id: locationId }, 'presence could not be read after punches: the next punches read again in a minute');
    }
  }

  async function announce(locationId: number, pins: ReadonlySet<string>): Promise<void> {
    const location = await deps.store.locations.get(locationId);
    if (!location) return;
    const { count, data } = await presenceOf(deps.store, deps.clock, location, undefined);
    const users = data.filter((r) => pins.has(r.pin));
    // No kept punch this working day (the only one voided, or a punch of an earlier day uploaded late): not present.
    const present = new Set(users.map((u) => u.pin));
    const absent = [...pins].filter((pin) => !present.has(pin)).sort(comparePins);
    if (stopped) return; // shutting down: the feed may be closing too
    deps.bus.emit('presence.changed', { location_id: locationId, count, users, absent });
  }

  async function rollover(): Promise<number> {
    const now = deps.clock.now();
    const from = (await deps.store.jobs.get(PRESENCE_ROLLOVER_JOB))?.mark ?? null;
    const to = now.toISOString();
    // The first run of a deployment only sets the mark: no turn to look back on.
    if ((from !== null && !(from < to)) || !(await deps.store.jobs.advance(PRESENCE_ROLLOVER_JOB, from, to, to)) || from === null) return 0;
    let turned = 0;
    for (const location of await deps.store.locations.list()) {
      const { timezone, day_start_hour: hour } = location;
      const last = workingDayAt(Date.parse(from), timezone, hour);
      if (!location.is_active || stopped || last === workingDayAt(now.getTime(), timezone, hour)) continue;
      try {
        const pins = await pinsOn(deps.store, deps.clock, location, last);
        if (pins.length > 0)
          punched(
            location.id,
            pins.map((pin) => ({ pin })),
          );
        turned++;
      } catch (err) {
        deps.log.warn({ err, location_id: location.id }, 'presence could not be emptied at the new working day');
      }
    }
    return turned;
  }

  return {
    rollover,
    start() {
      offs = [
        deps.bus.on('attendance.recorded', (p) => punched(p.location_id, p.records)),
        // A voided punch leaves presence (issue #35 item 3).
        deps.bus.on('attendance.voided', (p) => punched(p.location_id, [p.record])),
      ];
    },
    async idle() {
      while (timers.size > 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        await reads;
      }
      await reads;
    },
    async stop() {
      stopped = true;
      for (const off of offs) off();
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
      pending.clear();
      await reads;
    },
  };
}
