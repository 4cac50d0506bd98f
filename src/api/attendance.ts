/**
 * Attendance for integrators:
 * - GET /api/attendance: punches received from the location's devices, newest first (pages);
 *   with `after=<cursor>`, the cursor feed instead: records in arrival order after the cursor,
 *   so "every record I have not seen yet" is one call, and a late upload (an old punch sent
 *   today) is not missed the way a `from=<last timestamp>` poll would miss it;
 * - GET /api/attendance.csv: the same filters as CSV, all matching records, streamed page by page.
 * Records are rendered by src/views/attendance.ts, as the event feed renders them.
 */
import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import type { Clock } from '../clock.js';
import { csvDownloadHeaders, csvRows } from '../csv-out.js';
import { BioGateError, invalid } from '../errors.js';
import type { Store } from '../store/types.js';
import type { Attendance, AttendanceCursor, AttendanceFilter } from '../store/ports/index.js';
import { instantOf } from '../validation/input.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { AttendanceView, attendanceCsvCells, attendanceView, CSV_COLUMNS } from '../views/attendance.js';
import { DateOrDateTime, PageQuery, pageOf, pageWrapper, queryInstant } from './schemas.js';

const Instant = DateOrDateTime;
const Cursor = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^(0|[A-Za-z0-9_-]+)$',
  description:
    'Cursor feed: `0` for the first records, then the `next_cursor` of the previous answer. Records come oldest arrival first; `page` is ignored.',
});

const AttendancePage = pageOf(AttendanceView);
const AttendanceFeed = Type.Object(
  {
    data: Type.Array(AttendanceView, { description: 'Oldest arrival first' }),
    next_cursor: Type.String({ description: 'Pass as `after` next time (the same cursor again when nothing new arrived)' }),
    has_more: Type.Boolean({ description: 'More records are waiting: call again at once' }),
  },
  { title: 'AttendanceFeed' },
);

const FilterQuery = {
  from: Type.Optional(Instant),
  to: Type.Optional(Instant),
  pin: Type.Optional(Type.String({ maxLength: 24 })),
  sn: Type.Optional(Type.String({ maxLength: 64 })),
};

/** Store reads per page of the CSV export: one page is read, rendered and sent per turn of the event loop. */
const CSV_PAGE = 250;
/**
 * Most rows one CSV answer holds, counted before the first row is read (a larger export is refused
 * with 422 before anything is sent). The body is streamed (one page in memory at a time); the cap
 * bounds how long one export occupies the store. Beyond it the caller narrows from/to (or uses the
 * cursor feed). Records arriving during the export are included.
 */
export const CSV_MAX_ROWS = 1_000_000;
/** Exports of one location running at once, across nodes; one more gets 429 EXPORT_BUSY. */
export const EXPORTS_PER_LOCATION = 2;
/** Retry-After of EXPORT_BUSY (seconds). */
const EXPORT_RETRY_AFTER_S = 10;

function filterOf(query: {
  from?: string | undefined;
  to?: string | undefined;
  pin?: string | undefined;
  sn?: string | undefined;
}): AttendanceFilter {
  return {
    ...(query.from ? { from: queryInstant(query.from, false, 'from') } : {}),
    ...(query.to ? { to: queryInstant(query.to, true, 'to') } : {}),
    ...(query.pin ? { pin: query.pin } : {}),
    ...(query.sn ? { sn: query.sn } : {}),
  };
}

/** Opaque to callers: base64url of `<id>.<created_at>`. */
export const encodeCursor = (a: AttendanceCursor): string => Buffer.from(`${a.id}.${a.created_at}`, 'utf8').toString('base64url');

export function decodeCursor(text: string): AttendanceCursor | null {
  if (text === '0') return null;
  const m = /^(\d{1,16})\.(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  const id = m ? Number(m[1]) : NaN;
  if (!m || !Number.isSafeInteger(id) || instantOf(m[2] as string) === undefined) {
    throw invalid(['query', 'after'], 'is not a cursor this API gave out (use 0 to start from the first record)', 'value_error');
  }
  return { id, created_at: m[2] as string };
}

/** Lets timers and I/O (other requests, /healthz) run before the next page. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** How long an export's slot outlives its node: renewed every third of it while the export runs. */
const EXPORT_LEASE_MS = 60_000;

/**
 * Running exports per location, across nodes: slot `i` of a location is the store lease
 * `export:<location>:<i>`, held under a name of this export's own and renewed while it runs (a node
 * that dies frees it within EXPORT_LEASE_MS). `take` gives a release function (idempotent) or throws
 * EXPORT_BUSY.
 */
export function exportSlots(store: Store, clock: Clock): (locationId: number) => Promise<() => void> {
  const iso = (ms: number) => new Date(ms).toISOString();
  const acquire = (name: string, holder: string) => {
    const now = clock.now().getTime();
    return store.cluster.acquireLease(name, holder, iso(now), iso(now + EXPORT_LEASE_MS));
  };
  return async (locationId) => {
    const holder = `export:${randomUUID()}`;
    for (let slot = 0; slot < EXPORTS_PER_LOCATION; slot++) {
      const name = `export:${locationId}:${slot}`;
      if (!(await acquire(name, holder))) continue;
      const renew = setInterval(() => void acquire(name, holder).catch(() => undefined), EXPORT_LEASE_MS / 3);
      renew.unref();
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        clearInterval(renew);
        // Not released (store unreachable): the lease runs out on its own.
        store.cluster.releaseLease(name, holder).catch(() => undefined);
      };
    }
    throw new BioGateError('EXPORT_BUSY', `${EXPORTS_PER_LOCATION} exports of this location are running: retry when one ends`, {
      headers: { 'Retry-After': String(EXPORT_RETRY_AFTER_S) },
    });
  };
}

/**
 * The CSV body, page by page: keyset pages by arrival, so records arriving during the export
 * neither repeat nor shift rows; a turn of the event loop between pages; one page in memory.
 */
async function* csvPages(store: Store, locationId: number, filter: AttendanceFilter, now: string): AsyncGenerator<string> {
  yield csvRows([CSV_COLUMNS]);
  let after: AttendanceCursor | null = null;
  for (;;) {
    const rows = await store.attendance.listAfter(locationId, after, filter, CSV_PAGE, now);
    if (rows.length > 0) yield csvRows(rows.map(attendanceCsvCells));
    if (rows.length < CSV_PAGE) return;
    after = rows.at(-1) as Attendance;
    await nextTurn();
  }
}

export function attendanceRoutes(store: Store, clock: Clock): ApiRoute[] {
  const takeExportSlot = exportSlots(store, clock);
  return [
    defineRoute({
      method: 'GET',
      path: '/api/attendance',
      auth: 'location',
      query: Type.Object({ ...PageQuery, ...FilterQuery, after: Type.Optional(Cursor) }),
      doc: {
        summary: "Attendance records from the location's devices: newest first, or with `after` the cursor feed",
        description:
          'Without `after`: pages, newest `timestamp` first. With `after` (start with `0`): the records that reached BioGate after the cursor, ' +
          'oldest arrival first, at most `limit`, and a `next_cursor` for the next call. Arrival order catches late uploads (old punches a ' +
          'device sends after a network outage), which a poll on `from=<last timestamp>` would skip. On MongoDB the feed trails real time by ' +
          'a few seconds, so that records still being written are never passed over.',
        tags: ['attendance'],
        responses: { 200: Type.Union([AttendancePage, AttendanceFeed]) },
      },
      handler: async ({ caller, query }) => {
        const filter = filterOf(query);
        if (query.after !== undefined) {
          const after = decodeCursor(query.after);
          const rows = await store.attendance.listAfter(caller.location.id, after, filter, query.limit + 1, clock.now().toISOString());
          const data = rows.slice(0, query.limit);
          const last = data.at(-1);
          return json(200, {
            data: data.map(attendanceView),
            next_cursor: last ? encodeCursor(last) : query.after,
            has_more: rows.length > query.limit,
          });
        }
        const page = await store.attendance.list(caller.location.id, filter, {
          offset: (query.page - 1) * query.limit,
          limit: query.limit,
        });
        return json(200, pageWrapper(page.items.map(attendanceView), page.total, query.page, query.limit));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/attendance.csv',
      auth: 'location',
      query: Type.Object(FilterQuery),
      doc: {
        summary: 'Attendance records as CSV (same filters as GET /api/attendance), oldest arrival first',
        description:
          `Columns: ${CSV_COLUMNS.join(', ')}. RFC 4180, UTF-8, CRLF line ends, a header line; sent chunked as it is read. ` +
          `Cells starting with =, +, -, @, TAB or CR get a leading ' (they come from terminals; a spreadsheet would run them as formulas). ` +
          `At most ${CSV_MAX_ROWS} records per export (counted first: narrow from/to beyond that), and ${EXPORTS_PER_LOCATION} exports ` +
          'of a location at once (429 EXPORT_BUSY with Retry-After).',
        tags: ['attendance'],
        responses: { 200: null },
        errors: ['EXPORT_BUSY'],
      },
      handler: async ({ caller, query }) => {
        const filter = filterOf(query);
        const now = clock.now().toISOString();
        const locationId = caller.location.id;
        const release = await takeExportSlot(locationId);
        try {
          const count = await store.attendance.count(locationId, filter, CSV_MAX_ROWS + 1, now);
          if (count > CSV_MAX_ROWS) throw invalid(['query'], `more than ${CSV_MAX_ROWS} records match: narrow from/to`, 'value_error');
        } catch (err) {
          release();
          throw err;
        }
        return {
          status: 200,
          headers: csvDownloadHeaders(`attendance-${locationId}-${now.slice(0, 10)}.csv`),
          stream: csvPages(store, locationId, filter, now),
          // Whether sent, cut or never started: the slot is free again.
          onSettled: release,
        };
      },
    }),
  ];
}
