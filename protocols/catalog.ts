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
import { Type, type TSchema } from 'typebox';

export const PRESET_IDS = [
  'reboot',
  'info',
  'check',
  'reload-options',
  'door-open',
  'door-close',
  'door-lock',
  'door-unlock',
  'normal-open',
  'cancel-alarm',
  'clear-alarm',
  'emergency-on',
  'emergency-off',
  'load-users',
  'sync-users',
  'enroll-biometric',
  'check-attendance',
  'clear-log',
  'clear-photo',
  'clear-biodata',
  'clear-data',
  'firmware-upgrade',
  'shell-command',
  'custom',
] as const;
export type PresetId = (typeof PRESET_IDS)[number];
export type ProtocolMajor = 2 | 3;

export interface PresetSpec {
  readonly id: PresetId;
  readonly aliases: readonly string[];
  /** The SERVICE-SPEC catalog tag. The wire form per version is decided by the codecs ([COMMANDS §2.2]). */
  readonly versions: readonly ProtocolMajor[];
  readonly params: TSchema;
  /** false → params must be null, omitted or `{}`. */
  readonly hasParams: boolean;
  /** risky presets need a `full` token (API-CONTRACT §4). */
  readonly risk: 'normal' | 'risky';
  /** door/alarm presets: default expiry 60 s (API-CONTRACT §5 Commands "Expiry"). */
  readonly door: boolean;
  /** Result timeout overriding the runtime default, in seconds. */
  readonly resultTimeoutS?: number;
  readonly description: string;
}

/** Longest raw command BioGate sends, in bytes of UTF-8 ([COMMANDS §4.24]). */
export const CUSTOM_MAX_BYTES = 16 * 1024;
/** Largest PIN the API accepts (SERVICE-SPEC "Command parameters"). */
export const PIN_MAX = 99_999_999;
/** [COMMANDS §3.3] rejection text for door-open durations outside 1–254. */
export const DURATION_MESSAGE = 'duration must be 1-254 seconds (use normal-open to latch)';

const DOOR_EXPIRY_S = 60;
const DEFAULT_EXPIRY_S = 86_400;

const none = (): TSchema => Type.Object({}, { additionalProperties: false });
const nullable = (schema: TSchema): TSchema => Type.Optional(Type.Union([schema, Type.Null()], { default: null }));
const pin = (): TSchema => Type.Integer({ minimum: 1, maximum: PIN_MAX, description: 'User PIN, 1 to 99999999' });
const userId = (): TSchema => Type.Integer({ minimum: 1, description: 'Database user ID' });
const date = (what: string): TSchema =>
  Type.String({ format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: `${what} (YYYY-MM-DD, location time zone)` });
// [COMMANDS §1] one record per command: no CR, LF or NUL inside a command.
const ONE_LINE = '[^\\r\\n\\u0000]+';
const commandText = (description: string, pattern: string): TSchema =>
  Type.String({ minLength: 1, maxLength: CUSTOM_MAX_BYTES, pattern, description });

export const CATALOG: readonly PresetSpec[] = [
  {
    id: 'reboot',
    aliases: ['restart'],
    versions: [2, 3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: false,
    description: 'Restart the device',
  },
  {
    id: 'info',
    aliases: [],
    versions: [2, 3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: false,
    description: 'Fetch options, system metrics, firmware versions and serial number options',
  },
  {
    id: 'check',
    aliases: [],
    versions: [2, 3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: false,
    description: 'Connectivity check and ping status',
  },
  {
    id: 'reload-options',
    aliases: [],
    versions: [2, 3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: false,
    description: 'Device reloads stored configuration and options (no Security PUSH wire form)',
  },
  {
    id: 'door-open',
    aliases: [],
    versions: [3],
    hasParams: true,
    risk: 'normal',
    door: true,
    params: Type.Object(
      {
        door_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 4, default: 1, description: 'Relay index 1 to 4' })),
        // [COMMANDS §3.3] 00 = close and FF = latch are other presets, so 1–254 only
        duration: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 254, default: 5, description: 'Unlock seconds, 1 to 254', errorMessage: DURATION_MESSAGE }),
        ),
      },
      { additionalProperties: false },
    ),
    description: 'Unlock door relay for a duration',
  },
  {
    id: 'door-close',
    aliases: [],
    versions: [3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: true,
    description: 'Close the active door relay',
  },
  {
    id: 'door-lock',
    aliases: [],
    versions: [3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: true,
    description: 'Force lock the door relay',
  },
  {
    id: 'door-unlock',
    aliases: [],
    versions: [2, 3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: true,
    description: 'Unlock door relay',
  },
  {
    id: 'normal-open',
    aliases: [],
    versions: [3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: true,
    description: 'Passage mode (unlocked)',
  },
  {
    id: 'cancel-alarm',
    aliases: [],
    versions: [3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: true,
    description: 'Cancel tamper or breach alarm',
  },
  {
    id: 'clear-alarm',
    aliases: [],
    versions: [2, 3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: true,
    description: 'Reset alarm state',
  },
  {
    id: 'emergency-on',
    aliases: [],
    versions: [3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: true,
    description: 'Emergency mode (doors unlocked)',
  },
  {
    id: 'emergency-off',
    aliases: [],
    versions: [3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: true,
    description: 'Release emergency mode (no documented wire form; always fails)',
  },
  {
    id: 'load-users',
    aliases: [],
    versions: [2, 3],
    hasParams: true,
    risk: 'normal',
    door: false,
    params: Type.Object({ user_id: nullable(userId()), pin: nullable(pin()) }, { additionalProperties: false }),
    description: 'Fetch users from the device to the server (one user by pin or user_id, else all)',
  },
  {
    id: 'sync-users',
    aliases: [],
    versions: [2, 3],
    params: none(),
    hasParams: false,
    risk: 'normal',
    door: false,
    description: 'Push pending users from the server to the device',
  },
  {
    id: 'enroll-biometric',
    aliases: [],
    versions: [2, 3],
    hasParams: true,
    risk: 'normal',
    door: false,
    resultTimeoutS: 600,
    params: Type.Object(
      {
        pin: pin(),
        user_id: userId(),
        type: Type.Optional(
          Type.Union([Type.Literal('fingerprint'), Type.Literal('face')], { default: 'fingerprint', description: 'fingerprint or face' }),
        ),
        // [COMMANDS §3.9] fid passes to the wire unchanged; 111 = face
        fid: Type.Optional(
          Type.Union([Type.Integer({ minimum: 0, maximum: 9 }), Type.Literal(111)], {
            default: 0,
            description: 'Finger position 0 to 9, or 111 for face',
          }),
        ),
        retry: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, default: 3, description: 'Capture attempts, 1 to 3' })),
        overwrite: Type.Optional(
          Type.Union([Type.Literal(0), Type.Literal(1)], { default: 1, description: '1 overwrite an existing template, 0 keep it' }),
        ),
      },
      { additionalProperties: false },
    ),
    description: 'Start remote fingerprint or face enrollment (the person must be at the device)',
  },
  {
    id: 'check-attendance',
    aliases: [],
    versions: [2, 3],
    hasParams: true,
    risk: 'normal',
    door: false,
    params: Type.Object({ startDate: nullable(date('First day')), endDate: nullable(date('Last day')) }, { additionalProperties: false }),
    description: 'Fetch attendance logs from the device, optionally within a date window',
  },
  {
    id: 'clear-log',
    aliases: [],
    versions: [2, 3],
    params: none(),
    hasParams: false,
    risk: 'risky',
    door: false,
    description: 'Destructive: delete attendance logs on the device',
  },
  {
    id: 'clear-photo',
    aliases: [],
    versions: [2, 3],
    params: none(),
    hasParams: false,
    risk: 'risky',
    door: false,
    description: 'Destructive: delete attendance photos on the device (no Security PUSH wire form)',
  },
  {
    id: 'clear-biodata',
    aliases: [],
    versions: [2, 3],
    params: none(),
    hasParams: false,
    risk: 'risky',
    door: false,
    description: 'Destructive: delete fingerprint and face templates on the device',
  },
  {
    id: 'clear-data',
    aliases: [],
    versions: [2, 3],
    params: none(),
    hasParams: false,
    risk: 'risky',
    door: false,
    description: 'Destructive: delete all data on the device (users, templates, logs)',
  },
  {
    id: 'firmware-upgrade',
    aliases: [],
    versions: [2, 3],
    hasParams: true,
    risk: 'risky',
    door: false,
    params: Type.Object(
      {
        url: Type.String({ minLength: 9, maxLength: 2048, pattern: '^https://[^\\s,]+$', description: 'HTTPS download URL' }),
        checksum: Type.String({ pattern: '^[0-9a-fA-F]{32}$', description: 'MD5 hash of the file' }),
        size: Type.Integer({ minimum: 1, description: 'Size in bytes' }),
      },
      { additionalProperties: false },
    ),
    description: 'Flash firmware from a download URL',
  },
  {
    id: 'shell-command',
    aliases: [],
    versions: [2, 3],
    hasParams: true,
    risk: 'risky',
    door: false,
    params: Type.Object({ command: commandText('Shell command string', `^${ONE_LINE}$`) }, { additionalProperties: false }),
    description: 'Run a shell command string on the device (no Security PUSH wire form)',
  },
  {
    id: 'custom',
    aliases: [],
    versions: [2, 3],
    hasParams: true,
    risk: 'risky',
    door: false,
    // [COMMANDS §4.24] the gateway adds the `C:<id>:` framing itself
    params: Type.Object(
      { command: commandText('Raw device push protocol command string', `^(?![Cc]:)${ONE_LINE}$`) },
      { additionalProperties: false },
    ),
    description: 'Send a raw device push protocol command string',
  },
];

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
