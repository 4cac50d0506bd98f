// Issue #33 items 2 and 4, end to end with emulated terminals over HTTP: schedules reach v3 terminals as
// `timezone` rows with the packed intervals [PUSH-v3 §11.2]; a user's access levels become one
// `userauthorize` row per schedule with the union of their doors [COMMANDS §3.2]; a level of another
// area gives no row there; a user without levels keeps schedule 1 through every door; changes to a
// schedule or level reach the users' terminals; what is in use cannot be deleted.
import t from 'tap';
import { setup, type Setup } from '../convergence/helpers.js';

const WEEKDAY = [
  { start: '08:30', end: '12:00' },
  { start: '13:00', end: '17:30' },
];
const packed = (start: number, end: number) => start * 65_536 + end;

async function created<T>(s: Setup, path: string, body: unknown): Promise<T> {
  const r = await s.api('POST', path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
}

t.test('schedules and access levels on v3 terminals: timezone rows, door masks, areas', async (t) => {
  const s = await setup(t);
  const office = await created<{ id: number }>(s, '/api/areas', { name: 'Office' });
  const weekdays = await created<{ id: number; days: Record<string, unknown> }>(s, '/api/schedules', {
    name: 'Weekdays',
    days: { mon: WEEKDAY, tue: WEEKDAY, wed: WEEKDAY, thu: WEEKDAY, fri: WEEKDAY },
  });
  t.equal(weekdays.id, 2, 'the first schedule of the location is number 2 ("Always" is 1)');
  t.same(weekdays.days['sun'], [], 'absent days have no interval');
  const front = await created<{ id: number }>(s, '/api/access-levels', {
    name: 'Front',
    schedule_id: weekdays.id,
    doors: [1],
    area_id: null,
  });
  const back = await created<{ id: number }>(s, '/api/access-levels', {
    name: 'Back',
    schedule_id: weekdays.id,
    doors: [3],
    area_id: null,
  });
  const officeOnly = await created<{ id: number }>(s, '/api/access-levels', {
    name: 'Office',
    schedule_id: 1,
    doors: [2],
    area_id: office.id,
  });

  for (const [pin, access_levels] of [
    [1, [front.id, back.id]],
    [2, []],
    [3, [officeOnly.id]],
  ] as const)
    t.equal((await s.api('POST', '/api/users', { pin, first_name: `U${pin}`, access_levels })).status, 201);
  t.same(((await s.api('GET', '/api/users/1')).body as { access_levels: number[] }).access_levels, [front.id, back.id]);

  const lobby = await s.terminal('ACC-LOBBY', 'v3', { lockCount: 4 });
  const legacy = await s.terminal('ACC-V2', 'v2');
  await s.until(() => lobby.users().size === 3 && legacy.users().size === 3, 'every user on both terminals');
  await s.until(() => lobby.authorizations('1').length === 1, "user 1's right");
  t.same(
    lobby.authorizations('1').map((a) => [a.timezoneId, a.doorMask]),
    [[weekdays.id, 5]],
    'levels over doors 1 and 3 with one schedule: one row, AuthorizeDoorId 5',
  );
  t.same(
    lobby.authorizations('2').map((a) => a.timezoneId),
    [1],
    'no level: schedule 1, as before levels',
  );
  t.same(lobby.authorizations('3'), [], 'a level of another area gives no right here: present, opens no door');
  const row = lobby.timezones().get(weekdays.id);
  t.match(
    row,
    {
      SunTime1: 0,
      MonTime1: packed(830, 1200),
      MonTime2: packed(1300, 1730),
      MonTime3: 0,
      FriTime2: packed(1300, 1730),
      SatTime1: 0,
      Hol1Time1: 0,
    },
    'the timezone row: (startHHMM << 16) | endHHMM per interval, 0 when empty',
  );
  t.equal(Object.keys(row ?? {}).length, 30, 'thirty values, Sun…Sat and three holiday types');
  t.ok(legacy.users().has('3'), 'a v2 terminal receives a schedule-restricted user');
  t.match(
    await s.api('GET', '/api/devices/ACC-V2'),
    { body: { access_control: { schedules: false, doors: 1 } } },
    'and says it cannot hold the schedule',
  );
  t.match(await s.api('GET', '/api/devices/ACC-LOBBY'), { body: { access_control: { schedules: true, doors: 4 } } });

  // A schedule changed: the terminals get the new row, and no user is sent again (rights name it by id).
  const syncOps = async () => ((await s.api('GET', '/api/commands?command=sync-users&limit=1')).body as { total: number }).total;
  const opsBefore = await syncOps();
  t.equal(
    (await s.api('PUT', `/api/schedules/${weekdays.id}`, { name: 'Weekdays', days: { mon: [{ start: '07:00', end: '19:00' }] } })).status,
    200,
  );
  await s.until(() => lobby.timezones().get(weekdays.id)?.['MonTime1'] === packed(700, 1900), 'the changed schedule on the terminal');
  t.equal(lobby.timezones().get(weekdays.id)?.['TueTime1'], 0);
  t.equal(await syncOps(), opsBefore, 'one timezone-sync per terminal, no user lines');
  t.notOk(
    legacy.executed().some((c) => c.command.includes('timezone')),
    'nothing of the timezone table reached the v2 terminal',
  );

  // A level deleted: its users lose it and their rows are replaced.
  t.equal((await s.api('DELETE', `/api/access-levels/${back.id}`)).status, 200);
  t.same(((await s.api('GET', '/api/users/1')).body as { access_levels: number[] }).access_levels, [front.id]);
  await s.until(() => lobby.authorizations('1')[0]?.doorMask === 1, 'door 1 only');

  // Holidays: the v3 terminal's `holiday` table is replaced with one row per day; a v2 terminal is sent none.
  const xmas = await created<{ id: number }>(s, '/api/holidays', {
    name: 'Christmas',
    start_date: '2026-12-24',
    end_date: '2026-12-26',
    type: 2,
    recurring: true,
  });
  await s.until(() => lobby.holidays().size === 3, 'the three holiday rows');
  t.same(lobby.holidays().get('20261225'), { Holiday: '20261225', HolidayType: '2', Loop: '1' });
  t.equal(
    (
      await s.api('PUT', `/api/holidays/${xmas.id}`, {
        name: 'Christmas',
        start_date: '2026-12-25',
        end_date: '2026-12-25',
        type: 1,
        recurring: false,
      })
    ).status,
    200,
  );
  await s.until(() => lobby.holidays().size === 1, 'the table replaced');
  t.same(lobby.holidays().get('20261225'), { Holiday: '20261225', HolidayType: '1', Loop: '2' });
  t.notOk(
    legacy.executed().some((c) => c.command.includes('holiday')),
    'nothing of holidays reached the v2 terminal',
  );
  t.match(
    await s.api('POST', '/api/holidays', { name: 'Long', start_date: '2026-01-01', end_date: '2027-01-02', type: 1, recurring: false }),
    { status: 422 },
  );
  t.match(
    await s.api('POST', '/api/holidays', { name: 'Back', start_date: '2026-01-02', end_date: '2026-01-01', type: 1, recurring: false }),
    {
      status: 422,
      body: { detail: [{ loc: ['body', 'end_date'] }] },
    },
  );
  t.equal((await s.api('DELETE', `/api/holidays/${xmas.id}`)).status, 200);
  await s.until(() => lobby.holidays().size === 0, 'no holiday left on the terminal');

  // Doors: 1 to the reported lock count; the settings leave as SET OPTIONS; a schedule keeping a door open is in use.
  const doors = (await s.api('GET', '/api/devices/ACC-LOBBY/doors')).body as { data: unknown[] };
  t.equal(doors.data.length, 4, 'a door per lock');
  const open = await created<{ id: number }>(s, '/api/schedules', {
    name: 'Lobby hours',
    days: { mon: [{ start: '08:00', end: '18:00' }] },
  });
  t.match(await s.api('PUT', '/api/devices/ACC-LOBBY/doors/2', { unlock_seconds: 7, normal_open_schedule_id: open.id }), {
    status: 200,
    body: { door: 2, unlock_seconds: 7, normal_open_schedule_id: open.id },
  });
  await s.until(
    () => lobby.executed().some((c) => c.command === `SET OPTIONS Door2Drivertime=7,Door2KeepOpenTimeZone=${open.id}`),
    'the door options',
  );
  // No access level names it, yet the terminal holds its row: the door's setting refers to it.
  await s.until(() => lobby.timezones().get(open.id)?.['MonTime1'] === packed(800, 1800), 'the door schedule on the terminal');
  t.match(await s.api('GET', '/api/devices/ACC-LOBBY/doors'), {
    body: {
      data: [
        { door: 1, unlock_seconds: null },
        { door: 2, unlock_seconds: 7 },
      ],
    },
  });
  t.match(await s.api('PUT', '/api/devices/ACC-V2/doors/2', { unlock_seconds: 5, normal_open_schedule_id: null }), {
    status: 422,
    body: { detail: [{ loc: ['path', 'door'] }] },
  });
  t.match(
    await s.api('DELETE', `/api/schedules/${open.id}`),
    { status: 409, body: { code: 'SCHEDULE_IN_USE' } },
    'a door is kept open by it',
  );

  // What is in use stays; "Always" never changes.
  t.match(await s.api('DELETE', `/api/schedules/${weekdays.id}`), { status: 409, body: { code: 'SCHEDULE_IN_USE' } });
  t.match(await s.api('PUT', '/api/schedules/1', { name: 'Never', days: {} }), { status: 422 });
  t.match(await s.api('DELETE', '/api/schedules/1'), { status: 422 });
  t.match(await s.api('GET', '/api/schedules/1'), {
    status: 200,
    body: { name: 'Always', days: { sun: [{ start: '00:00', end: '23:59' }] } },
  });
});

t.test('schedules and levels: validation and limits', async (t) => {
  const s = await setup(t);
  t.match(await s.api('POST', '/api/schedules', { name: 'Bad', days: { mon: [{ start: '12:00', end: '08:00' }] } }), {
    status: 422,
    body: { detail: [{ loc: ['body', 'days', 'mon', 0], msg: /before end/ }] },
  });
  t.match(await s.api('POST', '/api/schedules', { name: 'Bad', days: { mon: [{ start: '08:00', end: '24:00' }] } }), { status: 422 });
  t.match(
    await s.api('POST', '/api/schedules', { name: 'Bad', days: { mon: [0, 1, 2, 3].map(() => ({ start: '08:00', end: '09:00' })) } }),
    { status: 422 },
    'at most three intervals a day',
  );
  for (let n = 2; n <= 50; n++) t.equal((await s.api('POST', '/api/schedules', { name: `S${n}`, days: {} })).status, 201);
  t.match(await s.api('POST', '/api/schedules', { name: 'S51', days: {} }), { status: 422 }, 'at most 50 schedules, "Always" included');
  t.equal(((await s.api('GET', '/api/schedules?limit=100')).body as { total: number }).total, 50);
  t.match(await s.api('POST', '/api/access-levels', { name: 'L', schedule_id: 7, doors: [5], area_id: null }), { status: 422 });
  t.match(await s.api('POST', '/api/access-levels', { name: 'L', schedule_id: 7, doors: [1], area_id: 424_242 }), {
    status: 422,
    body: { detail: [{ loc: ['body', 'area_id'] }] },
  });
  t.equal((await s.api('DELETE', '/api/schedules/7')).status, 200, 'a schedule no level names');
  t.match(await s.api('POST', '/api/access-levels', { name: 'L', schedule_id: 7, doors: [1], area_id: null }), {
    status: 422,
    body: { detail: [{ loc: ['body', 'schedule_id'] }] },
  });
  t.match(await s.api('POST', '/api/users', { pin: 1, first_name: 'A', access_levels: [999] }), {
    status: 422,
    body: { detail: [{ loc: ['body', 'access_levels', 0] }] },
  });
  t.equal((await s.api('GET', '/api/users/1')).status, 404);
});

t.test('a v3 terminal assigned before its first contact gets the holidays and its door settings when it registers', async (t) => {
  const s = await setup(t);
  await created(s, '/api/holidays', { name: 'New Year', start_date: '2027-01-01', end_date: '2027-01-01', type: 1, recurring: true });
  t.equal((await s.api('POST', '/api/devices', { sn: 'ACC-EARLY', name: 'Early' })).status, 201);
  t.match(await s.api('GET', '/api/devices/ACC-EARLY'), { body: { access_control: { schedules: false } } }, 'not known to store them yet');
  t.equal((await s.api('PUT', '/api/devices/ACC-EARLY/doors/1', { unlock_seconds: 9, normal_open_schedule_id: null })).status, 200);
  const total = async (query: string) => ((await s.api('GET', `/api/commands?${query}`)).body as { total: number }).total;
  t.equal(await total('sn=ACC-EARLY&command=holiday-sync'), 0, 'nothing queued for an unknown terminal');

  const early = await s.terminal('ACC-EARLY', 'v3', { lockCount: 2 }, false);
  await s.until(() => early.holidays().size === 1, 'the holiday table after registration');
  t.same(early.holidays().get('20270101'), { Holiday: '20270101', HolidayType: '1', Loop: '1' });
  await s.until(
    () => early.executed().some((c) => c.command === 'SET OPTIONS Door1Drivertime=9,Door1KeepOpenTimeZone=0'),
    'the door options after registration',
  );
  t.match(await s.api('GET', '/api/devices/ACC-EARLY'), { body: { access_control: { schedules: true, doors: 2 } } });

  // Registering again (terminals re-register on every connection) queues nothing more.
  const before = await total('sn=ACC-EARLY');
  await early.pause();
  await early.handshake();
  await early.pollOnce();
  t.equal(await total('sn=ACC-EARLY'), before, 'no second holiday or door command');
});
