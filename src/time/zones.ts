/**
 * Wall-clock time ↔ UTC in a location's IANA time zone, for everything in `src/` (device uploads,
 * door events, access windows, moved devices, location checks). Built on the wire layer's zoned
 * time (protocols/shared/zoned-time.ts): terminals report local `YYYY-MM-DD HH:MM:SS` without an
 * offset [PUSH-v2 §6.2, PUSH-v3 §4.4]; the API stores UTC beside it.
 */
import { isTimeZone as knownTimeZone, wallClockIn, type WallClock } from '../../protocols/index.js';

/** Offset of a zone from UTC at a date, in minutes (east positive): what a terminal's time zone setting takes. */
export { offsetMinutes } from '../../protocols/index.js';

const MAX_ZONE_LENGTH = 64;

const asUtc = (t: WallClock): number => Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);

/** Whether `tz` is an IANA zone name Intl knows (and of a length a location may store). */
export function isTimeZone(tz: string): boolean {
  return tz.length > 0 && tz.length <= MAX_ZONE_LENGTH && knownTimeZone(tz);
}

/** Offset of `tz` from UTC at the instant `ms`, in milliseconds (to the second, as Intl gives it). */
function offsetAt(tz: string, ms: number): number {
  const second = Math.floor(ms / 1000) * 1000;
  return asUtc(wallClockIn(new Date(second), tz)) - second;
}

const WALL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/**
 * `2026-11-21 09:30:00` (or with a `T`) → the wall-clock reading as milliseconds on a UTC axis, or
 * undefined when the text is not a valid wall-clock time (Feb 30, 24:00, a stray letter).
 */
export function wallClock(local: string): number | undefined {
  const m = WALL.exec(local.trim());
  if (!m) return undefined;
  const y = Number(m[1]),
    mo = Number(m[2]),
    d = Number(m[3]),
    h = Number(m[4]),
    mi = Number(m[5]),
    s = Number(m[6]);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  return new Date(wall).getUTCDate() === d ? wall : undefined;
}

/** The wall-clock reading in `tz` at the instant `ms` (milliseconds on a UTC axis, as wallClock gives). */
export function wallClockAt(ms: number, tz: string): number {
  return asUtc(wallClockIn(new Date(ms), tz));
}

/** A wall-clock reading (see wallClock) in `tz` → the UTC instant, in milliseconds. */
export function wallToUtc(wall: number, tz: string): number {
  // Two passes settle the offset around DST changes (an ambiguous hour takes the first offset).
  const utc = wall - offsetAt(tz, wall);
  return wall - offsetAt(tz, utc);
}

/** `2026-11-21 09:30:00` in `tz` → ISO UTC, or undefined when the text is not a valid wall-clock time. */
export function localToUtc(local: string, tz: string): string | undefined {
  const wall = wallClock(local);
  return wall === undefined ? undefined : new Date(wallToUtc(wall, tz)).toISOString();
}
