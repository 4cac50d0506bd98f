/** Session helpers shared by the actor and result handling. */

/** Option keys that carry secrets: never stored or returned [API-CONTRACT §6]. */
const SECRET_KEY = /comm?key|authkey|passw(or)?d|pwd|secret/i;

export function sanitizeOptions(values: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([k]) => !SECRET_KEY.test(k)));
}

/** Bounds of a terminal's stored options: whatever is uploaded, the stored map never exceeds them. */
export interface OptionLimits {
  /** Most keys. */
  readonly keys: number;
  /** Longest value, in UTF-8 bytes. */
  readonly valueBytes: number;
  /** Most bytes of the stored map as JSON (UTF-8), as the store and the API hold it. */
  readonly totalBytes: number;
}

/** An assigned terminal: 512 keys, 1 KiB a value, 64 KiB in all. */
export const ASSIGNED_OPTION_LIMITS: OptionLimits = { keys: 512, valueBytes: 1024, totalBytes: 64 * 1024 };
/** A serial no location holds (anyone may invent one): 4 KiB in all. */
export const UNASSIGNED_OPTION_LIMITS: OptionLimits = { ...ASSIGNED_OPTION_LIMITS, totalBytes: 4 * 1024 };
/** Longest option key, in UTF-8 bytes (real keys are a few dozen characters). */
const MAX_KEY_BYTES = 128;

export function optionLimitsFor(locationId: number | null | undefined): OptionLimits {
  return locationId === null || locationId === undefined ? UNASSIGNED_OPTION_LIMITS : ASSIGNED_OPTION_LIMITS;
}

export interface OptionsMerge {
  /** The map to store: within the limits whenever `current` was. */
  readonly options: Record<string, string>;
  /** The keys whose stored value this merge set or changed. */
  readonly changed: Record<string, string>;
  /** Keys of `incoming` left out: secret, too long, or beyond the limits. */
  readonly dropped: number;
}

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
/** What one entry adds to the map's JSON: `"key":"value",` with JSON escapes. */
const entryBytes = (key: string, value: string): number => bytes(JSON.stringify(key)) + bytes(JSON.stringify(value)) + 2;

/**
 * `incoming` merged over `current` within `limits`: keys already stored are kept (and may change
 * value within the value bound and the total), new keys are added in upload order while they fit,
 * secrets are never stored. A `current` beyond the limits (stored before they held) is cut to them first.
 */
export function mergeOptions(
  current: Readonly<Record<string, string>> | null | undefined,
  incoming: Readonly<Record<string, string>>,
  limits: OptionLimits,
): OptionsMerge {
  const stored = new Map<string, string>();
  let total = 2; // the braces
  let dropped = 0;
  const fits = (key: string, value: string, existing: string | undefined): boolean => {
    if (bytes(key) > MAX_KEY_BYTES || bytes(value) > limits.valueBytes) return false;
    if (existing === undefined && stored.size >= limits.keys) return false;
    const delta = entryBytes(key, value) - (existing === undefined ? 0 : entryBytes(key, existing));
    return total + delta <= limits.totalBytes;
  };
  for (const [key, value] of Object.entries(sanitizeOptions(current ?? {}))) {
    if (typeof value !== 'string' || !fits(key, value, undefined)) continue;
    stored.set(key, value);
    total += entryBytes(key, value);
  }
  const changed = new Map<string, string>();
  for (const [key, value] of Object.entries(incoming)) {
    const existing = stored.get(key);
    if (existing === value) continue;
    if (typeof value !== 'string' || !Object.hasOwn(sanitizeOptions({ [key]: value }), key) || !fits(key, value, existing)) {
      dropped++;
      continue;
    }
    stored.set(key, value);
    total += entryBytes(key, value) - (existing === undefined ? 0 : entryBytes(key, existing));
    changed.set(key, value);
  }
  return { options: Object.fromEntries(stored), changed: Object.fromEntries(changed), dropped };
}
