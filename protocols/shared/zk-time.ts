// ZK packed seconds [PUSH-v3 §13.1, COMMANDS §3.5]: every month counts as 31 days.

export interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

/** 2018-02-22 14:54:54 → 583080894. Years before 2000 cannot be represented: returns undefined. */
export function zkEncode(t: WallClock): number | undefined {
  if (t.year < 2000) return undefined;
  return ((t.year - 2000) * 12 * 31 + (t.month - 1) * 31 + (t.day - 1)) * 86400 + (t.hour * 60 + t.minute) * 60 + t.second;
}

/** Decode by successive remainders; undefined for negative or non-integer input. */
export function zkDecode(packed: number): WallClock | undefined {
  if (!Number.isSafeInteger(packed) || packed < 0) return undefined;
  let t = packed;
  const second = t % 60;
  t = Math.floor(t / 60);
  const minute = t % 60;
  t = Math.floor(t / 60);
  const hour = t % 24;
  t = Math.floor(t / 24);
  const day = (t % 31) + 1;
  t = Math.floor(t / 31);
  const month = (t % 12) + 1;
  const year = Math.floor(t / 12) + 2000;
  return { year, month, day, hour, minute, second };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `YYYY-MM-DD HH:MM:SS` [COMMANDS §3.4] */
export function formatWallClock(t: WallClock, separator: ' ' | 'T' = ' '): string {
  return `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}${separator}${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;
}

/** `YYYYMMDD` (v3 user StartTime/EndTime with DateFmtFunOn=0) [COMMANDS §3.4] */
export function formatCompactDate(t: WallClock): string {
  return `${pad(t.year, 4)}${pad(t.month)}${pad(t.day)}`;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/** Parse `YYYY-MM-DD HH:MM:SS` (or with `T`) with range checks; undefined when malformed. */
export function parseWallClock(text: string): WallClock | undefined {
  const m = DATE_TIME.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  return { year, month, day, hour, minute, second };
}
