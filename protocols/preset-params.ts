// Preset parameters as the encoders see them: validated against the catalog schema, catalog defaults
// applied [API-CONTRACT §5 Commands]. The API validates before queueing; the encoders validate again
// because commands are rendered at dispatch time from stored data.
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { CATALOG, DURATION_MESSAGE, type PresetId } from './catalog.js';
import type { EncodeFailure, PresetCommand } from './commands.js';

export interface DoorOpenParams {
  readonly door_id: number;
  readonly duration: number;
}
export interface LoadUsersParams {
  readonly pin: number | null;
  readonly user_id: number | null;
}
export interface EnrollParams {
  readonly pin: number;
  readonly user_id: number;
  readonly type: 'fingerprint' | 'face';
  readonly fid: number;
  readonly retry: number;
  readonly overwrite: 0 | 1;
}
export interface CheckAttendanceParams {
  readonly startDate: string | null;
  readonly endDate: string | null;
}
export interface FirmwareParams {
  readonly url: string;
  readonly checksum: string;
  readonly size: number;
}
export interface CommandTextParams {
  readonly command: string;
}

type Checker = ReturnType<typeof Compile>;
const checkers = new Map<PresetId, Checker>();
for (const spec of CATALOG) checkers.set(spec.id, Compile(spec.params));

export const invalid = (reason: string): EncodeFailure => ({ ok: false, code: 'invalid', reason });

/** A preset command whose params passed the catalog schema, with catalog defaults applied. */
export interface ValidCommand {
  readonly preset: PresetId;
  /** the defaulted params; read them with the interface of the preset (DoorOpenParams …) */
  readonly params: unknown;
}

/** Params with defaults applied, or the failure to report. `null` / omitted params count as `{}`. */
export function presetParams<T>(preset: PresetId, params: unknown): T | EncodeFailure {
  const spec = CATALOG.find((s) => s.id === preset);
  const checker = checkers.get(preset);
  if (spec === undefined || checker === undefined) return invalid(`unknown preset ${String(preset)}`);
  const value: unknown = Value.Default(spec.params, Value.Clone(params ?? {}));
  if (checker.Check(value)) return value as T;
  const errors = checker.Errors(value);
  // [COMMANDS §3.3] the exact door-open duration message
  if (preset === 'door-open' && errors.some((e) => e.instancePath === '/duration')) return invalid(DURATION_MESSAGE);
  // the first error is the most specific one (a union's member error comes before the union's own)
  return invalid(
    `invalid params for ${preset}: ${errors
      .slice(0, 1)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('')}`,
  );
}

/** Validate a stored command once, before any encoder sees it. */
export function validCommand(command: PresetCommand): ValidCommand | EncodeFailure {
  const params = presetParams<unknown>(command.preset, command.params);
  return isFailure(params) ? params : { preset: command.preset, params };
}

export const isFailure = (value: unknown): value is EncodeFailure =>
  typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === false;
