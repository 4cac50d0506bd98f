// [COMMANDS §2.4] presets with no wire form on a dialect fail at once with this exact error_message.
import type { PresetId, ProtocolMajor } from './catalog.js';
import type { EncodeFailure } from './commands.js';

const DIALECT: Readonly<Record<ProtocolMajor, string>> = {
  2: 'Attendance PUSH (v2)',
  3: 'Security PUSH (v3)',
};

export type NoWireFormV2 = 'door-open' | 'door-close' | 'door-lock' | 'normal-open' | 'cancel-alarm' | 'emergency-on' | 'emergency-off';
export type NoWireFormV3 = 'emergency-off' | 'reload-options' | 'clear-photo' | 'shell-command';

const EMERGENCY_V2 = 'attendance terminals have no emergency mode';

/** `${reason}` per dialect and preset, verbatim from the table. */
export const NO_WIRE_FORM: {
  readonly 2: Readonly<Record<NoWireFormV2, string>>;
  readonly 3: Readonly<Record<NoWireFormV3, string>>;
} = {
  2: {
    'door-open': 'the protocol cannot address a door or a duration; use door-unlock',
    'door-close': 'attendance terminals have no door-close command',
    'door-lock': 'attendance terminals have no lock-down command',
    'normal-open': 'attendance terminals cannot latch the door open',
    'cancel-alarm': 'the protocol has no per-door alarm command; use clear-alarm',
    'emergency-on': EMERGENCY_V2,
    'emergency-off': EMERGENCY_V2,
  },
  3: {
    'emergency-off':
      'the protocol documents no operation that ends emergency mode (07 02 is an emergency lock-down, not a release); use door-close per door or reboot',
    'reload-options': 'the protocol has no reload-options command',
    'clear-photo': 'the protocol has no command that deletes attendance photos',
    'shell-command': 'the protocol has no shell command',
  },
};

const failure = (preset: PresetId, major: ProtocolMajor, reason: string): EncodeFailure => ({
  ok: false,
  code: 'unsupported',
  reason: `${preset} is not supported on ${DIALECT[major]} devices: ${reason}`,
});

/** `${preset} is not supported on Attendance PUSH (v2) devices: ${reason}` */
export const noWireFormV2 = (preset: NoWireFormV2): EncodeFailure => failure(preset, 2, NO_WIRE_FORM[2][preset]);

/** `${preset} is not supported on Security PUSH (v3) devices: ${reason}` */
export const noWireFormV3 = (preset: NoWireFormV3): EncodeFailure => failure(preset, 3, NO_WIRE_FORM[3][preset]);

/** A capability this device lacks (face enrollment without face support, a template type it does not take). */
export function deviceLacks(what: PresetId, major: ProtocolMajor, reason: string): EncodeFailure {
  return { ok: false, code: 'unsupported', reason: `${what} is not supported on this ${DIALECT[major]} device: ${reason}` };
}

/** [COMMANDS §4.15] sync-users is expanded by the runtime. */
export const SYNC_USERS_COMPOSITE: EncodeFailure = {
  ok: false,
  code: 'composite',
  reason: 'sync-users has no wire form of its own: it is expanded into per-user sync operations (COMMANDS §5)',
};
