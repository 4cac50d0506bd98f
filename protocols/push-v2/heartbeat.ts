// `getrequest?INFO=` [PUSH-v2 §7.1].
import type { HeartbeatInfo } from '../events.js';
import { intOrNull } from '../shared/numbers.js';

/** 10-field form: all fields; older forms (A's 9 fields): fields 1–5 only, raw string kept. */
export function parseHeartbeatInfo(raw: string): HeartbeatInfo {
  const f = raw.split(',');
  const full = f.length === 10;
  const at = (i: number): string | null => (full ? (f[i] as string) : null);
  return {
    raw,
    firmware: f[0] as string,
    users: intOrNull(f[1]),
    fingerprints: intOrNull(f[2]),
    attendanceRecords: intOrNull(f[3]),
    ip: f[4] ?? '',
    fpAlgorithm: at(5),
    faceAlgorithm: at(6),
    facesToEnroll: full ? intOrNull(f[7]) : null,
    faces: full ? intOrNull(f[8]) : null,
    flags: at(9),
  };
}
