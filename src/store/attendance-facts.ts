/** What both adapters store for a new attendance record (src/store/ports/attendance.ts). */
import type { Attendance, NewAttendance } from './ports/index.js';

/** The record as stored from a new one, before the id and arrival time. */
export function storedFacts(a: NewAttendance): Omit<Attendance, 'id' | 'created_at'> {
  const { manual, ...rest } = a;
  return {
    ...rest,
    source: manual ? 'manual' : 'device',
    reason: manual?.reason ?? null,
    created_by: manual ? { token_id: manual.token_id, label: manual.label } : null,
    voided_at: null,
    void_reason: null,
  };
}
