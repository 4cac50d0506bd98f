/**
 * Device wall-clock time ↔ UTC in a location's IANA time zone. Terminals report
 * local `YYYY-MM-DD HH:MM:SS` [PUSH-v2 §6.2]; the API stores UTC beside it.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(tz, f);
  }
  return f;
}

/** Offset of `tz` from UTC at the instant `ms`, in milliseconds. */
function offsetAt(tz: string, ms: number): number {
  const parts = Object.fromEntries(formatter(tz).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const asUtc = Date.UTC(Number(parts['year']), Number(parts['month']) - 1, Number(parts['day']), Number(parts['hour']), Number(parts['minute']), Number(parts['second']));
  return asUtc - Math.floor(ms / 1000) * 1000;
}

const WALL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/**
 * `2026-11-21 09:30:00` (or with a `T`) → the wall-clock reading as milliseconds on a UTC axis, or
 * undefined when the text is not a valid wall-clock time (Feb 30, 24:00, a stray letter).
 */
export function wallClock(local: string): number | undefined {
  const m = WALL.exec(local.trim());
  if (!m) return undefined;
  const y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]), h = Number(m[4]), mi = Number(m[5]), s = Number(m[6]);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  return new Date(wall).getUTCDate() === d ? wall : undefined;
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
