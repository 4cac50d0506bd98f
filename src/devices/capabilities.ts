/**
 * Capability learning [COMMANDS §2.6]: per device and command word (per table for DATA commands),
 * "unsupported" after the dialect's refusal codes, "supported" after any Return ≥ 0; forgotten when
 * the firmware version changes. Pure functions over DeviceState; the actor persists the result.
 */
import type { Capability } from '../../protocols/index.js';
import type { DeviceState } from '../store/ports/index.js';

/** The code that taught "unsupported" for this key, if any. */
export function learnedRefusal(state: DeviceState | null, key: string): number | undefined {
  return state?.unsupported?.[key];
}

/** The state after a result taught `capability` for `key`; the same object when nothing changed. */
export function learn(state: DeviceState | null, key: string, capability: Capability, code: number): DeviceState | null {
  const unsupported = state?.unsupported ?? {};
  if (capability === 'unsupported' && unsupported[key] !== code) return { ...state, unsupported: { ...unsupported, [key]: code } };
  if (capability === 'supported' && key in unsupported) {
    const { [key]: _forgotten, ...rest } = unsupported;
    return { ...state, unsupported: rest };
  }
  return state;
}

/** Option keys carrying the firmware version [PUSH-v2 §5.2, PUSH-v3 §3.1]. */
const FIRMWARE_KEYS = ['FWVersion', 'FirmVer'] as const;

/** The state once `options` are known: a new firmware version forgets what was learned. */
export function withFirmware(state: DeviceState | null, options: Readonly<Record<string, string>>): DeviceState | null {
  const firmware = FIRMWARE_KEYS.map((k) => options[k]).find((v) => v !== undefined && v !== '');
  if (firmware === undefined || firmware === state?.firmware) return state;
  const { unsupported: _forgotten, ...rest } = state ?? {};
  return { ...rest, firmware };
}
