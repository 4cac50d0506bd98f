// The shape of a command preset and the limits its parameter schemas share
// (SERVICE-SPEC.md "Command catalog" / "Command parameters", API-CONTRACT.md §4–§5).
import type { TSchema } from 'typebox';

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
