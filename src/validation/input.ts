/**
 * Guards on input from any door (REST bodies and queries, MQTT requests, CLI flags and files):
 * bounded JSON depth, validation with every problem listed in one 422 [API-CONTRACT §3], and real
 * calendar dates.
 */
import type { TSchema } from 'typebox';
import { BioGateError } from '../errors.js';
import { compiled, issuesFrom } from './schema.js';

/**
 * Deepest nesting of arrays/objects an API body may have. Real bodies need under 10
 * levels; a hostile one 100,000 levels deep would later overflow the stack of every
 * recursive walk (validation, structuredClone, JSON.stringify of the answer).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text nests `[`/`{` deeper than `max`, found by one iterative pass over
 * the bytes (no recursion, so any depth is safe), skipping string contents. Bytes of UTF-8
 * multi-byte characters are all >= 0x80, so they never look like brackets or quotes.
 * Malformed text is left for JSON.parse to reject.
 */
export function jsonDepthExceeds(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (inString) {
      if (b === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > max) return true;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return false;
}

/** Validates and returns the value with schema defaults applied; throws one 422 listing every issue. */
export function check<T>(schema: TSchema, value: unknown, root: 'body' | 'query' | 'path'): T {
  const v = compiled(schema);
  // Defaults first: a field that is "required, default 1" is satisfied by its default.
  const withDefaults = value !== null && typeof value === 'object' ? v.Default(structuredClone(value)) : value;
  const issues = issuesFrom(v, withDefaults, [root]);
  if (issues.length > 0) throw new BioGateError('VALIDATION_FAILED', issues);
  return withDefaults as T;
}

/**
 * Whether `YYYY-MM-DD` is a day of the calendar. JavaScript's Date rolls impossible days
 * over (2026-02-30 becomes March 2), so a parse alone does not tell.
 */
/**
 * A real proleptic Gregorian date `YYYY-MM-DD` (years 0000-9999, leap years included), as a regex
 * fragment: what isRealDate accepts, stated where a schema pattern can carry it.
 */
export const REAL_DATE_PATTERN =
  '((\\d{2}(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)-02-29|\\d{4}-((0[13578]|1[02])-(0[1-9]|[12]\\d|3[01])|(0[469]|11)-(0[1-9]|[12]\\d|30)|02-(0[1-9]|1\\d|2[0-8])))';

export function isRealDate(ymd: string): boolean {
  const d = new Date(`${ymd}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === ymd;
}

/** An ISO 8601 date or datetime as an instant; undefined when it is not a real one (no rollover). */
export function instantOf(text: string): Date | undefined {
  const d = new Date(text);
  return Number.isNaN(d.getTime()) || !isRealDate(text.slice(0, 10)) ? undefined : d;
}
