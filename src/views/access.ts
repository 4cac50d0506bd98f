/** Schedule and access level records → their public views (issue #33 items 2 and 4). */
import { Type } from 'typebox';
import { SCHEDULE_DAYS, type AccessLevel, type Holiday, type Schedule } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const HH_MM = Type.String({
  pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
  description: 'HH:MM, 00:00 to 23:59 (23:59 is the end of the day)',
  examples: ['08:30', '17:30'],
});
export const IntervalSchema = Type.Object(
  { start: HH_MM, end: HH_MM },
  { title: 'ScheduleInterval', additionalProperties: false, description: 'start before end' },
);
const DayList = Type.Array(IntervalSchema, { maxItems: 3, description: 'Up to three intervals' });
export const DaysSchema = Type.Object(
  Object.fromEntries(SCHEDULE_DAYS.map((d) => [d, DayList])) as Record<(typeof SCHEDULE_DAYS)[number], typeof DayList>,
  { title: 'ScheduleDays' },
);
export const DaysInput = Type.Partial(DaysSchema, {
  title: 'ScheduleDaysInput',
  additionalProperties: false,
  description: 'Absent days have no interval',
});

export const ScheduleView = Type.Object(
  {
    id: Type.Integer({ description: 'The location\'s number 1–50, the terminals\' TimezoneId; 1 is "Always"' }),
    name: Type.String(),
    days: DaysSchema,
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
  },
  { title: 'Schedule' },
);

export const AccessLevelView = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    schedule_id: Type.Integer(),
    doors: Type.Array(Type.Integer({ minimum: 1, maximum: 4 })),
    area_id: Nullable(Type.Integer({ description: 'null = every terminal of the location' })),
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
  },
  { title: 'AccessLevel' },
);

export const scheduleView = (s: Schedule) => ({
  id: s.id,
  name: s.name,
  days: Object.fromEntries(SCHEDULE_DAYS.map((d) => [d, s.days[d].map((i) => ({ start: i.start, end: i.end }))])),
  created_at: s.created_at,
  updated_at: s.updated_at,
});

export const accessLevelView = (l: AccessLevel) => ({
  id: l.id,
  name: l.name,
  schedule_id: l.schedule_id,
  doors: [...l.doors],
  area_id: l.area_id,
  created_at: l.created_at,
  updated_at: l.updated_at,
});

export const HolidayView = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    start_date: Type.String({ format: 'date' }),
    end_date: Type.String({ format: 'date' }),
    type: Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], {
      description: 'Which holiday intervals of the schedules apply',
    }),
    recurring: Type.Boolean({ description: 'Every year on the same dates' }),
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
  },
  { title: 'Holiday' },
);

export const holidayView = (h: Holiday) => ({
  id: h.id,
  name: h.name,
  start_date: h.start_date,
  end_date: h.end_date,
  type: h.type,
  recurring: h.recurring,
  created_at: h.created_at,
  updated_at: h.updated_at,
});
