/**
 * What the runtime knows of a sent command before its outcome: kept in the command's `result`
 * field while it is `sent` (CommandsPort.progress), so a restart or an evicted actor loses none of
 * it. The final result replaces it when the command finishes.
 */
import type { AttendanceWindow, HolidayRecord, TimezoneRecord, UserRecord, UserRightRecord } from '../../protocols/index.js';
import type { Command } from '../store/ports/index.js';

export interface Progress {
  /** Rendering notes (a fallback that drops parameters, templates skipped) [COMMANDS §2.5]. */
  readonly note?: string;
  /** v3 load-users for one PIN: the device answers the whole table [COMMANDS §4.14]. */
  readonly keep_pin?: string;
  /** v3 check-attendance: keep only rows inside this device-local window [COMMANDS §4.17]. */
  readonly keep_window?: AttendanceWindow;
  /** Result of the first line of a multi-line command, while its other lines are outstanding. */
  readonly head?: { readonly return_code: number; readonly raw: string };
  /** Users the device uploaded in answer to load-users: one per PIN, at most MAX_LOADED_USERS (mergeUsers). */
  readonly users?: readonly UserRecord[];
  /** The access tables that answered an access audit, at most MAX_ACCESS_ROWS rows in all. */
  readonly access?: AccessTablesHeld;
  /** The answer held more than MAX_ACCESS_ROWS rows: nothing of it is compared. */
  readonly access_overflow?: true;
  /** Attendance rows that answered check-attendance: received, and stored as new. */
  readonly attendance?: { readonly received: number; readonly stored: number };
  /** A roster sync op the terminal refused: kept owed, sent again with back-off (devices/sweeps.ts). */
  readonly refused?: { readonly code?: number; readonly message: string; readonly at: string };
  /** Device parameters that answered an info query before its result line. */
  readonly options?: Readonly<Record<string, string>>;
}

/** The progress recorded on a sent command (empty when none). */
export function progressOf(command: Command): Progress {
  const r = command.status === 'sent' ? command.result : null;
  return r !== null && typeof r === 'object' && !Array.isArray(r) ? (r as Progress) : {};
}

/** The parts of a progress record that belong in the final result. */
export function finalExtras(p: Progress): Record<string, unknown> {
  return {
    ...(p.note !== undefined ? { note: p.note } : {}),
    ...(p.attendance !== undefined ? { records: p.attendance.received, stored: p.attendance.stored } : {}),
  };
}

/**
 * What an access audit read from a v3 terminal: its `userauthorize`, `timezone` and `holiday` rows [PUSH-v3
 * §10.4] and the options that hold its doors' settings [PUSH-v3 §10.5].
 */
export interface AccessTablesHeld {
  readonly rights: readonly UserRightRecord[];
  /** Absent: the terminal refused the query (a model without the table), nothing to compare. */
  readonly timezones?: readonly TimezoneRecord[];
  readonly holidays?: readonly HolidayRecord[];
  /** Absent: no door has settings, or the terminal refused the read. */
  readonly doorOptions?: Readonly<Record<string, string>>;
}

/** Most access-table rows an access audit keeps (four rights per user of a full terminal); beyond, it compares none. */
export const MAX_ACCESS_ROWS = 4 * 100_000;

/** Most users a load-users command keeps (a terminal holds far fewer; uploads beyond are dropped). */
export const MAX_LOADED_USERS = 100_000;

/**
 * `incoming` merged into the users a load-users kept so far: one entry per PIN (a later upload of a
 * PIN replaces the earlier, in its place), new PINs appended while fewer than MAX_LOADED_USERS are kept.
 */
export function mergeUsers(
  kept: readonly UserRecord[],
  incoming: readonly UserRecord[],
  max = MAX_LOADED_USERS,
): { users: UserRecord[]; dropped: number } {
  const byPin = new Map<string, UserRecord>();
  for (const u of kept) if (byPin.size < max || byPin.has(u.pin)) byPin.set(u.pin, u);
  let dropped = 0;
  for (const u of incoming) {
    if (byPin.size >= max && !byPin.has(u.pin)) dropped++;
    else byPin.set(u.pin, u);
  }
  return { users: [...byPin.values()], dropped };
}
