// The v3 access tables read back [PUSH-v3 §10.4, §11.2]: `userauthorize`, `timezone` and `holiday` rows as
// a terminal answers a DATA QUERY, typed for the access audit, and the rows BioGate's own lines leave there.
import type { HolidayRecord, TimezoneRecord } from '../events.js';
import type { KeyValues } from '../shared/key-value.js';
import { intOrNull } from '../shared/numbers.js';
import type { SyncHoliday } from '../commands.js';

/** [PUSH-v3 §11.2] the 30 intervals of a `timezone` row: Sun…Sat, then holiday types 1–3, three a day. */
export const TIMEZONE_FIELDS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Hol1', 'Hol2', 'Hol3'].flatMap((d) =>
  [1, 2, 3].map((i) => `${d}Time${i}`),
);
const TIMEZONE_KEYS = TIMEZONE_FIELDS.map((f) => f.toLowerCase());

/** A `timezone` row: its id and each interval (null where the terminal sent none or not a number). */
export function timezoneRow(kv: KeyValues): TimezoneRecord | undefined {
  const id = intOrNull(kv.timezoneid);
  if (id === null || id < 1) return undefined;
  return { id, values: TIMEZONE_KEYS.map((k) => intOrNull(kv[k])) };
}

/** A `holiday` row: the day (`YYYYMMDD`), which holiday intervals apply (1–3), 1 yearly / 2 once. */
export function holidayRow(kv: KeyValues): HolidayRecord | undefined {
  const date = kv.holiday?.trim() ?? '';
  const type = intOrNull(kv.holidaytype);
  const loop = intOrNull(kv.loop);
  if (!/^\d{8}$/.test(date) || type === null || loop === null) return undefined;
  return { date, type, loop };
}

/** The `holiday` rows a holiday.replace leaves (the vendor SDK's fields: `Loop` 1 yearly, 2 once). */
export function holidayRows(days: readonly SyncHoliday[]): HolidayRecord[] {
  return days.map((d) => ({ date: d.date, type: d.type, loop: d.yearly ? 1 : 2 }));
}
