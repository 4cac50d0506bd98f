// The one table of command presets (DESIGN.md "Catalog"). The REST API, the OpenAPI document, the
// codecs and the simulator's expectations read it; nothing else lists presets.
//
// Sources: SERVICE-SPEC.md "Command catalog" / "Command parameters", API-CONTRACT.md §4 (risk scopes)
// and §5 Commands (defaults, expiry), COMMANDS.md §3–§4 (constraints, wire meaning).
//
// Params schemas: every parameter that has a catalog default is `Type.Optional` with a `default:`
// annotation, so `Value.Default(schema, params)` fills it and a body that omits it validates. A schema
// may carry an `errorMessage` annotation: the exact text the API reports when that field fails
// validation (door-open `duration`, [COMMANDS §3.3]).
//
// The presets themselves are in control-presets.ts and data-presets.ts, their shape in preset-spec.ts.
import type { TSchema } from 'typebox';
import { CONTROL_PRESETS } from './control-presets.js';
import { DATA_PRESETS } from './data-presets.js';
import type { PresetId, PresetSpec } from './preset-spec.js';

export { CUSTOM_MAX_BYTES, DURATION_MESSAGE, PIN_MAX, PRESET_IDS } from './preset-spec.js';
export type { PresetId, PresetSpec, ProtocolMajor } from './preset-spec.js';

const DOOR_EXPIRY_S = 60;
const DEFAULT_EXPIRY_S = 86_400;

export const CATALOG: readonly PresetSpec[] = [...CONTROL_PRESETS, ...DATA_PRESETS];

const byName = new Map<string, PresetSpec>();
for (const spec of CATALOG) {
  byName.set(spec.id, spec);
  for (const alias of spec.aliases) byName.set(alias, spec);
}

/** Exact lower-case identifier or alias; anything else (including other case) is not a preset. */
export function findPreset(idOrAlias: string): PresetSpec | undefined {
  return byName.get(idOrAlias);
}

export function paramsSchemaFor(id: PresetId): TSchema {
  const spec = byName.get(id);
  if (spec === undefined) throw new RangeError(`unknown preset ${id}`);
  return spec.params;
}

/** API-CONTRACT §5 Commands "Expiry": 60 s for door presets, 86,400 s otherwise. */
export function defaultExpirySeconds(spec: PresetSpec): number {
  return spec.door ? DOOR_EXPIRY_S : DEFAULT_EXPIRY_S;
}
