/**
 * GET /api/attendance over real HTTP: the page shape, the record fields (no
 * location_id), newest first, from/to/pin/sn filters, 422s, tenant isolation.
 *
 * The device runtime that records punches is not part of these tests: records go
 * in through the store port (`app.store.attendance.record`), as the runtime does.
 */
import t from 'tap';
import type { NewAttendance } from '../../src/store/ports/index.js';
import { ISO_MS_Z, PAGE_KEYS, gateway, keysOf, locsOf, sorted, wellFormedIssues, type ErrorBody, type Json, type Page } from './client.js';

const NOW = '2026-03-05T12:00:00.000Z';
const ATTENDANCE_KEYS = [
  'id',
  'sn',
  'pin',
  'user_id',
  'timestamp',
  'local_time',
  'status',
  'status_label',
  'verify',
  'verify_label',
  'work_code',
  'created_at',
  'source',
  'reason',
  'created_by',
  'voided_at',
  'void_reason',
];

interface AttendanceRecord {
  id: number;
  sn: string;
  pin: string;
  user_id: number | null;
  timestamp: string;
  local_time: string;
  status: number;
  status_label: string | null;
  verify: number;
  verify_label: string | null;
  work_code: string | null;
  created_at: string;
}

const punch = (locationId: number, sn: string, pin: string, timestamp: string, extra: Partial<NewAttendance> = {}): NewAttendance => ({
  location_id: locationId,
  sn,
  pin,
  user_id: null,
  timestamp,
  local_time: timestamp.slice(0, 19).replace('T', ' '),
  status: 0,
  verify: 1,
  work_code: null,
  ...extra,
});

t.test('GET /api/attendance: shape, order, filters, validation, isolation', async (t) => {
  const { a, tenant, started } = await gateway(t);
  const b = await tenant('Other');

  const empty = await a.api<Page<AttendanceRecord>>('GET', '/api/attendance');
  t.equal(empty.status, 200);
  t.strictSame(keysOf(empty.body), sorted(PAGE_KEYS));
  t.strictSame(empty.body, { data: [], total: 0, page: 1, limit: 15, total_pages: 0, has_next: false, has_prev: false });

  const user = await a.api<{ id: number }>('POST', '/api/users', { body: { pin: 1001, first_name: 'Known' } });
  const stored = await started.app.store.attendance.record(
    [
      punch(a.id, 'ATT1', '1001', '2026-03-01T07:59:59.000Z', { user_id: user.body.id, status: 0, verify: 1, work_code: '7' }),
      punch(a.id, 'ATT1', '1001', '2026-03-01T17:00:00.000Z', { user_id: user.body.id, status: 1, verify: 15 }),
      punch(a.id, 'ATT2', '2002', '2026-03-02T00:00:00.000Z'),
      punch(a.id, 'ATT2', '1001', '2026-03-02T23:59:59.999Z', { user_id: user.body.id }),
      punch(a.id, 'ATT1', '3003', '2026-03-03T10:30:00.000Z', { status: 4 }),
      punch(b.id, 'BATT', '1001', '2026-03-02T12:00:00.000Z'),
    ],
    NOW,
  );
  t.equal(stored.length, 6);
  const idOf = (i: number) => stored[i]?.id;

  const all = await a.api<Page<AttendanceRecord>>('GET', '/api/attendance');
  t.match(all.body, { total: 5, page: 1, limit: 15, total_pages: 1, has_next: false, has_prev: false });
  t.strictSame(
    all.body.data.map((r) => r.id),
    [idOf(4), idOf(3), idOf(2), idOf(1), idOf(0)],
    'newest first, this location only',
  );
  for (const r of all.body.data) {
    t.strictSame(keysOf(r), sorted(ATTENDANCE_KEYS), 'the record fields, no location_id');
    t.match(r.timestamp, ISO_MS_Z);
    t.match(r.created_at, ISO_MS_Z);
  }
  t.strictSame(all.body.data[4], {
    id: idOf(0),
    sn: 'ATT1',
    pin: '1001',
    user_id: user.body.id,
    timestamp: '2026-03-01T07:59:59.000Z',
    local_time: '2026-03-01 07:59:59',
    status: 0,
    status_label: 'check-in',
    verify: 1,
    verify_label: 'fingerprint',
    work_code: '7',
    created_at: NOW,
    source: 'device',
    reason: null,
    created_by: null,
    voided_at: null,
    void_reason: null,
  });
  t.match(all.body.data[2], { pin: '2002', user_id: null, work_code: null });

  const ids = async (query: string) => {
    const res = await a.api<Page<AttendanceRecord>>('GET', `/api/attendance${query}`);
    t.equal(res.status, 200, `${query}: 200`);
    return res.body.data.map((r) => r.id);
  };
  t.strictSame(await ids('?from=2026-03-02'), [idOf(4), idOf(3), idOf(2)], "from a date: that day's 00:00 UTC on");
  t.strictSame(await ids('?to=2026-03-02'), [idOf(3), idOf(2), idOf(1), idOf(0)], 'to a date: the whole day included');
  t.strictSame(await ids('?from=2026-03-02&to=2026-03-02'), [idOf(3), idOf(2)], 'one day');
  t.strictSame(await ids('?from=2026-03-01T08:00:00Z'), [idOf(4), idOf(3), idOf(2), idOf(1)], 'from a datetime');
  t.strictSame(await ids('?to=2026-03-01T17:00:00.000Z'), [idOf(1), idOf(0)], 'to a datetime, inclusive');
  t.strictSame(
    await ids('?from=2026-03-01T18:00:00%2B01:00&to=2026-03-03T11:30:00%2B01:00'),
    [idOf(4), idOf(3), idOf(2), idOf(1)],
    'offsets',
  );
  t.strictSame(await ids('?pin=1001'), [idOf(3), idOf(1), idOf(0)]);
  t.strictSame(await ids('?sn=ATT2'), [idOf(3), idOf(2)]);
  t.strictSame(await ids('?sn=ATT1&pin=1001&from=2026-03-01T12:00:00Z'), [idOf(1)], 'filters combine');
  t.strictSame(await ids('?sn=BATT'), [], "another location's device: nothing");
  t.strictSame(await ids('?pin=999'), []);
  t.strictSame(await ids('?from=2026-03-04'), []);

  const paged = await a.api<Page<AttendanceRecord>>('GET', '/api/attendance?limit=2&page=3');
  t.match(paged.body, { total: 5, page: 3, limit: 2, total_pages: 3, has_next: false, has_prev: true });
  t.strictSame(
    paged.body.data.map((r) => r.id),
    [idOf(0)],
  );
  t.match((await a.api('GET', '/api/attendance?limit=2&page=4')).body, { data: [], has_next: false, has_prev: true });

  for (const [query, loc] of [
    ['?from=yesterday', 'query.from'],
    ['?from=2026-02-30', 'query.from'],
    ['?to=2026-13-01', 'query.to'],
    ['?from=2026-03-01T25:00:00Z', 'query.from'],
    ['?to=2026-03-01T10:00', 'query.to'],
    ['?limit=0', 'query.limit'],
    ['?limit=101', 'query.limit'],
    ['?page=0', 'query.page'],
    ['?page=99999999999999999999999999', 'query.page'],
  ]) {
    const res = await a.api<ErrorBody>('GET', `/api/attendance${query}`);
    t.equal(res.status, 422, `${query}: 422`);
    t.strictSame(locsOf(res.body), [loc], `${query}: ${loc}`);
    t.ok(wellFormedIssues(res.body, 'query'));
  }

  const other = await b.api<Page<AttendanceRecord>>('GET', '/api/attendance');
  t.strictSame(
    other.body.data.map((r) => r.id),
    [idOf(5)],
    'B sees only its own punch',
  );
  t.strictSame((await b.api<Page<Json>>('GET', '/api/attendance?sn=ATT1')).body.data, [], "B cannot read A's device by serial");
  t.strictSame((await b.api<Page<Json>>('GET', '/api/attendance?pin=3003')).body.data, [], "nor A's pins");
  t.equal((await a.api('GET', '/api/attendance', { token: null })).status, 401, 'authentication required');
});
