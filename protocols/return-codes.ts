// Return codes of command results: meanings [PUSH-v2 §8.5–§8.6, PUSH-v3 §12], outcome [PUSH-v2 §8.7,
// PUSH-v3 §12 "BioGate mapping"] and capability learning [COMMANDS §2.6, PUSH-v2 §11.2].
import type { PresetId, ProtocolMajor } from './catalog.js';
import type { Capability, CommandOutcome } from './codec.js';
import type { ProtocolVersion } from './commands.js';

/** `'2.0.0'` / `'3.0.0'` or the major number. */
export type Dialect = ProtocolVersion | ProtocolMajor;
export const majorOf = (dialect: Dialect): ProtocolMajor => (dialect === '3.0.0' || dialect === 3 ? 3 : 2);

const NOT_SUPPORTED = 'command not supported by the device';

/** [PUSH-v2 §8.5] general codes (B appendix 1, A table 2.7). */
export const V2_RETURN_CODES: ReadonlyMap<number, string> = new Map([
  [-1, 'parameter error'],
  [-2, 'wrong operation, user-photo size mismatch or file transfer error'],
  [-3, 'read/write error'],
  [-4, 'no matching data'],
  [-5, 'no more space'],
  [-6, 'data not valid'],
  [-9, 'template data size differs from Size'],
  [-10, 'user PIN does not exist on the device'],
  [-11, 'illegal fingerprint template format'],
  [-12, 'illegal fingerprint template'],
  [-22, 'unknown command'],
  [-1001, 'capacity limit reached'],
  [-1002, NOT_SUPPORTED],
  [-1003, 'command execution timeout'],
  [-1004, 'data inconsistent with the device configuration (table not present on this model)'],
  [-1005, 'device busy'],
  [-1006, 'data too long'],
  [-1007, 'memory error'],
  [-1008, 'failed to fetch data from the server'],
]);

/** [PUSH-v2 §8.6] ENROLL_FP / ENROLL_BIO: only 0 is success. */
export const ENROLL_RETURN_CODES: ReadonlyMap<number, string> = new Map([
  [0, 'enrolled'],
  [2, 'the user already has that finger'],
  [4, 'enrollment failed (quality, or the presses did not match)'],
  [5, 'template already exists on the device'],
  [6, 'enrollment cancelled'],
  [7, 'device busy'],
]);

/** [PUSH-v3 §12] (S appendix 1). */
export const V3_RETURN_CODES: ReadonlyMap<number, string> = new Map([
  [-1, 'failed to send the command'],
  [-2, 'no response'],
  [-3, 'insufficient cache'],
  [-4, 'decompression failed'],
  [-5, 'wrong read length'],
  [-6, 'decompressed length mismatch'],
  [-7, 'repeated command'],
  [-8, 'unauthorized connection'],
  [-9, 'CRC check failed'],
  [-10, 'data API parse failure'],
  [-11, 'data parameter error'],
  [-12, 'command execution error'],
  [-13, 'command does not exist'],
  [-14, 'wrong communication password'],
  [-15, 'file write failed'],
  [-16, 'file read failed'],
  [-17, 'file not found'],
  [-18, 'insufficient space'],
  [-19, 'checksum error'],
  [-20, 'received length differs from declared length'],
  [-21, 'platform parameter missing'],
  [-22, 'firmware platform mismatch'],
  [-23, "firmware older than the device's"],
  [-24, 'bad upgrade flag'],
  [-25, 'upgrade file name is not emfw.cfg'],
  [-26, 'fingerprint template length is zero'],
  [-27, 'template PIN not found'],
  [-28, 'door-open refused during a normal-open period'],
  [-100, 'table does not exist'],
  [-101, 'condition field does not exist'],
  [-102, 'field count mismatch'],
  [-103, 'field order mismatch'],
  [-104, 'bad real-time event data'],
  [-105, 'data parse error'],
  [-106, 'data larger than 4 MB'],
  [-107, 'table structure error'],
  [-108, 'invalid OPTIONS'],
  [-201, 'PULL-SDK internal error'],
  [-202, 'PULL-SDK internal error'],
  [-203, 'PULL-SDK internal error'],
  [-206, 'PULL-SDK internal error'],
  [-301, 'PULL-SDK internal error'],
  [-612, 'saving a parameter failed'],
  [-614, 'remote cancel-alarm failed'],
  [-615, 'remote restart failed'],
  [-616, 'remote normal-open enable / cancel failed'],
  [-618, 'bad URL'],
  [-620, 'bad data format'],
  [-621, 'field not supported'],
  [-629, 'bad table name'],
  [-630, 'shell command failed'],
  [-631, 'bad base64 length'],
  [-632, 'bad file name'],
  [-708, 'command not supported by this firmware'],
  [-720, 'upgrade failed'],
  [-725, 'timeout waiting for the result'],
  [-726, 'server HTTP error'],
  [-730, 'no response from the server'],
  [-801, 'bad command format'],
  // [PUSH-v3 §12] the v2 code seen from 3.x terminals
  [-1002, NOT_SUPPORTED],
  [-5000, 'forwarded to a sub-controller, result pending'],
]);

/** Meaning of a Return code for a dialect; `preset` selects the enrollment table. */
export function describeReturnCode(dialect: Dialect, code: number, preset?: PresetId): string {
  const major = majorOf(dialect);
  if (preset === 'enroll-biometric' && code >= 0) return ENROLL_RETURN_CODES.get(code) ?? `unexpected enrollment result ${code}`;
  if (code === 0) return 'success';
  if (code > 0) return `success (${code})`;
  const known = (major === 2 ? V2_RETURN_CODES : V3_RETURN_CODES).get(code);
  if (known !== undefined) return known;
  // [PUSH-v3 §12] −601…−632 and −701…−732 without their own line
  if (major === 3 && ((code <= -601 && code >= -632) || (code <= -701 && code >= -732))) return 'push-internal error';
  return 'unknown error';
}

/**
 * [PUSH-v2 §8.7] ≥ 0 success (enrollment: only 0), < 0 failure with `device returned ${code}: ${meaning}`;
 * [PUSH-v3 §9.1, §12] −5000 from a master controller keeps the command pending.
 */
export function commandOutcome(dialect: Dialect, code: number, preset?: PresetId): CommandOutcome {
  const major = majorOf(dialect);
  if (major === 3 && code === -5000) return { status: 'pending' };
  const ok = preset === 'enroll-biometric' ? code === 0 : code >= 0;
  return ok ? { status: 'success' } : { status: 'failed', message: `device returned ${code}: ${describeReturnCode(major, code, preset)}` };
}

/** [COMMANDS §2.6] codes that mark a command word (or table) unsupported on the device. */
export const UNSUPPORTED_CODES: Readonly<Record<ProtocolMajor, ReadonlySet<number>>> = {
  2: new Set([-1002, -1004, -22]),
  3: new Set([-13, -708, -801, -100, -621, -629, -1002]),
};

/** supported after any Return ≥ 0; unsupported after the codes above; unknown otherwise. */
export function classifyReturn(dialect: Dialect, code: number): Capability {
  if (code >= 0) return 'supported';
  return UNSUPPORTED_CODES[majorOf(dialect)].has(code) ? 'unsupported' : 'unknown';
}

/** [PUSH-v2 §11.2] the error_message of a preset refused from learned capability. */
export function learnedUnsupportedMessage(code: number): string {
  return `not supported by this device (learned from Return ${code})`;
}
