// [COMMANDS §2.5] the only automatic fallbacks, each tried once per command [PUSH-v2 §11.3, PUSH-v3 §15.2].
import type { PresetId, ProtocolMajor } from './catalog.js';
import type { PresetCommand, WireLines } from './commands.js';
import { checkAttendanceWindow } from './preset-common.js';
import { isFailure, presetParams, type CheckAttendanceParams } from './preset-params.js';
import { majorOf, type Dialect } from './return-codes.js';

export interface FallbackRule {
  readonly major: ProtocolMajor;
  /** a preset, or `sync-fingerprint` for the v2 fingerprint template sync */
  readonly preset: PresetId | 'sync-fingerprint';
  readonly returnCodes: readonly number[];
  /** the fallback in words (wire strings are produced by `presetFallback` / `Codec.syncFallback`) */
  readonly fallback: string;
  readonly evidence: string;
}

const V3_REFUSALS = [-13, -708, -801, -1002] as const;

/** The table of COMMANDS §2.5, as data. */
export const FALLBACKS: readonly FallbackRule[] = [
  { major: 2, preset: 'check-attendance', returnCodes: [-1], fallback: 'same query with `T` date format', evidence: 'confirmed: A, B, I2' },
  {
    major: 2,
    preset: 'check-attendance',
    returnCodes: [-1002],
    fallback: '`ATTLOGStamp=0` + `CHECK` (full re-upload)',
    evidence: 'single source: F4',
  },
  {
    major: 2,
    preset: 'sync-fingerprint',
    returnCodes: [-1002, -11, -12],
    fallback: '`DATA UPDATE BIODATA … Type=1 …` (also chosen up front when FPVersion > 10)',
    evidence: 'single source: B; switch inferred',
  },
  { major: 3, preset: 'door-open', returnCodes: [...V3_REFUSALS], fallback: '`AC_UNLOCK`', evidence: 'single source: F4' },
  { major: 3, preset: 'cancel-alarm', returnCodes: [...V3_REFUSALS], fallback: '`AC_UNALARM`', evidence: 'single source: I3' },
  { major: 3, preset: 'clear-alarm', returnCodes: [...V3_REFUSALS], fallback: '`AC_UNALARM`', evidence: 'single source: I3' },
  { major: 3, preset: 'info', returnCodes: [...V3_REFUSALS], fallback: '`INFO`', evidence: 'single source: F1' },
  { major: 3, preset: 'check', returnCodes: [...V3_REFUSALS], fallback: '`INFO`', evidence: 'single source: F1' },
];

/** [COMMANDS §4.17] when the `T` retry also answers −1. */
export const CHECK_ATTENDANCE_BOTH_FORMATS_FAILED = 'device returned -1 for both date formats: no records in range, or query not supported';
/** [COMMANDS §4.17, PUSH-v2 §11.3] note of the −1002 fallback. */
export const FULL_REUPLOAD_NOTE = 'range query unsupported; full re-upload requested';
/** [COMMANDS §4.5] note of the v3 door-open fallback. */
export const DOOR_OPEN_FALLBACK_NOTE = 'door and duration not transmitted';

const applies = (major: ProtocolMajor, preset: PresetId | 'sync-fingerprint', code: number): boolean =>
  FALLBACKS.some((rule) => rule.major === major && rule.preset === preset && rule.returnCodes.includes(code));

/** The fallback wire line(s) for a preset answered with `returnCode`, or undefined (fail the command). */
export function presetFallback(dialect: Dialect, command: PresetCommand, returnCode: number): WireLines | undefined {
  if (!applies(majorOf(dialect), command.preset, returnCode)) return undefined;
  switch (command.preset) {
    case 'check-attendance': {
      const p = presetParams<CheckAttendanceParams>('check-attendance', command.params);
      const w = isFailure(p) ? p : checkAttendanceWindow(p);
      if (isFailure(w)) return undefined;
      // [PUSH-v2 §4.7] full re-upload: ATTLOGStamp=0 on the next handshake, then CHECK
      if (returnCode === -1002) return { ok: true, lines: ['CHECK'], note: FULL_REUPLOAD_NOTE, requestFullAttlogUpload: true };
      const t = (s: string): string => s.replace(' ', 'T');
      return { ok: true, lines: [`DATA QUERY ATTLOG StartTime=${t(w.start)}\tEndTime=${t(w.end)}`] };
    }
    case 'door-open':
      return { ok: true, lines: ['AC_UNLOCK'], note: DOOR_OPEN_FALLBACK_NOTE };
    case 'cancel-alarm':
    case 'clear-alarm':
      return { ok: true, lines: ['AC_UNALARM'] };
    default:
      return { ok: true, lines: ['INFO'] };
  }
}

/** Whether the v2 fingerprint sync falls back for this code. */
export const syncFingerprintFallbackApplies = (returnCode: number): boolean => applies(2, 'sync-fingerprint', returnCode);
