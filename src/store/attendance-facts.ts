/** The attendance record an adapter stores for a new one (src/store/ports/attendance.ts). */
import type { Attendance, NewAttendance } from './ports/index.js';

/**
 * The stored record of `a`, with its id and arrival time. Built field by field, not by rest and spread: on the ingest
 * path (every punch) the spread copies made the upload about a third slower (`npm run bench -- --scenario ingest`:
 * 40,700 against 57,500 records/s).
 */
export function storedRecord(a: NewAttendance, id: number, createdAt: string): Attendance {
  const manual = a.manual;
  return {
    id,
    location_id: a.location_id,
    sn: a.sn,
    pin: a.pin,
    user_id: a.user_id,
    timestamp: a.timestamp,
    local_time: a.local_time,
    status: a.status,
    verify: a.verify,
    work_code: a.work_code,
    created_at: createdAt,
    source: manual ? 'manual' : 'device',
    reason: manual?.reason ?? null,
    created_by: manual ? { token_id: manual.token_id, label: manual.label } : null,
    voided_at: null,
    void_reason: null,
  };
}
