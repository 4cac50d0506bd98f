// Building blocks of the presets' parameter schemas. Every parameter that has a catalog default is
// `Type.Optional` with a `default:` annotation, so `Value.Default(schema, params)` fills it.
import { Type, type TSchema } from 'typebox';
import { CUSTOM_MAX_BYTES, PIN_MAX, type PresetId, type PresetSpec, type ProtocolMajor } from './preset-spec.js';

export const none = (): TSchema => Type.Object({}, { additionalProperties: false });
export const nullable = (schema: TSchema): TSchema => Type.Optional(Type.Union([schema, Type.Null()], { default: null }));
export const pin = (): TSchema => Type.Integer({ minimum: 1, maximum: PIN_MAX, description: 'User PIN, 1 to 99999999' });
export const userId = (): TSchema => Type.Integer({ minimum: 1, description: 'Database user ID' });
export const date = (what: string): TSchema =>
  Type.String({ format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: `${what} (YYYY-MM-DD, location time zone)` });
// [COMMANDS §1] one record per command: no CR, LF or NUL inside a command.
export const ONE_LINE = '[^\\r\\n\\u0000]+';
export const commandText = (description: string, pattern: string): TSchema =>
  Type.String({ minLength: 1, maxLength: CUSTOM_MAX_BYTES, pattern, description });

/** What a preset differs in from the common case: both versions, no aliases, normal risk, not a door preset. */
interface PresetTraits {
  readonly versions?: readonly ProtocolMajor[];
  readonly aliases?: readonly string[];
  readonly risk?: PresetSpec['risk'];
  readonly door?: boolean;
  readonly resultTimeoutS?: number;
}

/** A catalog entry: `params` null for a preset that takes none (its body must be null, omitted or `{}`). */
export function preset(id: PresetId, description: string, params: TSchema | null, traits: PresetTraits = {}): PresetSpec {
  const { versions = [2, 3], aliases = [], risk = 'normal', door = false, resultTimeoutS } = traits;
  const spec = { id, aliases, versions, params: params ?? none(), hasParams: params !== null, risk, door, description };
  return resultTimeoutS === undefined ? spec : { ...spec, resultTimeoutS };
}
