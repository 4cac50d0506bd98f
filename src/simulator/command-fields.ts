// Small readers for command text shared by both dialects.

import { field, parseIntStrict } from './wire-text.js';
import type { FieldList } from './wire-text.js';

/** `WORD rest` → [WORD, rest]; rest is '' when there is no space. */
export function splitWord(text: string): [string, string] {
  const sp = text.indexOf(' ');
  return sp < 0 ? [text, ''] : [text.slice(0, sp), text.slice(sp + 1)];
}

/** PINs are letters and digits, at most 24 characters. A PIN with a space, a TAB or `=` in it is the
 *  usual sign of fields joined with spaces instead of TABs. */
export function isValidPin(pin: string | undefined): pin is string {
  return pin !== undefined && /^[A-Za-z0-9]{1,24}$/.test(pin);
}

/** Integer field: absent or empty → fallback; present but not an integer → NaN. */
export function intField(list: FieldList, key: string, fallback: number): number {
  const raw = field(list, key);
  if (raw === undefined || raw === '') return fallback;
  return parseIntStrict(raw) ?? Number.NaN;
}

/** Optional integer field: absent or empty → undefined; present but not an integer → NaN. */
export function optIntField(list: FieldList, key: string): number | undefined {
  const raw = field(list, key);
  if (raw === undefined || raw === '') return undefined;
  return parseIntStrict(raw) ?? Number.NaN;
}

/** True when any of the values is NaN (an integer field that did not parse). */
export const anyNaN = (...values: Array<number | undefined>): boolean => values.some((v) => Number.isNaN(v));

/** Card number: empty, decimal, or bracketed hex bytes [COMMANDS §3.6]. */
export function isValidCard(card: string): boolean {
  return /^(\d*|\[(?:[0-9A-Fa-f]{2})+\])$/.test(card);
}
