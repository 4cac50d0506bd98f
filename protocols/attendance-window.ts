// [COMMANDS §4.17] the check-attendance window, device-local. The API dates are location dates, which is
// the device's wall-clock calendar, so no zone conversion applies.
import type { CheckAttendanceParams } from './preset-params.js';

export interface AttendanceWindow {
  /** `YYYY-MM-DD HH:MM:SS` */
  readonly start: string;
  readonly end: string;
}

export function attendanceWindow(params: Partial<CheckAttendanceParams>): AttendanceWindow {
  return {
    start: `${params.startDate ?? '2000-01-01'} 00:00:00`,
    end: `${params.endDate ?? '2099-12-31'} 23:59:59`,
  };
}

/** v3 keeps only transaction rows inside the window (server-side filter) [COMMANDS §4.17]. */
export function inAttendanceWindow(time: string, window: AttendanceWindow): boolean {
  return time >= window.start && time <= window.end;
}
