// Device parameter lists [PUSH-v2 §5.2]: `table=options` bodies, `/iclock/registry` bodies
// [PUSH-v3 §3.3], GET OPTIONS answers [PUSH-v3 §10.5] and the parameter lines of an INFO result
// [PUSH-v2 §8.2].
import type { DeviceOptions } from '../events.js';

export interface ParsedOptions {
  readonly options: DeviceOptions;
  /** fragments that could not be attached to any key */
  readonly rejected: readonly string[];
}

/**
 * 1. CR LF → LF, LF is a separator too; 2. split on `,`; 3. a fragment without `=` continues the previous
 * value, with its separator restored (`~OEMVendor=ZKTECO CO., LTD.`); 4. split at the first `=`, keep the
 * value untrimmed; 5. strip `~` from the key and remember the spelling; 6. empty values are kept.
 * A later duplicate key overwrites the earlier one (latest wins, [PUSH-v3 §6.3]).
 */
export function parseOptions(text: string): ParsedOptions {
  const values: Record<string, string> = Object.create(null) as Record<string, string>;
  const keys: Record<string, string> = Object.create(null) as Record<string, string>;
  const rejected: string[] = [];
  const normalised = text.replace(/\r\n?/g, '\n');
  let last: string | undefined;
  let start = 0;
  let separator = '';
  for (let i = 0; i <= normalised.length; i++) {
    const ch = normalised[i];
    if (ch !== undefined && ch !== ',' && ch !== '\n') continue;
    const fragment = normalised.slice(start, i);
    const before = separator;
    separator = ch ?? '';
    start = i + 1;
    const eq = fragment.indexOf('=');
    const key = eq > 0 ? fragment.slice(0, eq).trim() : '';
    if (key === '' || key === '~') {
      // [PUSH-v2 §5.2 rule 3] a fragment without a key belongs to the previous value
      if (fragment.trim() === '') continue;
      if (last !== undefined) values[last] = `${values[last] as string}${before}${fragment}`;
      else rejected.push(fragment);
      continue;
    }
    const bare = key.startsWith('~') ? key.slice(1) : key;
    values[bare] = fragment.slice(eq + 1);
    keys[bare] = key;
    last = bare;
  }
  return { options: { values, keys }, rejected };
}

/** Case-insensitive lookup of a parameter in a stored options map (keys with or without `~`). */
export function optionValue(options: Readonly<Record<string, string>>, name: string): string | undefined {
  const direct = options[name] ?? options[`~${name}`];
  if (direct !== undefined) return direct;
  const wanted = name.toLowerCase();
  for (const key of Object.keys(options)) {
    const bare = key.startsWith('~') ? key.slice(1) : key;
    if (bare.toLowerCase() === wanted) return options[key];
  }
  return undefined;
}
