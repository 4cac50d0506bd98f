// Text helpers for the device side of the wire: line and field splitting, device-local times,
// ZK packed seconds. Written here on purpose instead of shared with protocols/ (DESIGN.md).

/** [PUSH-v2 §2.3] split on LF, strip one trailing CR per line, skip empty lines. */
export function splitLines(body: string): string[] {
  const out: string[] = [];
  for (const raw of body.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line !== '') out.push(line);
  }
  return out;
}

/** `Key=Value` fields of a command or record; keys are looked up case-insensitively [PUSH-v2 §2.5]. */
export interface FieldList {
  /** lower-cased key → value */
  readonly values: ReadonlyMap<string, string>;
  /** keys as written, in order */
  readonly keys: readonly string[];
  /** a field without `=` or with an empty key was found */
  readonly malformed: boolean;
}

/** [PUSH-v2 §2.4, §9.1] TAB-separated `Key=Value` pairs; a final empty field (trailing TAB) is dropped. */
export function parseTabFields(text: string): FieldList {
  const parts = text.split('\t');
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return pairs(parts);
}

/** [PUSH-v3 §11.6] comma-separated `Key=Value` pairs (SET OPTIONS, UPGRADE). */
export function parseCommaFields(text: string): FieldList {
  return pairs(text === '' ? [] : text.split(','));
}

function pairs(parts: readonly string[]): FieldList {
  const values = new Map<string, string>();
  const keys: string[] = [];
  let malformed = false;
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq <= 0) {
      malformed = true;
      continue;
    }
    // [PUSH-v2 §2.5] split at the first `=` only: values may contain `=` (base64 padding)
    const key = part.slice(0, eq);
    keys.push(key);
    values.set(key.toLowerCase(), part.slice(eq + 1));
  }
  return { values, keys, malformed };
}

/** Case-insensitive field lookup. */
export function field(list: FieldList, key: string): string | undefined {
  return list.values.get(key.toLowerCase());
}

/** Decimal integer (optionally signed), or undefined. */
export function parseIntStrict(text: string | undefined): number | undefined {
  if (text === undefined || !/^-?\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Device-local wall-clock time `YYYY-MM-DD HH:MM:SS` of an instant, for a UTC offset in minutes. */
export function formatDeviceTime(at: Date, utcOffsetMinutes: number): string {
  const d = new Date(at.getTime() + utcOffsetMinutes * 60_000);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/** A wall-clock time in either query form [COMMANDS §3.4] (`YYYY-MM-DD HH:MM:SS` or `…Thh:mm:ss`)
 *  as its fields, or undefined when it is not one. */
export function parseWallClock(text: string): [number, number, number, number, number, number] | undefined {
  const m = WALL_CLOCK.exec(text);
  if (m === null) return undefined;
  const f = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const [, month, day, h, min, s] = f;
  if (month < 1 || month > 12 || day < 1 || day > 31 || h > 23 || min > 59 || s > 59) return undefined;
  return f;
}

/** Sortable number of a wall-clock time (milliseconds as if it were UTC), or undefined. */
export function wallClockValue(text: string): number | undefined {
  const f = parseWallClock(text);
  return f === undefined ? undefined : Date.UTC(f[0], f[1] - 1, f[2], f[3], f[4], f[5]);
}

/** [PUSH-v3 §13.1] ZK packed seconds of a wall-clock time; every month counts as 31 days. */
export function zkPackedSeconds(wallClock: string): number {
  const f = parseWallClock(wallClock);
  if (f === undefined) throw new RangeError(`not a wall-clock time: ${wallClock}`);
  const [y, mo, d, h, mi, s] = f;
  return ((y - 2000) * 12 * 31 + (mo - 1) * 31 + (d - 1)) * 86400 + (h * 60 + mi) * 60 + s;
}

/** Strict base64 check (padding optional). */
export function isBase64(text: string): boolean {
  return text.length > 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(text) && text.length % 4 !== 1;
}

/** [PUSH-v2 §2.1] query value encoding as devices do it: percent-encoding, commas kept literal
 *  (`INFO=Ver%208.0.4.2-5856-01,1,0,…`, fixture A25). */
export function encodeQueryValue(value: string): string {
  return encodeURIComponent(value).replace(/%2C/g, ',');
}
