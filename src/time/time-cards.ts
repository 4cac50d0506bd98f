/**
 * Daily time cards (issue #35 item 1): a location's punches folded into one card per user and working day.
 *
 * Invariants:
 * - The working day of a punch is the date of its wall-clock time (the terminal's `local_time`, in the location's
 *   zone) less `dayStartHour` hours: with 6, a punch at 05:59 belongs to the day before. The cut is on the wall
 *   clock, so it stays at the same hour on the days the zone changes its offset.
 * - Durations are measured between UTC instants, never wall-clock times: a shift across a DST change is as long
 *   as it really was.
 * - A punch within `debounceS` seconds of the user's previous kept punch is a repeat and is ignored (the earlier
 *   one stands); `punches` counts the kept ones.
 * - Worked time pairs the terminal's states when they are usable: in = 0 check-in, 3 break-in, 4 overtime-in;
 *   out = 1 check-out, 2 break-out, 5 overtime-out. An in opens a span (a second in while one is open is
 *   ignored), an out closes it; an out with nothing open, or a span left open at the day's end, makes the card
 *   `incomplete`. States are unusable when every punch of the day says 0 (terminals without state keys) or any
 *   says something else (255 "no state"): the day is then first punch to last, incomplete with a single punch.
 */
import { wallClock, wallClockAt } from './zones.js';

export interface Punch {
  readonly pin: string;
  /** UTC instant, milliseconds. */
  readonly at: number;
  /** `YYYY-MM-DD HH:MM:SS` on the terminal's clock (the location's zone). */
  readonly localTime: string;
  readonly status: number;
  readonly source: string;
  /** The terminal that took it. */
  readonly sn: string;
}

export interface TimeCard {
  readonly pin: string;
  /** The working day, `YYYY-MM-DD`. */
  readonly date: string;
  /** The first kept punch: local date-time with the location's offset then (`2026-03-29T08:00:00+02:00`). */
  readonly first_in: string;
  /** The last kept punch when there are two or more, else null. */
  readonly last_out: string | null;
  readonly punches: number;
  readonly worked_minutes: number;
  readonly incomplete: boolean;
  /** Where the kept punches came from (`device`, later `manual`), sorted. */
  readonly sources: readonly string[];
}

export interface TimeCardSettings {
  readonly debounceS: number;
  readonly dayStartHour: number;
}

const IN = new Set([0, 3, 4]);
const OUT = new Set([1, 2, 5]);
const dayOf = (wall: number, dayStartHour: number): string => new Date(wall - dayStartHour * 3_600_000).toISOString().slice(0, 10);

/** The working day of a punch, `YYYY-MM-DD`, or undefined when its local time is malformed. */
export function workingDay(localTime: string, dayStartHour: number): string | undefined {
  const wall = wallClock(localTime);
  return wall === undefined ? undefined : dayOf(wall, dayStartHour);
}

/** The working day in `tz` at the instant `ms` (the default of a time-card request: today). */
export function workingDayAt(ms: number, tz: string, dayStartHour: number): string {
  return dayOf(wallClockAt(ms, tz), dayStartHour);
}

/** The punch's local time in ISO 8601 with the offset it had (wall clock less the instant). */
function localIso(p: Punch): string {
  const wall = wallClock(p.localTime) as number;
  const offset = Math.round((wall - p.at) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${new Date(wall).toISOString().slice(0, 19)}${sign}${hh}:${mm}`;
}

/** One user's kept punches of one working day, oldest first, as a card. */
function card(pin: string, date: string, kept: readonly Punch[]): TimeCard {
  const first = kept[0] as Punch;
  const last = kept.at(-1) as Punch;
  const usable = !kept.every((p) => p.status === 0) && kept.every((p) => IN.has(p.status) || OUT.has(p.status));
  let workedMs = 0;
  let incomplete = false;
  if (usable) {
    let open: number | null = null;
    for (const p of kept) {
      if (IN.has(p.status)) open ??= p.at;
      else if (open === null) incomplete = true;
      else {
        workedMs += p.at - open;
        open = null;
      }
    }
    if (open !== null) incomplete = true;
  } else if (kept.length > 1) workedMs = last.at - first.at;
  else incomplete = true;
  return {
    pin,
    date,
    first_in: localIso(first),
    last_out: kept.length > 1 ? localIso(last) : null,
    punches: kept.length,
    worked_minutes: Math.floor(workedMs / 60_000),
    incomplete,
    sources: [...new Set(kept.map((p) => p.source))].sort(),
  };
}

/** Compares PINs as numbers where both are digits, else as text. */
export function comparePins(a: string, b: string): number {
  const digits = /^\d+$/;
  if (digits.test(a) && digits.test(b)) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Each user's kept punches (repeats left out, oldest first) of each working day from…to. */
function* userDays(punches: Iterable<Punch>, from: string, to: string, settings: TimeCardSettings) {
  const byDay = new Map<string, Punch[]>();
  for (const p of punches) {
    const date = workingDay(p.localTime, settings.dayStartHour);
    if (date === undefined || date < from || date > to) continue;
    const key = `${date}\u0000${p.pin}`;
    const list = byDay.get(key);
    if (list) list.push(p);
    else byDay.set(key, [p]);
  }
  for (const [key, list] of byDay) {
    const [date, pin] = key.split('\u0000') as [string, string];
    list.sort((a, b) => a.at - b.at);
    const kept: Punch[] = [];
    for (const p of list) {
      const previous = kept.at(-1);
      if (previous && p.at - previous.at < settings.debounceS * 1_000) continue;
      kept.push(p);
    }
    yield { date, pin, kept };
  }
}

/**
 * The cards of the working days `from`…`to` (inclusive, `YYYY-MM-DD`) from `punches` (any order; punches of
 * other days and malformed local times are left out), ordered by day, then PIN.
 */
export function timeCards(punches: Iterable<Punch>, from: string, to: string, settings: TimeCardSettings): TimeCard[] {
  const cards = [...userDays(punches, from, to, settings)].map(({ pin, date, kept }) => card(pin, date, kept));
  return cards.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : comparePins(a.pin, b.pin)));
}

export interface Presence {
  readonly pin: string;
  /** in: the day's last punch leaves the user in; out: it leaves them out; unknown: the terminal gives no states. */
  readonly state: 'in' | 'out' | 'unknown';
  /** The day's last kept punch, as TimeCard.first_in. */
  readonly since: string;
  /** The terminal of that punch. */
  readonly sn: string;
}

/**
 * Who is in on working day `day` (issue #35 item 2), by PIN: the state the user's last kept punch leaves. With
 * usable states (see the card rule) it is that punch's (in 0/3/4, out 1/2/5); on a terminal whose punches all say
 * 0 the punches toggle (odd count: in); a day with any other state (255) is unknown.
 */
export function presence(punches: Iterable<Punch>, day: string, settings: TimeCardSettings): Presence[] {
  const rows: Presence[] = [];
  for (const { pin, kept } of userDays(punches, day, day, settings)) {
    const last = kept.at(-1) as Punch;
    const allZero = kept.every((p) => p.status === 0);
    const usable = !allZero && kept.every((p) => IN.has(p.status) || OUT.has(p.status));
    const state = allZero ? (kept.length % 2 === 1 ? 'in' : 'out') : usable ? (IN.has(last.status) ? 'in' : 'out') : 'unknown';
    rows.push({ pin, state, since: localIso(last), sn: last.sn });
  }
  return rows.sort((a, b) => comparePins(a.pin, b.pin));
}
