/**
 * GET /api/attendance/hourly[?date=YYYY-MM-DD]: how many punches were stored for each hour of one calendar day in the
 * location's zone (default: today there), for the console's dashboard. An hour is [its local start, the next local
 * hour's start): a day of a DST change has 23 or 25 of them, each listed with its UTC start. Counts every stored
 * record of the hour, voided ones included (they were punched); one count query per hour, by the store's time index.
 */
import { Type } from 'typebox';
import type { Clock } from '../clock.js';
import type { Store } from '../store/types.js';
import { wallClock, wallClockAt, wallToUtc } from '../time/zones.js';
import { REAL_DATE_PATTERN } from '../validation/input.js';
import { invalid } from '../errors.js';
import { defineRoute, json, type ApiRoute } from './route.js';

const HOUR_MS = 3_600_000;

export const HourlyView = Type.Object(
  {
    date: Type.String({ description: 'The calendar day, YYYY-MM-DD, in the location’s zone' }),
    timezone: Type.String(),
    hours: Type.Array(
      Type.Object(
        {
          hour: Type.Integer({ minimum: 0, maximum: 23, description: 'The local hour (repeated on the day clocks go back)' }),
          start: Type.String({ format: 'date-time', description: 'The hour’s start, UTC' }),
          count: Type.Integer({ minimum: 0, description: 'Punches stored with a time in the hour' }),
        },
        { title: 'HourlyCount' },
      ),
    ),
  },
  { title: 'AttendanceHourly' },
);

/** The UTC starts of the local hours of `date` in `tz`, each with its local hour, and the next day's start. */
export function localHours(date: string, tz: string): { hours: { hour: number; start: number }[]; end: number } {
  const midnight = wallClock(`${date} 00:00:00`);
  if (midnight === undefined) throw invalid(['query', 'date'], 'not a calendar day', 'pattern');
  const end = wallToUtc(midnight + 24 * HOUR_MS, tz);
  const hours: { hour: number; start: number }[] = [];
  // Walk real hours from local midnight: each step is one elapsed hour, named by the wall clock it reads.
  for (let at = wallToUtc(midnight, tz); at < end; at += HOUR_MS) {
    hours.push({ hour: new Date(wallClockAt(at, tz)).getUTCHours(), start: at });
  }
  return { hours, end };
}

export function attendanceHourlyRoutes(store: Store, clock: Clock): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/attendance/hourly',
      auth: 'location',
      query: Type.Object({
        date: Type.Optional(
          Type.String({ pattern: `^${REAL_DATE_PATTERN}$`, description: 'YYYY-MM-DD (default: today in the location’s zone)' }),
        ),
      }),
      doc: {
        summary: 'Punches stored per hour of one day in the location’s zone (the console’s dashboard)',
        tags: ['attendance'],
        responses: { 200: HourlyView },
      },
      handler: async ({ caller, query }) => {
        const tz = caller.location.timezone;
        const date = query.date ?? new Date(wallClockAt(clock.now().getTime(), tz)).toISOString().slice(0, 10);
        const { hours, end } = localHours(date, tz);
        const counts = await Promise.all(
          hours.map(async ({ start }, i) => {
            const to = (hours[i + 1]?.start ?? end) - 1;
            const page = await store.attendance.list(
              caller.location.id,
              { from: new Date(start).toISOString(), to: new Date(to).toISOString() },
              { offset: 0, limit: 1 },
            );
            return page.total;
          }),
        );
        return json(200, {
          date,
          timezone: tz,
          hours: hours.map(({ hour, start }, i) => ({ hour, start: new Date(start).toISOString(), count: counts[i] ?? 0 })),
        });
      },
    }),
  ];
}
