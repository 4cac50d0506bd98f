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

/** `2026-11-21 09:30:00` in `tz` → ISO UTC, or undefined when the text is not a valid wall-clock time. */
export function localToUtc(local: string, tz: string): string | undefined {
  const m = WALL.exec(local.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  if (new Date(wall).getUTCDate() !== d) return undefined;
  // Two passes settle the offset around DST changes (an ambiguous hour takes the first offset).
  let utc = wall - offsetAt(tz, wall);
  utc = wall - offsetAt(tz, utc);
  return new Date(utc).toISOString();
}
