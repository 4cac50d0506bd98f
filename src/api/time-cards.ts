/**
 * Daily time cards (issue #35 item 1):
 * - GET /api/attendance/daily?from=&to=[&pin=][&area_id=]: one card per user and working day of the location
 *   (src/time/time-cards.ts), day then PIN, in pages;
 * - GET /api/attendance/daily.csv: the same cards as CSV;
 * - GET /api/presence[?area_id=]: who is in now (issue #35 item 2).
 * All read every punch of the range through src/attendance/days.ts (at most MAX_DAYS days and MAX_PUNCHES punches),
 * and hold one of the location's export slots while they do (api/attendance.ts).
 */
import { Type } from 'typebox';
import { cardsOf, MAX_DAYS, MAX_PUNCHES, presenceOf } from '../attendance/days.js';
import type { Clock } from '../clock.js';
import { csvDownloadHeaders, csvRows } from '../csv-out.js';
import type { Store } from '../store/types.js';
import { REAL_DATE_PATTERN } from '../validation/input.js';
import { PresenceView, TIME_CARD_CSV_COLUMNS, timeCardCsvCells, TimeCardView } from '../views/time-card.js';
import { EXPORTS_PER_LOCATION, exportSlots } from './attendance.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { PageQuery, pageOf, pageWrapper } from './schemas.js';

const DateText = (description: string) => Type.String({ pattern: `^${REAL_DATE_PATTERN}$`, description: `${description}, YYYY-MM-DD` });
const CardQuery = {
  from: Type.Optional(DateText('The first working day (default: `to` when given, else today in the location’s zone)')),
  to: Type.Optional(DateText(`The last working day (default: from; at most ${MAX_DAYS} days after it)`)),
  pin: Type.Optional(Type.String({ minLength: 1, maxLength: 24 })),
  area_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1, description: 'Only users of this area' })),
};

export function timeCardRoutes(store: Store, clock: Clock): ApiRoute[] {
  const takeSlot = exportSlots(store, clock);
  const withSlot = async <T>(locationId: number, work: () => Promise<T>): Promise<T> => {
    const release = await takeSlot(locationId);
    try {
      return await work();
    } finally {
      release();
    }
  };
  const description =
    'One card per user and working day in the location’s zone. A day starts at the location’s `day_start_hour` (GET /api/me); ' +
    'a punch within `attendance_debounce_s` seconds of the user’s previous one is a repeat and left out. Worked time pairs the ' +
    'terminals’ states (in: 0 check-in, 3 break-in, 4 overtime-in; out: 1, 2, 5); when every punch of the day says 0, or one says ' +
    'something else (255), it is first punch to last. Durations are real elapsed time (DST days included). ' +
    `At most ${MAX_DAYS} days and ${MAX_PUNCHES} punches a request; shares the location’s ${EXPORTS_PER_LOCATION} export slots with the attendance ` +
    'CSV (429 EXPORT_BUSY).';
  return [
    defineRoute({
      method: 'GET',
      path: '/api/presence',
      auth: 'location',
      query: Type.Object({ area_id: CardQuery.area_id }),
      doc: {
        summary: 'Who is in now: each user’s last punch of the working day and whether it leaves them in or out',
        description:
          'Today’s working day in the location’s zone (from `day_start_hour`), repeats within `attendance_debounce_s` left out. ' +
          'The last punch’s state decides (in: 0, 3, 4; out: 1, 2, 5); on terminals whose punches all say 0 the punches toggle ' +
          '(an odd count is in); a day with other states (255) is `unknown`. `count`: how many are in.',
        tags: ['attendance'],
        responses: { 200: PresenceView },
        errors: ['AREA_NOT_FOUND'],
      },
      handler: async ({ caller, query }) => json(200, await presenceOf(store, clock, caller.location, query.area_id)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/attendance/daily',
      auth: 'location',
      query: Type.Object({ ...PageQuery, ...CardQuery }),
      doc: {
        summary: 'Daily time cards: first in, last out and worked minutes per user and working day',
        description,
        tags: ['attendance'],
        responses: { 200: pageOf(TimeCardView) },
        errors: ['AREA_NOT_FOUND', 'EXPORT_BUSY'],
      },
      handler: async ({ caller, query }) => {
        const cards = await withSlot(caller.location.id, () => cardsOf(store, clock, caller.location, query));
        const start = (query.page - 1) * query.limit;
        return json(200, pageWrapper(cards.slice(start, start + query.limit), cards.length, query.page, query.limit));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/attendance/daily.csv',
      auth: 'location',
      query: Type.Object(CardQuery),
      doc: {
        summary: 'Daily time cards as CSV (same filter as GET /api/attendance/daily)',
        description: `${description} Columns: ${TIME_CARD_CSV_COLUMNS.join(', ')} (sources space-separated). RFC 4180, UTF-8, CRLF.`,
        tags: ['attendance'],
        responses: { 200: null },
        errors: ['AREA_NOT_FOUND', 'EXPORT_BUSY'],
      },
      handler: async ({ caller, query }) => {
        const cards = await withSlot(caller.location.id, () => cardsOf(store, clock, caller.location, query));
        return {
          status: 200,
          headers: csvDownloadHeaders(`time-cards-${caller.location.id}-${clock.now().toISOString().slice(0, 10)}.csv`),
          body: csvRows([TIME_CARD_CSV_COLUMNS, ...cards.map(timeCardCsvCells)]),
        };
      },
    }),
  ];
}
