/**
 * The access audit (issue #33 item 7): on a terminal that stores the access tables, what it holds of them
 * as read from it (`userauthorize`, `timezone`, `holiday` [PUSH-v3 §10.4]) against what the location says.
 *
 * Invariants:
 * - Started after a roster audit has compared the user table (sync/audit.ts `reconcile`): one pending
 *   `access-audit` query per terminal (its sync key), below every sync op, so it reads the tables once the
 *   repairs queued before it were handed out.
 * - A user with access levels must hold exactly the rows they give on this terminal (userauthorizeRows);
 *   a user without holds schedule 1 through every door, and other rows of theirs are left alone (they
 *   grant nothing more than that right does). A user whose rows differ is sent again: the upsert replaces
 *   a levelled user's rows whole, and adds the missing right of one without levels.
 * - Users not wanted here are the roster audit's (deleted with their rows); users with a line owed are
 *   left to that line.
 * - Schedules and holidays are BioGate's once the location has any (until then the terminal's own are left
 *   alone): each stored schedule (2–50) must be held with its packed intervals, and the holiday table must be
 *   exactly the location's days; otherwise the whole table is sent again (timezone-sync, holiday-sync).
 * - Each door BioGate gave settings (`PUT /api/devices/{sn}/doors/{n}`) must report them in its options; a door
 *   that reports others gets its `door-settings` again.
 */
import { keepOpenScheduleOf } from '../locations/scenario.js';
import {
  codecOfDevice,
  doorOptionKeys,
  effectiveVersion,
  holidayRows,
  userauthorizeRows,
  type HolidayRecord,
  type TimezoneRecord,
  type UserRightRecord,
} from '../../protocols/index.js';
import { accessOf, profileOf } from '../devices/render.js';
import { holidayDays, packedSchedule, type Device, type Location } from '../store/ports/index.js';
import type { Store } from '../store/types.js';

const PAGE = 5_000;
const key = (r: { timezoneId: number; doorMask: number }) => `${r.timezoneId}:${r.doorMask}`;

/** True when the terminal keeps per-user rights BioGate can read back (Security PUSH). */
export const auditsRights = (device: Device): boolean => codecOfDevice(device).storesAccessTables;

/** Of `pins` (wanted on the terminal, nothing owed), those whose rows there differ from their levels'. */
export async function staleRights(
  store: Store,
  location: Location,
  device: Device,
  pins: readonly number[],
  held: readonly UserRightRecord[],
): Promise<number[]> {
  const rowsByPin = new Map<number, Set<string>>();
  for (const r of held) {
    if (!/^\d{1,8}$/.test(r.pin)) continue;
    const pin = Number(r.pin);
    const rows = rowsByPin.get(pin) ?? new Set<string>();
    rows.add(key(r));
    rowsByPin.set(pin, rows);
  }
  const profile = profileOf(device, effectiveVersion(device));
  const stale: number[] = [];
  // Users share few sets of levels: their rights here are worked out once per set.
  const bySet = new Map<string, Awaited<ReturnType<typeof accessOf>>>();
  for (let i = 0; i < pins.length; i += PAGE) {
    for (const user of await store.users.getMany(location.id, pins.slice(i, i + PAGE))) {
      const set = user.access_levels.join(',');
      const access = bySet.get(set) ?? (await accessOf(store, location, device, user));
      bySet.set(set, access);
      const { rights } = access;
      const wanted = userauthorizeRows(rights, profile);
      if (!Array.isArray(wanted)) continue; // not renderable: the sync op reports why
      const has = rowsByPin.get(user.pin) ?? new Set<string>();
      const differs =
        rights === undefined ? !wanted.every((r) => has.has(key(r))) : has.size !== wanted.length || !wanted.every((r) => has.has(key(r)));
      if (differs) stale.push(user.pin);
    }
  }
  return stale;
}

/**
 * The doors whose settings the terminal reports otherwise than BioGate gave them [PUSH-v3 §10.5]. A key the
 * terminal answers empty (a model without it) is not compared: sending it again would change nothing.
 */
export function doorsDiffer(device: Device, location: Pick<Location, 'scenario'>, options: Readonly<Record<string, string>>): number[] {
  const held = new Map(Object.entries(options).map(([k, v]) => [k.toLowerCase(), v.trim()]));
  const differs = (key: string, wanted: number) => {
    const value = held.get(key.toLowerCase());
    return value !== undefined && value !== '' && value !== String(wanted);
  };
  return Object.entries(device.doors)
    .filter(([n, setting]) => {
      const [time, keepOpen] = doorOptionKeys(Number(n));
      // A lockdown suspends normal-open schedules: the terminal should hold none meanwhile (locations/scenario.ts).
      return differs(time, setting.unlock_seconds) || differs(keepOpen, keepOpenScheduleOf(location, setting));
    })
    .map(([n]) => Number(n))
    .sort((a, b) => a - b);
}

/** True when a stored schedule of the location is missing from the terminal or held with other intervals. */
export async function timezonesDiffer(store: Store, location: Location, held: readonly TimezoneRecord[]): Promise<boolean> {
  const byId = new Map(held.map((r) => [r.id, r.values]));
  for (const schedule of await store.schedules.list(location.id)) {
    const values = byId.get(schedule.id);
    const wanted = packedSchedule(schedule.days);
    if (!values || values.length !== wanted.length || values.some((v, i) => v !== wanted[i])) return true;
  }
  return false;
}

/** True when the location has holidays and the terminal's table is not exactly their days. */
export async function holidaysDiffer(store: Store, location: Location, held: readonly HolidayRecord[]): Promise<boolean> {
  const holidays = await store.holidays.list(location.id);
  if (holidays.length === 0) return false;
  const row = (r: HolidayRecord) => `${r.date}:${r.type}:${r.loop}`;
  const wanted = new Set(
    holidayRows(holidays.flatMap((h) => holidayDays(h).map((date) => ({ date, type: h.type, yearly: h.recurring })))).map(row),
  );
  const has = new Set(held.map(row));
  return has.size !== wanted.size || [...wanted].some((r) => !has.has(r));
}
