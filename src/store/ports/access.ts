/**
 * Schedules and access levels (issue #33 items 2 and 4): when and through which doors a person may open.
 *
 * A schedule is a terminal time zone [PUSH-v3 §11.2 `timezone`]: per weekday and holiday type up to three
 * intervals. Its id is the location's own number 1–50, the `TimezoneId` terminals store; schedule 1,
 * "Always", exists in every location without being stored and never changes.
 * An access level names a schedule, doors (1–4) and an area (null = every terminal of the location); a user
 * lists its levels (`User.access_levels`). No level: schedule 1 through every door, as before levels existed.
 */
import type { Iso } from './records.js';

export const SCHEDULE_DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'holiday1', 'holiday2', 'holiday3'] as const;
export type ScheduleDay = (typeof SCHEDULE_DAYS)[number];

/** `HH:MM`, 00:00–23:59; start before end. */
export interface Interval {
  readonly start: string;
  readonly end: string;
}

export type ScheduleDays = { readonly [D in ScheduleDay]: readonly Interval[] };

export interface Schedule {
  /** The location's number 1–50 (the terminals' TimezoneId). */
  readonly id: number;
  readonly location_id: number;
  readonly name: string;
  readonly days: ScheduleDays;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export interface AccessLevel {
  readonly id: number;
  readonly location_id: number;
  readonly name: string;
  readonly schedule_id: number;
  /** Door numbers 1–4, distinct, ascending. */
  readonly doors: readonly number[];
  /** The area whose terminals the level applies to; null = every terminal of the location. */
  readonly area_id: number | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export type AccessLevelFields = Pick<AccessLevel, 'name' | 'schedule_id' | 'doors' | 'area_id'>;

/** The schedule every location has: 00:00–23:59 every day. */
export const ALWAYS_ID = 1;
/** Most schedules of one location (the terminals' TimezoneId range), "Always" included. */
export const MAX_SCHEDULES = 50;

export const alwaysSchedule = (locationId: number): Schedule => ({
  id: ALWAYS_ID,
  location_id: locationId,
  name: 'Always',
  days: Object.fromEntries(SCHEDULE_DAYS.map((d) => [d, [{ start: '00:00', end: '23:59' }]])) as unknown as ScheduleDays,
  created_at: '1970-01-01T00:00:00.000Z',
  updated_at: null,
});

export interface SchedulesPort {
  /** Stored schedules (never "Always"), by id. */
  list(locationId: number): Promise<readonly Schedule[]>;
  get(locationId: number, id: number): Promise<Schedule | undefined>;
  /** Takes the lowest free number 2–MAX_SCHEDULES; undefined when none is free. */
  create(locationId: number, name: string, days: ScheduleDays, now: Iso): Promise<Schedule | undefined>;
  update(locationId: number, id: number, name: string, days: ScheduleDays, now: Iso): Promise<Schedule | undefined>;
  /** Deletes unless an access level names it (`in_use`). */
  delete(locationId: number, id: number): Promise<'deleted' | 'in_use' | 'missing'>;
}

export interface AccessLevelsPort {
  list(locationId: number, window: { offset: number; limit: number }): Promise<{ items: readonly AccessLevel[]; total: number }>;
  get(locationId: number, id: number): Promise<AccessLevel | undefined>;
  getMany(locationId: number, ids: readonly number[]): Promise<readonly AccessLevel[]>;
  create(locationId: number, fields: AccessLevelFields, now: Iso): Promise<AccessLevel>;
  update(locationId: number, id: number, fields: AccessLevelFields, now: Iso): Promise<AccessLevel | undefined>;
  /** Deletes the level; its users lose it from `access_levels`. Returns the PINs that listed it, or undefined when missing. */
  delete(locationId: number, id: number): Promise<readonly number[] | undefined>;
  /** PINs of the users listing any of these levels. */
  usersOf(locationId: number, ids: readonly number[]): Promise<readonly number[]>;
}

/** `HH:MM` as the terminals' decimal HHMM. */
const hhmm = (t: string): number => Number(t.slice(0, 2)) * 100 + Number(t.slice(3, 5));

/**
 * [PUSH-v3 §11.2] The `timezone` row's values, Sun…Sat then Hol1…Hol3, three intervals each:
 * `(startHHMM << 16) | endHHMM`, an empty interval 0.
 */
export function packedSchedule(days: ScheduleDays): number[] {
  return SCHEDULE_DAYS.flatMap((d) =>
    [0, 1, 2].map((i) => {
      const interval = days[d][i];
      return interval ? hhmm(interval.start) * 65_536 + hhmm(interval.end) : 0;
    }),
  );
}

/**
 * The rights a user has on one terminal [issue #33 item 4]: one per schedule of the levels that apply to
 * the terminal (level without an area, or of the terminal's area), with the union of their doors. Undefined
 * for a user without levels (schedule 1 through every door, as before); [] when none applies (no right there).
 */
export function rightsOn(
  device: { readonly area_id: number | null },
  levels: readonly AccessLevel[] | undefined,
): { timezoneId: number; doors: number[] }[] | undefined {
  if (levels === undefined) return undefined;
  const bySchedule = new Map<number, Set<number>>();
  for (const l of levels) {
    if (l.area_id !== null && l.area_id !== device.area_id) continue;
    const doors = bySchedule.get(l.schedule_id) ?? new Set<number>();
    for (const d of l.doors) doors.add(d);
    bySchedule.set(l.schedule_id, doors);
  }
  return [...bySchedule].sort(([a], [b]) => a - b).map(([timezoneId, doors]) => ({ timezoneId, doors: [...doors].sort((a, b) => a - b) }));
}

/** A holiday (issue #33 item 3): days whose schedules use the intervals of its type instead of the weekday's. */
export interface Holiday {
  readonly id: number;
  readonly location_id: number;
  readonly name: string;
  /** `YYYY-MM-DD`, inclusive; end_date ≥ start_date, at most 366 days. */
  readonly start_date: string;
  readonly end_date: string;
  readonly type: 1 | 2 | 3;
  /** Every year on the same dates. */
  readonly recurring: boolean;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export type HolidayFields = Pick<Holiday, 'name' | 'start_date' | 'end_date' | 'type' | 'recurring'>;

export interface HolidaysPort {
  /** By start date, then id. */
  list(locationId: number): Promise<readonly Holiday[]>;
  get(locationId: number, id: number): Promise<Holiday | undefined>;
  create(locationId: number, fields: HolidayFields, now: Iso): Promise<Holiday>;
  update(locationId: number, id: number, fields: HolidayFields, now: Iso): Promise<Holiday | undefined>;
  delete(locationId: number, id: number): Promise<boolean>;
}

/** The days of a holiday, `YYYYMMDD` each (the terminals' `holiday` rows). */
export function holidayDays(h: Pick<Holiday, 'start_date' | 'end_date'>): string[] {
  const out: string[] = [];
  const end = Date.parse(`${h.end_date}T00:00:00Z`);
  for (let t = Date.parse(`${h.start_date}T00:00:00Z`); t <= end && out.length <= 366; t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10).replaceAll('-', ''));
  return out;
}
