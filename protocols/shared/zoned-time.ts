// Wall-clock time in an IANA zone, with Intl only (pure: `now` is always a parameter).
// Device times are wall-clock times of the location without an offset [PUSH-v2 §4.5, PUSH-v3 §4.4].
import { ProtocolError } from '../protocol-error.js';
import type { WallClock } from './zk-time.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch (cause) {
      throw new ProtocolError('INVALID_TIME_ZONE', `unknown time zone ${JSON.stringify(timeZone)}`, { cause });
    }
    formatters.set(timeZone, f);
  }
  return f;
}

/** @throws ProtocolError INVALID_TIME_ZONE */
export function assertTimeZone(timeZone: string): void {
  formatter(timeZone);
}

/** Whether Intl knows the zone. */
export function isTimeZone(timeZone: string): boolean {
  return zonedWallClock(new Date(0), timeZone) !== undefined;
}

/** Wall clock of `date` in `timeZone`, or undefined for an unknown zone (for encoders, which never throw). */
export function zonedWallClock(date: Date, timeZone: string): WallClock | undefined {
  try {
    return wallClockIn(date, timeZone);
  } catch {
    return undefined;
  }
}

/** Wall clock of `date` in `timeZone`. @throws ProtocolError INVALID_TIME_ZONE */
export function wallClockIn(date: Date, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(date)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return {
    year: parts.year as number,
    month: parts.month as number,
    day: parts.day as number,
    hour: parts.hour as number,
    minute: parts.minute as number,
    second: parts.second as number,
  };
}

const asUtc = (t: WallClock): number => Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);

/** Offset of `timeZone` from UTC at `date`, in minutes (east positive). */
export function offsetMinutes(date: Date, timeZone: string): number {
  const utc = Math.floor(date.getTime() / 1000) * 1000;
  return Math.round((asUtc(wallClockIn(new Date(utc), timeZone)) - utc) / 60000);
}

/** UTC wall clock of `date`. */
export function utcWallClock(date: Date): WallClock {
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
  };
}

/** `+0800` / `-0330` */
export function formatOffsetCompact(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

/** `+08:00` / `-05:00` */
export function formatOffsetColon(minutes: number): string {
  const compact = formatOffsetCompact(minutes);
  return `${compact.slice(0, 3)}:${compact.slice(3)}`;
}
