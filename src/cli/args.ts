/** Flag parsing for the CLI: strict (unknown flags are errors), with typed readers. */
import { parseArgs } from 'node:util';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

export function parseFlags(argv: readonly string[], spec: FlagSpec, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: spec, strict: true, allowPositionals: positionals > 0 });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument "${parsed.positionals[positionals] ?? ''}"`);
  const values = parsed.values as Record<string, string | boolean | undefined>;
  return {
    positionals: parsed.positionals,
    has: (name: string) => values[name] !== undefined,
    flag: (name: string) => values[name] === true,
    string(name: string, required = false): string | undefined {
      const v = values[name];
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
