/**
 * Time sync on a time zone change [DESIGN "Sync"]: when a location's time zone or its UTC offset
 * changes (daylight saving, an update through the API, the CLI or the admin API), every terminal
 * of the location gets a `time-sync` command on its next poll, rendered by its codec
 * (v3 `SET OPTIONS DateTime=…` [PUSH-v3 §11.6]; v2 `CHECK`, so it re-handshakes and takes the new
 * `TimeZone` [PUSH-v2 §9.2]). One pending time-sync per device (coalesced by sync key).
 *
 * The zone and offset last synced per location live in the store (JobsPort, `time-zone:<id>`), so
 * any node detects a change once: the compare-and-set of the new value elects the node that queues.
 * A periodic check catches DST transitions and changes made by another process (the CLI).
 */
import { offsetMinutes } from '../time/zones.js';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { Location, NewCommand } from '../store/ports/index.js';
import { enqueueAnnounced } from './enqueue.js';
import { SYNC_PRIORITY } from './lanes.js';
import { TIME_SYNC_COMMAND } from '../devices/render.js';

export const TIME_SYNC_KEY = 'system:time-sync';
const CHECK_EVERY_MS = 60_000;
/** A time sync nobody collected within a day is stale (the next handshake carries the time anyway). */
const EXPIRY_MS = 86_400_000;

export const timeZoneJob = (locationId: number): string => `time-zone:${locationId}`;
const stateOf = (location: Location, now: Date): string => `${location.timezone}|${offsetMinutes(now, location.timezone)}`;

export interface TimeSync {
  /**
   * Compares each active location's (zone, offset) with the one last synced; queues time syncs
   * where it changed. `force`: the caller knows the zone changed (an update), so a location never
   * checked before is synced too. Returns the number of devices queued.
   */
  check(locationId?: number, options?: { force?: boolean }): Promise<number>;
  start(): void;
  stop(): void;
}

export function createTimeSync(deps: { store: Store; clock: Clock; bus: EventBus; log: Logger }): TimeSync {
  const { store, clock, bus, log } = deps;
  let timer: NodeJS.Timeout | undefined;

  async function queue(location: Location, now: Date): Promise<number> {
    const devices = await store.devices.listAssigned(location.id);
    if (devices.length === 0) return 0;
    const expires_at = new Date(now.getTime() + EXPIRY_MS).toISOString();
    const ops: NewCommand[] = devices.map((d) => ({
      location_id: location.id,
      sn: d.serial_number,
      command: TIME_SYNC_COMMAND,
      params: null,
      priority: SYNC_PRIORITY.time,
      origin: 'system',
      expires_at,
      sync_key: TIME_SYNC_KEY,
    }));
    await enqueueAnnounced({ store, bus }, ops, now.toISOString());
    for (const d of devices) bus.emit('mailbox.changed', { location_id: location.id, sn: d.serial_number });
    log.info(
      { location: location.id, timezone: location.timezone, devices: devices.length },
      'time zone or UTC offset changed: time sync queued',
    );
    return devices.length;
  }

  async function checkOne(location: Location, now: Date, force: boolean): Promise<number> {
    const name = timeZoneJob(location.id);
    const current = stateOf(location, now);
    const last = await store.jobs.get(name);
    if (last?.mark === current) return 0;
    if (!(await store.jobs.advance(name, last?.mark ?? null, current, now.toISOString()))) return 0;
    // No mark yet and no known change: the first check records the baseline (handshakes carry the zone).
    if (!last && !force) return 0;
    return queue(location, now);
  }

  async function check(locationId?: number, options: { force?: boolean } = {}): Promise<number> {
    const now = clock.now();
    const locations =
      locationId === undefined
        ? await store.locations.list()
        : [await store.locations.get(locationId)].filter((l): l is Location => l !== undefined);
    let queued = 0;
    for (const location of locations) if (location.is_active) queued += await checkOne(location, now, options.force === true);
    return queued;
  }

  return {
    check,
    start() {
      const run = () => void check().catch((err: unknown) => log.error({ err }, 'time zone check failed'));
      run();
      timer = setInterval(run, CHECK_EVERY_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
