/** Flag readers for the CLI: typed, with the same messages whatever parsed the flags (commander or parseArgs). */
import { parseArgs } from 'node:util';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;
export type FlagValues = Readonly<Record<string, string | boolean | undefined>>;
export type Flags = ReturnType<typeof flagReader>;

/** `expires-in` → `expiresIn`, the key commander stores a flag under. */
const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Typed readers over parsed flag values, keyed by flag name (`expires-in`) or its camelCase form. */
export function flagReader(values: FlagValues, positionals: readonly string[] = []) {
  const raw = (name: string) => values[name] ?? values[camel(name)];
  return {
    positionals,
    has: (name: string) => raw(name) !== undefined,
    flag: (name: string) => raw(name) === true,
    string(name: string, required = false): string | undefined {
      const v = raw(name);
      if (v === undefined || v === '') {
        if (required) throw new UsageError(`--${name} is required`);
        return undefined;
      }
      return String(v);
    },
    /** `--name on|off` → true/false; undefined when absent. */
    onOff(name: string): boolean | undefined {
      const v = this.string(name);
      if (v === undefined) return undefined;
      if (v !== 'on' && v !== 'off') throw new UsageError(`--${name} must be on or off, got "${v}"`);
      return v === 'on';
    },
    int(name: string, opts: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
      const v = this.string(name, opts.required ?? false);
      if (v === undefined) return undefined;
      if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, got "${v}"`);
      const n = Number(v);
      if ((opts.min !== undefined && n < opts.min) || (opts.max !== undefined && n > opts.max)) {
        throw new UsageError(`--${name} must be between ${opts.min ?? 0} and ${opts.max ?? Number.MAX_SAFE_INTEGER}, got ${n}`);
      }
      return n;
    },
  };
}

/** Strict parsing of a raw argv (unknown flags are errors), for commands that read their own arguments. */
export function parseFlags(argv: readonly string[], spec: FlagSpec, positionals = 0): Flags {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: spec, strict: true, allowPositionals: positionals > 0 });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument "${parsed.positionals[positionals] ?? ''}"`);
  return flagReader(parsed.values as FlagValues, parsed.positionals);
}

/** A serial number as the API accepts it. */
export function serialFlag(f: Flags): string {
  const sn = f.string('sn', true) as string;
  if (!/^[\x21-\x7e]{1,64}$/.test(sn) || /[/<%]/.test(sn))
    throw new UsageError('--sn must be 1-64 printable ASCII characters without space, /, < or %');
  return sn;
}
