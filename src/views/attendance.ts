/**
 * Attendance records → their public view (REST, CSV export, the event feed). Status and verify
 * codes are also given as names [PUSH-v2 §6.3] (protocols/attendance-codes.ts).
 */
import { Type } from 'typebox';
import { attendanceStatusLabel, verifyModeLabel } from '../../protocols/attendance-codes.js';
import type { Attendance } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const AttendanceView = Type.Object({
  id: Type.Integer(),
  sn: Type.String(),
  pin: Type.String({ description: 'PIN as the device reported it' }),
  user_id: Nullable(Type.Integer()),
  timestamp: IsoDateTime,
  local_time: Type.String({ description: 'YYYY-MM-DD HH:MM:SS as the device reported it' }),
  status: Type.Integer({ description: 'Attendance state code, see status_label' }),
  status_label: Nullable(
    Type.String({
      description: 'check-in, check-out, break-out, break-in, overtime-in, overtime-out; null for other codes (function keys)',
    }),
  ),
  verify: Type.Integer({ description: 'Verification mode code, see verify_label' }),
  verify_label: Nullable(
    Type.String({ description: 'fingerprint, password, card, face, … ([PUSH-v2 §6.3] table; firmwares differ); null for unknown codes' }),
  ),
  work_code: Nullable(Type.String()),
  created_at: IsoDateTime,
});

/** The public view of a record: the stored record without its location, with the codes' names. */
export function attendanceView({ location_id: _l, ...a }: Attendance) {
  return {
    id: a.id,
    sn: a.sn,
    pin: a.pin,
    user_id: a.user_id,
    timestamp: a.timestamp,
    local_time: a.local_time,
    status: a.status,
    status_label: attendanceStatusLabel(a.status),
    verify: a.verify,
    verify_label: verifyModeLabel(a.verify),
    work_code: a.work_code,
    created_at: a.created_at,
  };
}

/** The CSV export's columns, REST and CLI alike: every field of the view, in its order. */
export const CSV_COLUMNS = [
  'id',
  'sn',
  'pin',
  'user_id',
  'timestamp',
  'local_time',
  'status',
  'status_label',
  'verify',
  'verify_label',
  'work_code',
  'created_at',
] as const satisfies readonly (keyof ReturnType<typeof attendanceView>)[];

/** A record's CSV cells, in CSV_COLUMNS order. */
export const attendanceCsvCells = (a: Attendance) => {
  const v = attendanceView(a);
  return CSV_COLUMNS.map((c) => v[c]);
};
