// Issue #33 item 7: the access tables a v3 terminal holds are audited like its roster. After the roster
// audit compares the user table, BioGate reads the terminal's `userauthorize`, `timezone` and `holiday`
// tables [PUSH-v3 §10.4] and sends again every user whose rows differ from what their access levels give
// there (a right widened or removed at the terminal's menu is put back; a user without levels keeps
// schedule 1 through every door), and a schedule or holiday table that differs from the location's.
import t from 'tap';
import { setup } from '../convergence/helpers.js';

interface Command {
  id: number;
  command: string;
  status: string;
  params: Record<string, unknown> | null;
}

t.test('v3: rights changed at the terminal are put back by the audit; matching rights queue nothing', async (t) => {
  const s = await setup(t);
  const created = async (path: string, body: unknown) => {
    const r = await s.api('POST', path, body);
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as { id: number };
  };
  const weekdays = await created('/api/schedules', {
    name: 'Weekdays',
    days: { mon: [{ start: '08:00', end: '18:00' }], tue: [{ start: '08:00', end: '18:00' }] },
  });
  const front = await created('/api/access-levels', { name: 'Front', schedule_id: weekdays.id, doors: [1], area_id: null });
  for (const [pin, access_levels] of [
    [1, [front.id]],
    [2, []],
  ] as const)
    t.equal((await s.api('POST', '/api/users', { pin, first_name: `U${pin}`, access_levels })).status, 201);

  const sim = await s.terminal('RIGHTS-V3', 'v3', { lockCount: 2 });
  const rows = (pin: string) =>
    sim
      .authorizations(pin)
      .map((a) => `${a.timezoneId}:${a.doorMask}`)
      .sort();
  await s.until(() => rows('1').join() === `${weekdays.id}:1` && rows('2').join() === '1:3', 'the rights of the levels');
  // An audit of a terminal holding its rights: the rights audit that follows finds nothing to repair.
  t.equal((await s.api('POST', '/api/devices/RIGHTS-V3/audit')).status, 202);
  const audits = async () =>
    ((await s.api('GET', '/api/commands?sn=RIGHTS-V3&command=access-audit&limit=100')).body as { data: Command[] }).data;
  await s.until(async () => (await audits()).some((c) => c.status === 'success'), 'the first rights audit answered');
  const upserts = async () =>
    ((await s.api('GET', '/api/commands?sn=RIGHTS-V3&command=sync-users&limit=100')).body as { total: number }).total;
  const before = await upserts();

  // At the terminal's menu: user 1 given every door at any time, user 2's right removed.
  sim.keypadRights('1', [
    { timezoneId: weekdays.id, doorMask: 1 },
    { timezoneId: 1, doorMask: 3 },
  ]);
  sim.keypadRights('2', []);
  t.equal((await s.api('POST', '/api/devices/RIGHTS-V3/audit')).status, 202);
  await s.until(() => rows('1').join() === `${weekdays.id}:1` && rows('2').join() === '1:3', 'the rights put back', 30_000);
  t.equal(await upserts(), before + 2, 'the two users sent again, nobody else');

  // A user without levels with an extra right (no more than schedule 1 through every door gives) is left alone.
  await s.until(async () => (await audits()).every((c) => c.status !== 'pending' && c.status !== 'sent'), 'that audit done');
  sim.keypadRights('2', [
    { timezoneId: 1, doorMask: 3 },
    { timezoneId: weekdays.id, doorMask: 2 },
  ]);
  const settled = (await audits()).length;
  t.equal((await s.api('POST', '/api/devices/RIGHTS-V3/audit')).status, 202);
  await s.until(async () => (await audits()).length > settled && (await audits()).every((c) => c.status === 'success'), 'the next audit');
  t.equal(await upserts(), before + 2, 'nothing more queued');
  t.match(
    await s.api('GET', '/api/devices/RIGHTS-V3/records?table=userauthorize'),
    { status: 200, body: { total: 0 } },
    "the audits' answers are compared, not kept as records",
  );

  // The schedule and holiday tables: changed at the terminal's menu, sent again whole by the next audit.
  t.equal(
    (await s.api('POST', '/api/holidays', { name: 'New Year', start_date: '2027-01-01', end_date: '2027-01-01', type: 1, recurring: true }))
      .status,
    201,
  );
  await s.until(() => sim.holidays().has('20270101'), 'the holiday on the terminal');
  const mon = sim.timezones().get(weekdays.id)?.['MonTime1'];
  t.equal(mon, 800 * 65_536 + 1800, 'the schedule on the terminal');
  sim.keypadTimezone(weekdays.id, { ...sim.timezones().get(weekdays.id), MonTime1: 0 });
  sim.keypadHolidays([{ Holiday: '20270102', HolidayType: '1', Loop: '1' }]);
  t.equal((await s.api('POST', '/api/devices/RIGHTS-V3/audit')).status, 202);
  await s.until(
    () => sim.timezones().get(weekdays.id)?.['MonTime1'] === mon && sim.holidays().has('20270101') && !sim.holidays().has('20270102'),
    'the schedule and holiday tables put back',
    30_000,
  );
  t.equal(await upserts(), before + 2, 'no user sent again for them');
});

t.test('v2: no rights audit (the v2 user table carries no per-door rights)', async (t) => {
  const s = await setup(t);
  t.equal((await s.api('POST', '/api/users', { pin: 1, first_name: 'U1' })).status, 201);
  const sim = await s.terminal('RIGHTS-V2', 'v2');
  await s.until(() => sim.users().has('1'), 'the user');
  t.equal((await s.api('POST', '/api/devices/RIGHTS-V2/audit')).status, 202);
  await s.until(async () => (await s.sync('RIGHTS-V2')).last_audit_at !== null, 'the roster audit');
  t.equal(((await s.api('GET', '/api/commands?sn=RIGHTS-V2&command=access-audit')).body as { total: number }).total, 0);
});

t.test('v3: a terminal that refuses the holiday query still has its rights and schedules compared', async (t) => {
  const s = await setup(t);
  t.equal(
    (await s.api('POST', '/api/holidays', { name: 'New Year', start_date: '2027-01-01', end_date: '2027-01-01', type: 1, recurring: true }))
      .status,
    201,
  );
  t.equal((await s.api('POST', '/api/users', { pin: 1, first_name: 'U1' })).status, 201);
  const sim = await s.terminal('NOHOL-V3', 'v3', { lockCount: 1, returnCodes: { 'DATA QUERY tablename=holiday': -629 } });
  await s.until(() => sim.authorizations('1').length === 1, 'the user and its right');
  sim.keypadRights('1', []);
  t.equal((await s.api('POST', '/api/devices/NOHOL-V3/audit')).status, 202);
  await s.until(() => sim.authorizations('1').length === 1, 'the right put back');
  const list = async (command: string) =>
    ((await s.api('GET', `/api/commands?sn=NOHOL-V3&command=${command}&limit=100`)).body as { data: Command[] }).data;
  await s.until(async () => (await list('access-audit')).every((c) => c.status === 'failed'), 'the audit ended');
  t.match((await list('access-audit'))[0], { status: 'failed' }, 'the refused line fails the query, not the comparison');
  t.equal((await list('holiday-sync')).length, 1, 'the holiday table the terminal cannot read back is not sent again');
});

t.test('v3: door settings changed at the terminal are put back by the audit; matching ones queue nothing', async (t) => {
  const s = await setup(t);
  const sim = await s.terminal('DOORS-V3', 'v3', { lockCount: 2 });
  t.equal((await s.api('PUT', '/api/devices/DOORS-V3/doors/1', { unlock_seconds: 7, normal_open_schedule_id: null })).status, 200);
  t.equal((await s.api('PUT', '/api/devices/DOORS-V3/doors/2', { unlock_seconds: 9, normal_open_schedule_id: 1 })).status, 200);
  const option = (key: string) => sim.deviceOptions().get(key);
  const held = () =>
    [option('Door1Drivertime'), option('Door1KeepOpenTimeZone'), option('Door2Drivertime'), option('Door2KeepOpenTimeZone')].join();
  await s.until(() => held() === '7,0,9,1', 'the door settings on the terminal');
  const list = async (command: string) =>
    ((await s.api('GET', `/api/commands?sn=DOORS-V3&command=${command}&limit=100`)).body as { data: Command[] }).data;
  const settled = async () => (await list('access-audit')).every((c) => c.status !== 'pending' && c.status !== 'sent');
  await s.until(async () => (await list('door-settings')).every((c) => c.status === 'success'), 'the door settings acknowledged');
  const sent = (await list('door-settings')).length;

  // An audit of a terminal holding its doors' settings: nothing sent again.
  t.equal((await s.api('POST', '/api/devices/DOORS-V3/audit')).status, 202);
  await s.until(
    async () => (await list('access-audit')).some((c) => c.status === 'success') && (await settled()),
    'the first access audit',
  );
  t.equal((await list('door-settings')).length, sent, 'no door sent again');

  // At the terminal's menu: door 2 held open no more and its relay time changed.
  sim.keypadOption('Door2Drivertime', '3');
  sim.keypadOption('Door2KeepOpenTimeZone', '0');
  const audits = (await list('access-audit')).length;
  t.equal((await s.api('POST', '/api/devices/DOORS-V3/audit')).status, 202);
  await s.until(async () => (await list('access-audit')).length > audits && (await settled()), 'the next access audit');
  await s.until(() => held() === '7,0,9,1', 'door 2 put back', 30_000);
  const doorCommands = await list('door-settings');
  t.equal(doorCommands.length, sent + 1, 'door 2 alone sent again');
  t.match(doorCommands[0], { params: { door: 2 } });
});
