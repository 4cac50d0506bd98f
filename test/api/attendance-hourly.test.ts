/**
 * GET /api/attendance/hourly (issue #38 item 7, the console's dashboard): punches per local hour of a calendar day in
 * the location's zone, a DST day with 23 or 25 hours, today by default, another location's punches not counted, a bad
 * date refused.
 */
import t from 'tap';
import { localHours } from '../../src/api/attendance-hourly.js';
import { gateway } from './client.js';

type Hourly = { date: string; timezone: string; hours: { hour: number; start: string; count: number }[] };

t.test('a DST day in Berlin: 23 hours in spring, 25 in autumn with 02:00 twice', async (t) => {
  const spring = localHours('2026-03-29', 'Europe/Berlin').hours;
  t.equal(spring.length, 23);
  t.same(
    spring.slice(0, 3).map((h) => h.hour),
    [0, 1, 3],
    '02:00 does not exist',
  );
  const autumn = localHours('2026-10-25', 'Europe/Berlin').hours;
  t.equal(autumn.length, 25);
  t.same(
    autumn.slice(0, 5).map((h) => h.hour),
    [0, 1, 2, 2, 3],
    '02:00 comes twice',
  );
  t.equal(new Date(autumn[0]?.start ?? 0).toISOString(), '2026-10-24T22:00:00.000Z', 'local midnight, UTC+2');
  t.same(
    localHours('2026-06-01', 'UTC').hours.map((h) => h.hour),
    Array.from({ length: 24 }, (_, i) => i),
  );
});

t.test('punches counted in their local hour; today by default; one location only; a bad date is 422', async (t) => {
  const g = await gateway(t);
  await g.started.app.locations.update(g.a.id, { timezone: 'Asia/Tokyo' });
  const other = await g.tenant('Other');
  for (const api of [g.a.api, other.api]) {
    t.equal((await api('POST', '/api/users', { body: { pin: 5, first_name: 'Kei' } })).status, 201);
  }
  // 09:10, 09:50 and 17:30 in Tokyo on 2026-05-04 (UTC+9); one at 23:59:59 the day before.
  for (const at of ['2026-05-04T00:10:00Z', '2026-05-04T00:50:00Z', '2026-05-04T08:30:00Z', '2026-05-03T14:59:59Z']) {
    t.equal((await g.a.api('POST', '/api/attendance', { body: { pin: 5, timestamp: at, reason: 'test' } })).status, 201);
  }
  t.equal((await other.api('POST', '/api/attendance', { body: { pin: 5, timestamp: '2026-05-04T00:20:00Z', reason: 'x' } })).status, 201);

  const day = await g.a.api<Hourly>('GET', '/api/attendance/hourly?date=2026-05-04');
  t.equal(day.status, 200);
  t.match(day.body, { date: '2026-05-04', timezone: 'Asia/Tokyo' });
  t.equal(day.body.hours.length, 24);
  const counts = Object.fromEntries(day.body.hours.filter((h) => h.count > 0).map((h) => [h.hour, h.count]));
  t.same(counts, { 9: 2, 17: 1 }, 'by local hour, this location only, the day before left out');
  t.equal(day.body.hours[9]?.start, '2026-05-04T00:00:00.000Z');
  const before = await g.a.api<Hourly>('GET', '/api/attendance/hourly?date=2026-05-03');
  t.same(
    before.body.hours.filter((h) => h.count > 0).map((h) => h.hour),
    [23],
    'the 23:59:59 punch on its own day',
  );

  const today = await g.a.api<Hourly>('GET', '/api/attendance/hourly');
  t.equal(today.body.date, new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Tokyo' }).format(new Date()), 'today in Tokyo');
  for (const bad of ['2026-02-30', '20260504', 'today']) {
    t.equal((await g.a.api('GET', `/api/attendance/hourly?date=${bad}`)).status, 422, `${bad}: 422`);
  }
});
