/**
 * Attendance records → their public view (REST, CSV export, the event feed). Status and verify
 * codes are also given as names [PUSH-v2 §6.3] (protocols/attendance-codes.ts).
 */
import { Type } from 'typebox';
import { attendanceStatusLabel, verifyModeLabel } from '../../protocols/attendance-codes.js';
import type { Attendance } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const AttendanceView = Type.Object(
  {
    id: Type.Integer(),
    sn: Nullable(Type.String({ description: 'The terminal; null for a manual punch' })),
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
    verify: Nullable(Type.Integer({ description: 'Verification mode code, see verify_label; null for a manual punch' })),
    verify_label: Nullable(
      Type.String({
        description:
          'fingerprint, password, card, face, … (the verify-mode table of the ZKTeco Attendance PUSH Communication Protocol; firmwares differ); null for unknown codes',
      }),
    ),
    work_code: Nullable(Type.String()),
    created_at: IsoDateTime,
    source: Type.Union([Type.Literal('device'), Type.Literal('manual')], {
      description: 'device: a terminal’s punch; manual: entered with POST /api/attendance',
    }),
    reason: Nullable(Type.String({ description: 'A manual punch’s reason' })),
    created_by: Nullable(
      Type.Object(
        { token_id: Type.Integer(), label: Nullable(Type.String()) },
        { description: 'The token that entered a manual punch (its label then)' },
      ),
    ),
    voided_at: Nullable(IsoDateTime),
    void_reason: Nullable(Type.String({ description: 'Why it was voided (POST /api/attendance/{id}/void)' })),
  },
  { title: 'Attendance' },
);

/** The verify code a manual punch is stored with (no terminal verified it); shown as null. */
export const MANUAL_VERIFY = -1;

/** The public view of a record: the stored record without its location, with the codes' names. */
export function attendanceView({ location_id: _l, ...a }: Attendance) {
  const manual = a.source === 'manual';
  return {
    id: a.id,
    sn: manual ? null : a.sn,
    pin: a.pin,
    user_id: a.user_id,
    timestamp: a.timestamp,
    local_time: a.local_time,
    status: a.status,
    status_label: attendanceStatusLabel(a.status),
    verify: manual ? null : a.verify,
    verify_label: manual ? null : verifyModeLabel(a.verify),
    work_code: a.work_code,
    created_at: a.created_at,
    source: a.source,
    reason: a.reason,
    created_by: a.created_by ? { token_id: a.created_by.token_id, label: a.created_by.label } : null,
    voided_at: a.voided_at,
    void_reason: a.void_reason,
  };
}

/** The CSV export's columns, REST and CLI alike: every field of the view, in its order (`created_by` as two). */
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
  'source',
  'reason',
  'created_by_token_id',
  'created_by_label',
  'voided_at',
  'void_reason',
] as const;

/** A record's CSV cells, in CSV_COLUMNS order. */
export const attendanceCsvCells = (a: Attendance) => {
  const v = attendanceView(a);
  const cells: Record<(typeof CSV_COLUMNS)[number], string | number | null> = {
    ...v,
    created_by_token_id: v.created_by?.token_id ?? null,
    created_by_label: v.created_by?.label ?? null,
  };
  return CSV_COLUMNS.map((c) => cells[c]);
};
