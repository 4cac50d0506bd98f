/**
 * How BioTime writes what BioGate stores: times as the location's wall clock `YYYY-MM-DD HH:MM:SS`,
 * punch states as strings with an English display, verify types as numbers with theirs.
 */
import { attendanceStatusLabel, verifyModeLabel } from '../../protocols/attendance-codes.js';
import { wallClockAt } from '../time/zones.js';

/** An ISO instant as the wall clock of `tz`, `YYYY-MM-DD HH:MM:SS` (BioTime's `upload_time`, `update_time`). */
export function localTime(iso: string | null, tz: string): string | null {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  return new Date(wallClockAt(ms, tz)).toISOString().slice(0, 19).replace('T', ' ');
}

/** `check-in` → `Check In`: BioTime's display of the states BioGate names; other codes are function keys. */
export function punchStateDisplay(code: number): string {
  const label = attendanceStatusLabel(code);
  return label === null ? 'Unknown' : titleCase(label);
}

/** `fingerprint` → `Fingerprint`, `face+card` → `Face+Card` [PUSH-v2 §6.3]; codes without a name are `Other`. */
export function verifyTypeDisplay(code: number): string {
  const label = verifyModeLabel(code);
  return label === null ? 'Other' : titleCase(label);
}

const titleCase = (label: string): string =>
  label.replace(/(^|[-+/ ])([a-z])/g, (_m, sep: string, c: string) => `${sep === '-' ? ' ' : sep}${c.toUpperCase()}`);
