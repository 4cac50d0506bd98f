// `Key=Value` fields [PUSH-v2 §2.5]: keys case-insensitive (stored lower-cased), split at the first `=`
// only (base64 padding), first occurrence wins.

export type KeyValues = Readonly<Record<string, string>>;

/**
 * Pairs from already split fields. In space-separated mode a fragment without `=` continues the previous
 * value (a name or a time containing a space, [PUSH-v2 §2.4]); in TAB mode a bare token is ignored.
 */
export function parseKeyValues(fields: readonly string[], spaced: boolean): KeyValues {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  let last: string | undefined;
  for (const field of fields) {
    const eq = field.indexOf('=');
    if (eq <= 0) {
      if (spaced && last !== undefined) out[last] = `${out[last] as string} ${field}`;
      continue;
    }
    const key = field.slice(0, eq).trim().toLowerCase();
    if (key in out) {
      last = undefined;
      continue;
    }
    out[key] = field.slice(eq + 1);
    last = key;
  }
  return out;
}

/** First value present among `keys` (lower-case aliases), else undefined. */
export function pick(kv: KeyValues, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = kv[key];
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The pairs whose keys are not in `known`, for `extra` maps. */
export function rest(kv: KeyValues, known: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const key of Object.keys(kv)) if (!known.has(key)) out[key] = kv[key] as string;
  return out;
}
