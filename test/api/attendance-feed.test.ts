/**
 * Attendance for integrators over real HTTP (issue #17): the cursor feed
 * (GET /api/attendance?after=), the status/verify labels, and GET /api/attendance.csv.
 * Records go in through the store port, as the device runtime does (see attendance.test.ts).
 * The clock is fake: on MongoDB the feed trails arrival by a settle window, so the tests move
 * time past it the way real time would.
 */
import t from 'tap';
import { CSV_COLUMNS } from '../../src/views/attendance.js';
import type { NewAttendance } from '../../src/store/ports/index.js';
import { TEST_STORE, fakeClock } from '../helpers/app.js';
import { gateway, locsOf, type Json, type Page } from './client.js';

interface Rec {
  id: number;
  pin: string;
  status: number;
  status_label: string | null;
  verify: number;
  verify_label: string | null;
  timestamp: string;
}
interface Feed {
  data: Rec[];
  next_cursor: string;
  has_more: boolean;
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

/** Splits CSV text (RFC 4180, CRLF) into rows of cells, honouring quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') endCell();
    else if (c === '\r' && text[i + 1] === '\n') {
      endCell();
      rows.push(row);
      row = [];
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) {
    endCell();
    rows.push(row);
  }
  return rows;
}

t.test('cursor feed: arrival order, next_cursor, late uploads, filters, bad cursors', async (t) => {
  const clock = fakeClock('2026-03-05T12:00:00.000Z');
  const { a, tenant, started } = await gateway(t, { clock });
  const b = await tenant('Other');
  const store = started.app.store.attendance;
  const first = await store.record(
    [
      punch(a.id, 'F1', '1', '2026-03-05T08:00:00.000Z', { status: 0, verify: 1 }),
      punch(a.id, 'F1', '2', '2026-03-05T08:01:00.000Z', { status: 4, verify: 15 }),
      punch(a.id, 'F1', '3', '2026-03-05T08:02:00.000Z', { status: 9, verify: 99 }),
      punch(b.id, 'FB', '1', '2026-03-05T08:00:00.000Z'),
    ],
    clock.now().toISOString(),
  );
  clock.advance(10_000);

  const empty = await b.api<Feed>('GET', '/api/attendance?after=0&sn=NONE');
  t.strictSame(empty.body, { data: [], next_cursor: '0', has_more: false }, 'nothing: the same cursor back');

  const p1 = await a.api<Feed>('GET', '/api/attendance?after=0&limit=2');
  t.equal(p1.status, 200);
  t.strictSame(
    p1.body.data.map((r) => r.pin),
    ['1', '2'],
    'oldest arrival first, this location only',
  );
  t.equal(p1.body.has_more, true);
  t.match(p1.body.next_cursor, /^[A-Za-z0-9_-]+$/);
  t.match(p1.body.data[1], { status: 4, status_label: 'overtime-in', verify: 15, verify_label: 'face' }, 'labels from [PUSH-v2 §6.3]');
  const p2 = await a.api<Feed>('GET', `/api/attendance?after=${p1.body.next_cursor}&limit=2`);
  t.strictSame(
    p2.body.data.map((r) => r.pin),
    ['3'],
  );
  t.match(p2.body.data[0], { status: 9, status_label: null, verify: 99, verify_label: null }, 'unknown codes: no label');
  t.equal(p2.body.has_more, false);
  const p3 = await a.api<Feed>('GET', `/api/attendance?after=${p2.body.next_cursor}`);
  t.strictSame(p3.body, { data: [], next_cursor: p2.body.next_cursor, has_more: false }, 'caught up');

  // A late upload: a punch from last month arrives now. A `from=<last timestamp>` poll would skip it.
  const late = await store.record(
    [punch(a.id, 'F1', '4', '2026-02-01T08:00:00.000Z', { status: 1, verify: 4 })],
    clock.now().toISOString(),
  );
  if (TEST_STORE === 'mongodb') {
    const settling = await a.api<Feed>('GET', `/api/attendance?after=${p3.body.next_cursor}`);
    t.strictSame(settling.body.data, [], 'MongoDB: not yet, within the settle window');
    clock.advance(6_000);
  }
  const p4 = await a.api<Feed>('GET', `/api/attendance?after=${p3.body.next_cursor}`);
  t.strictSame(
    p4.body.data.map((r) => r.id),
    [late[0]?.id],
    'the late upload is the next record of the feed',
  );
  t.match(p4.body.data[0], { status_label: 'check-out', verify_label: 'card' });
  const newest = await a.api<Page<Rec>>('GET', '/api/attendance');
  t.equal(newest.body.data.at(-1)?.pin, '4', 'while the page view (newest timestamp first) puts it last');

  const byPin = await a.api<Feed>('GET', '/api/attendance?after=0&pin=2');
  t.strictSame(
    byPin.body.data.map((r) => r.id),
    [first[1]?.id],
    'filters apply to the feed',
  );

  for (const bad of [
    'walk',
    'MQ',
    Buffer.from('1.yesterday').toString('base64url'),
    Buffer.from('x.2026-03-05T12:00:00.000Z').toString('base64url'),
  ]) {
    const res = await a.api<Json>('GET', `/api/attendance?after=${bad}`);
    t.equal(res.status, 422, `after=${bad}: 422`);
    t.strictSame(locsOf(res.body), ['query.after']);
  }
  const bad = await a.api<Json>('GET', '/api/attendance?after=');
  t.equal(bad.status, 422, 'an empty cursor is refused');
  const anon = await a.api<Json>('GET', '/api/attendance?after=0', { token: null });
  t.equal(anon.status, 401);
});

t.test('GET /api/attendance.csv: header, quoting, filters, many pages, isolation', async (t) => {
  const clock = fakeClock('2026-03-05T12:00:00.000Z');
  const { a, tenant, started, url } = await gateway(t, { clock });
  const b = await tenant('Other');
  const store = started.app.store.attendance;
  await store.record(
    [
      punch(a.id, 'C1', '1001', '2026-03-01T08:00:00.000Z', { work_code: 'a,"b"\nc', status: 1, verify: 15 }),
      punch(a.id, 'C1', '1002', '2026-03-02T08:00:00.000Z'),
      punch(b.id, 'CB', '1001', '2026-03-01T08:00:00.000Z'),
    ],
    clock.now().toISOString(),
  );
  clock.advance(10_000);

  const res = await fetch(`${url}/api/attendance.csv`, { headers: { Authorization: `Bearer ${a.token}` } });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/csv; charset=utf-8/);
  t.match(res.headers.get('content-disposition'), /^attachment; filename="attendance-\d+-2026-03-05\.csv"$/);
  const text = await res.text();
  t.ok(text.endsWith('\r\n'), 'CRLF line ends');
  const rows = parseCsv(text);
  t.strictSame(rows[0], [...CSV_COLUMNS], 'a header line');
  t.equal(rows.length, 3, 'two records, this location only');
  const col = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
  t.strictSame(
    rows.slice(1).map((r) => r[col('pin')]),
    ['1001', '1002'],
    'arrival order',
  );
  t.equal(rows[1]?.[col('work_code')], 'a,"b"\nc', 'commas, quotes and newlines survive (RFC 4180 quoting)');
  t.equal(rows[1]?.[col('status_label')], 'check-out');
  t.equal(rows[1]?.[col('verify_label')], 'face');
  t.equal(rows[2]?.[col('work_code')], '', 'null is an empty cell');
  t.equal(rows[2]?.[col('user_id')], '');

  const filtered = parseCsv(
    await (await fetch(`${url}/api/attendance.csv?from=2026-03-02&pin=1002`, { headers: { Authorization: `Bearer ${a.token}` } })).text(),
  );
  t.strictSame(
    filtered.slice(1).map((r) => r[col('pin')]),
    ['1002'],
    'same filters as GET /api/attendance',
  );

  const invalid = await a.api<Json>('GET', '/api/attendance.csv?from=2026-02-30');
  t.equal(invalid.status, 422);
  t.strictSame(locsOf(invalid.body), ['query.from']);
  t.equal((await a.api('GET', '/api/attendance.csv', { token: null })).status, 401);

  // More records than one store page (1000): every one exactly once, in arrival order.
  const many = Array.from({ length: 2345 }, (_, i) =>
    punch(b.id, 'CB', String(2000 + i), new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()),
  );
  await store.record(many, clock.now().toISOString());
  clock.advance(10_000);
  const big = parseCsv(await (await fetch(`${url}/api/attendance.csv`, { headers: { Authorization: `Bearer ${b.token}` } })).text()).slice(
    1,
  );
  t.equal(big.length, 2346, 'all of them (plus the earlier one)');
  const ids = big.map((r) => Number(r[col('id')]));
  t.equal(new Set(ids).size, ids.length, 'no row twice');
  t.ok(
    ids.every((id, i) => i === 0 || id > (ids[i - 1] as number)),
    'ascending arrival',
  );
});
