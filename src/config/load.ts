/**
 * Builds the frozen Config from defaults, an optional JSON file and the
 * environment (environment wins), reporting every problem at once.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { Compile } from 'typebox/compile';
import { ConfigSchema, SETTINGS, type Config, type SettingKey } from './schema.js';
import { issuesFrom } from '../validation/schema.js';
import { parseCidrList } from '../net/cidr.js';

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const checker = Compile(ConfigSchema);

/** Turns an environment string into the setting's JSON type; reports what it cannot read. */
function fromEnv(key: SettingKey, raw: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const schema = SETTINGS[key].schema as { type?: string; anyOf?: { type?: string }[] };
  const types = schema.anyOf ? schema.anyOf.map((s) => s.type) : [schema.type];
  if (raw === '' && types.includes('null')) return { ok: true, value: null };
  if (types.includes('integer') || types.includes('number')) {
    // Plain decimal only: Number() would also take "0x1F90", "1e3" or "Infinity".
    if (!/^-?\d+(\.\d+)?$/.test(raw.trim())) return { ok: false, problem: `${SETTINGS[key].meta.env}: "${raw}" is not a number` };
    return { ok: true, value: Number(raw.trim()) };
  }
  return { ok: true, value: raw };
}

export interface LoadOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Path of a JSON file with settings by their config key (e.g. {"port": 9000}); `BIOGATE_CONFIG` also names one. */
  readonly file?: string;
  /** Explicit values that win over everything (used by tests and the CLI). */
  readonly overrides?: Partial<Record<SettingKey, unknown>>;
}

/** Where a setting's value came from: its default, the BIOGATE_CONFIG file, the environment, or the caller. */
export type SettingSource = 'default' | 'file' | 'environment' | 'override';

export function loadConfig(options: LoadOptions = {}): Config {
  return loadConfigWithSources(options).config;
}

/** The config and, per setting, where its value came from (`biogate config` shows both). */
export function loadConfigWithSources(options: LoadOptions = {}): { config: Config; sources: Record<SettingKey, SettingSource> } {
  const env = options.env ?? process.env;
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  const sources = {} as Record<SettingKey, SettingSource>;
  for (const [key, s] of Object.entries(SETTINGS)) {
    values[key] = structuredClone((s.schema as { default?: unknown }).default);
    sources[key as SettingKey] = 'default';
  }

  const file = options.file ?? env['BIOGATE_CONFIG'];
  if (file) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) problems.push(`${file}: must hold a JSON object`);
      else {
        Object.assign(values, parsed);
        for (const key of Object.keys(parsed)) if (key in SETTINGS) sources[key as SettingKey] = 'file';
      }
    } catch (err) {
      problems.push(`${file}: ${(err as Error).message}`);
    }
  }

  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const raw = env[SETTINGS[key].meta.env];
    if (raw === undefined) continue;
    const converted = fromEnv(key, raw);
    if (converted.ok) values[key] = converted.value;
    else problems.push(converted.problem);
    sources[key] = 'environment';
  }
  Object.assign(values, options.overrides ?? {});
  for (const key of Object.keys(options.overrides ?? {})) sources[key as SettingKey] = 'override';

  for (const issue of issuesFrom(checker, values, [])) {
    const key = issue.loc[0];
    const name = typeof key === 'string' && key in SETTINGS ? SETTINGS[key as SettingKey].meta.env : String(key ?? 'config');
    problems.push(`${name}: ${issue.msg}`);
  }
  if (typeof values['trustedProxies'] === 'string') {
    for (const entry of parseCidrList(values['trustedProxies']).invalid)
      problems.push(`BIOGATE_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR`);
  }
  if (values['tlsCert'] && !values['tlsKey']) problems.push('BIOGATE_TLS_KEY: required when BIOGATE_TLS_CERT is set');
  if (values['tlsKey'] && !values['tlsCert']) problems.push('BIOGATE_TLS_CERT: required when BIOGATE_TLS_KEY is set');
  for (const key of ['tlsCert', 'tlsKey'] as const) {
    const path = values[key];
    if (typeof path !== 'string' || path === '') continue;
    try {
      accessSync(path, constants.R_OK);
    } catch (err) {
      problems.push(`${SETTINGS[key].meta.env}: cannot read "${path}" (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { config: Object.freeze(values) as Config, sources };
}

/** `scheme://user:password@…` → `scheme://user:***@…` (BIOGATE_STORE, BIOGATE_MQTT); anything else as it is. */
export function maskUrlPassword(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*):[^@]*@/i, '$1:***@');
}

/** Config as printable text, secrets masked: secret settings as `(set)`, passwords inside URLs as `***`. */
export function describeConfig(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const meta: { secret?: boolean } = SETTINGS[key].meta;
    const value: unknown = config[key];
    out[key] = meta.secret && value !== null ? '(set)' : typeof value === 'string' ? maskUrlPassword(value) : value;
  }
  return out;
}
