/**
 * GET /api/attendance/daily and daily.csv over real HTTP (issue #35 item 1): the location's settings changed by the
 * admin API and read at GET /api/me, a night shift across the spring DST change cut at day_start_hour, a repeat
 * within attendance_debounce_s, states 255, the pin and area filters, paging, the CSV, 422s and tenant isolation; and
 * GET /api/presence (issue #35 item 2) from today's punches.
 * Punches go in through the store port, as the device runtime stores them (test/api/attendance.test.ts).
 */
import t from 'tap';
import type { NewAttendance } from '../../src/store/ports/index.js';
import { client, gateway, type ErrorBody, type Page } from './client.js';

const ADMIN_TOKEN = 'time-cards-admin-token-0123456789abcdef';

interface Card {
  pin: string;
  name: string | null;
  date: string;
  first_in: string;
  last_out: string | null;
  punches: number;
  worked_minutes: number;
  incomplete: boolean;
  sources: string[];
}

/** A punch at a Berlin wall-clock time with its offset then (hours east of UTC). */
const punch = (locationId: number, pin: string, local: string, offsetH: number, status: number): NewAttendance => ({
  location_id: locationId,
  sn: 'TC-1',
  pin,
  user_id: null,
  timestamp: new Date(Date.parse(`${local.replace(' ', 'T')}Z`) - offsetH * 3_600_000).toISOString(),
  local_time: local,
  status,
  verify: 1,
  work_code: null,
});

t.test('daily time cards: settings, DST night shift, debounce, filters, CSV, validation, isolation', async (t) => {
  const g = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  const { a, started } = g;
  const admin = client(g.url, ADMIN_TOKEN);
  const b = await g.tenant('Other');

  t.match(await a.api('GET', '/api/me'), { body: { attendance_debounce_s: 60, day_start_hour: 0 } }, 'the defaults');
  t.match(await admin('PATCH', `/admin/locations/${a.id}`, { body: { day_start_hour: 24 } }), { status: 422 });
  t.match(await admin('PATCH', `/admin/locations/${a.id}`, { body: { attendance_debounce_s: -1 } }), { status: 422 });
  const patched = await admin('PATCH', `/admin/locations/${a.id}`, {
    body: { timezone: 'Europe/Berlin', day_start_hour: 7, attendance_debounce_s: 120 },
  });
  t.match(patched, { status: 200, body: { day_start_hour: 7, attendance_debounce_s: 120 } });
  t.match(await a.api('GET', '/api/me'), { body: { attendance_debounce_s: 120, day_start_hour: 7 } }, 'GET /api/me shows them');

  const night = (await a.api<{ id: number }>('POST', '/api/areas', { body: { name: 'Night' } })).body.id;
  t.equal((await a.api('POST', '/api/users', { body: { pin: 1, first_name: 'Ada', last_name: 'Lee', areas: [night] } })).status, 201);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 2, first_name: 'Bo' } })).status, 201);
  const now = new Date().toISOString();
  await started.app.store.attendance.record(
    [
      // 22:00 +01:00 in, a repeat 90 s later, out at 06:30 +02:00 after the clocks went forward: 7 h 30 min.
      punch(a.id, '1', '2026-03-28 22:00:00', 1, 0),
      punch(a.id, '1', '2026-03-28 22:01:30', 1, 0),
      punch(a.id, '1', '2026-03-29 06:30:00', 2, 1),
      // A terminal without states (255): first to last.
      punch(a.id, '2', '2026-03-29 09:00:00', 2, 255),
      punch(a.id, '2', '2026-03-29 17:00:00', 2, 255),
      // A PIN without a user: a card without a name.
      punch(a.id, '77', '2026-03-29 10:00:00', 2, 0),
    ],
    now,
  );
  await started.app.store.attendance.record([punch(b.id, '1', '2026-03-28 09:00:00', 1, 0)], now);

  const all = await a.api<Page<Card>>('GET', '/api/attendance/daily?from=2026-03-28&to=2026-03-29');
  t.equal(all.status, 200);
  t.equal(all.body.total, 3);
  t.same(all.body.data, [
    {
      pin: '1',
      name: 'Ada Lee',
      date: '2026-03-28',
      first_in: '2026-03-28T22:00:00+01:00',
      last_out: '2026-03-29T06:30:00+02:00',
      punches: 2,
      worked_minutes: 7 * 60 + 30,
      incomplete: false,
      sources: ['device'],
    },
    {
      pin: '2',
      name: 'Bo',
      date: '2026-03-29',
      first_in: '2026-03-29T09:00:00+02:00',
      last_out: '2026-03-29T17:00:00+02:00',
      punches: 2,
      worked_minutes: 8 * 60,
      incomplete: false,
      sources: ['device'],
    },
    {
      pin: '77',
      name: null,
      date: '2026-03-29',
      first_in: '2026-03-29T10:00:00+02:00',
      last_out: null,
      punches: 1,
      worked_minutes: 0,
      incomplete: true,
      sources: ['device'],
    },
  ]);

  const pins = async (query: string) => (await a.api<Page<Card>>('GET', `/api/attendance/daily?${query}`)).body.data.map((c) => c.pin);
  t.same(await pins(`from=2026-03-28&to=2026-03-29&area_id=${night}`), ['1'], 'the area’s users');
  t.same(await pins('from=2026-03-28&to=2026-03-29&pin=2'), ['2'], 'one PIN');
  t.same(await pins('from=2026-03-29&to=2026-03-29'), ['2', '77'], 'the night shift belongs to the day it started');
  t.match(await a.api('GET', '/api/attendance/daily?from=2026-03-28&to=2026-03-29&limit=1&page=2'), {
    body: { total: 3, page: 2, limit: 1, data: [{ pin: '2' }] },
  });

  const csv = await a.api<string>('GET', '/api/attendance/daily.csv?from=2026-03-28&to=2026-03-29&pin=1');
  t.equal(csv.status, 200);
  t.match(csv.headers.get('content-type'), /^text\/csv/);
  t.equal(
    csv.body,
    'pin,name,date,first_in,last_out,punches,worked_minutes,incomplete,sources\r\n' +
      '1,Ada Lee,2026-03-28,2026-03-28T22:00:00+01:00,2026-03-29T06:30:00+02:00,2,450,false,device\r\n',
  );

  for (const [query, loc] of [
    ['from=2026-03-29&to=2026-03-28', 'query.to'],
    ['from=2026-01-01&to=2026-04-04', 'query.to'],
    ['from=2026-02-30&to=2026-03-01', 'query.from'],
    ['from=2026-03-01&to=2026-3-2', 'query.to'],
    ['from=2026-03-01&to=2026-03-02&area_id=0', 'query.area_id'],
  ] as const) {
    const r = await a.api<ErrorBody>('GET', `/api/attendance/daily?${query}`);
    t.equal(r.status, 422, query);
    t.match(JSON.stringify(r.body), loc.split('.')[1] as string, `${query}: names ${loc}`);
  }
  t.match(await a.api('GET', '/api/attendance/daily?from=2026-01-01&to=2026-04-03'), { status: 200 }, '93 days are allowed');
  t.match(await a.api('GET', '/api/attendance/daily?from=2026-03-28&to=2026-03-29&area_id=424242'), {
    status: 404,
    body: { code: 'AREA_NOT_FOUND' },
  });

  // Today, in the location's zone: the day made to start 12 h from now, so that punches of the last minutes are today's.
  // One instant for the whole case: the expected `since` below must name the very second that was punched.
  const punchedAt = Date.now();
  const berlin = (msAgo: number) => {
    const at = Math.floor((punchedAt - msAgo) / 1000) * 1000;
    const wall = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', dateStyle: 'short', timeStyle: 'medium' }).format(at);
    return { wall, offsetH: Math.round(((Date.parse(`${wall.replace(' ', 'T')}Z`) - at) / 3_600_000) * 4) / 4 };
  };
  const hour = Number(berlin(0).wall.slice(11, 13));
  t.equal((await admin('PATCH', `/admin/locations/${a.id}`, { body: { day_start_hour: (hour + 12) % 24 } })).status, 200);
  const today = (pin: string, msAgo: number, status: number) => {
    const { wall, offsetH } = berlin(msAgo);
    return punch(a.id, pin, wall, offsetH, status);
  };
  await started.app.store.attendance.record(
    [today('1', 300_000, 0), today('1', 150_000, 1), today('2', 0, 0), today('77', 200_000, 255)],
    new Date().toISOString(),
  );
  t.match(
    await a.api('GET', '/api/attendance/daily'),
    { status: 200, body: { total: 3, data: [{ pin: '1', punches: 2 }, { pin: '2', punches: 1 }, { pin: '77' }] } },
    'without from/to: today',
  );

  // Presence: pin 1 checked in and out, pin 2 punched once on a terminal without states, pin 77 with state 255.
  const present = await a.api<{ count: number; data: { pin: string; name: string | null; state: string; since: string; sn: string }[] }>(
    'GET',
    '/api/presence',
  );
  t.equal(present.status, 200);
  t.equal(present.body.count, 1, 'one user in');
  t.same(
    present.body.data.map((r) => [r.pin, r.name, r.state, r.sn]),
    [
      ['1', 'Ada Lee', 'out', 'TC-1'],
      ['2', 'Bo', 'in', 'TC-1'],
      ['77', null, 'unknown', 'TC-1'],
    ],
  );
  t.equal(present.body.data[0]?.since, `${berlin(150_000).wall.replace(' ', 'T')}+0${berlin(150_000).offsetH}:00`, 'since: the last punch');
  t.match(await a.api('GET', `/api/presence?area_id=${night}`), { body: { count: 0, data: [{ pin: '1', state: 'out' }] } }, 'an area');
  t.match(await a.api('GET', '/api/presence?area_id=424242'), { status: 404, body: { code: 'AREA_NOT_FOUND' } });
  t.match(await b.api('GET', '/api/presence'), { status: 200, body: { count: 0, data: [] } }, 'the other location sees none of A’s');

  const theirs = await b.api<Page<Card>>('GET', '/api/attendance/daily?from=2026-03-28&to=2026-03-29');
  t.same(
    theirs.body.data.map((c) => [c.pin, c.date, c.name]),
    [['1', '2026-03-28', null]],
    'the other location sees its own punch, not A’s user',
  );
});
