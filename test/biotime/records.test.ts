/**
 * The BioTime-compatible API's records (issue #37 items 2–5): the list envelope and its paging, transactions and
 * their filters, terminals, employees written through it reaching an emulated terminal, departments, positions and
 * areas, field errors in DRF's shape, and one location never seeing another's records.
 */
import t from 'tap';
import { biotimeSetup, punchesListed, terminal, until, type Json, type List } from './helpers.js';

t.test('transactions: the envelope, paging by absolute URLs that keep the filters, every filter and ordering', async (t) => {
  const s = await biotimeSetup(t);
  const auth = `Token ${s.app.token}`;
  await s.api('POST', '/api/users', { pin: 1001, first_name: 'Ana', last_name: 'Diaz' });
  const desk = await terminal(t, s, 'BT-DESK', 'Front desk');
  const gate = await terminal(t, s, 'BT-GATE', 'Gate');
  // 12 punches of PIN 1001 on the desk, 3 of PIN 1002 at the gate, a minute apart from 09:00 local (UTC here).
  for (let i = 0; i < 12; i++) t.ok(await desk.punch('1001', `2026-03-01 09:${String(i).padStart(2, '0')}:00`, i % 2, 1));
  for (let i = 0; i < 3; i++) t.ok(await gate.punch('1002', `2026-03-01 10:0${i}:00`, 0, 15));
  await punchesListed(s, 15);
  const get = async (path: string): Promise<List> => {
    const r = await s.call('GET', path, auth);
    t.equal(r.status, 200, path);
    return r.body as unknown as List;
  };
  const first = await get('/biotime/iclock/api/transactions/?emp_code=1001');
  t.equal(first.count, 12);
  t.equal(first.data.length, 10, 'page_size defaults to 10');
  t.equal(first.previous, null);
  t.equal(first.next, `${s.app.url}/biotime/iclock/api/transactions/?emp_code=1001&page=2`, 'absolute, the filter kept, page last');
  const second = await get((first.next as string).slice(s.app.url.length));
  t.equal(second.data.length, 2);
  t.equal(second.next, null);
  t.equal(second.previous, `${s.app.url}/biotime/iclock/api/transactions/?emp_code=1001`);
  const ids = [...first.data, ...second.data].map((x) => x['id'] as number);
  t.same(
    ids,
    [...ids].sort((a, b) => a - b),
    'by id, ascending, by default',
  );

  t.match(first.data[1], {
    emp: Number,
    emp_code: '1001',
    first_name: 'Ana',
    last_name: 'Diaz',
    department: null,
    punch_time: '2026-03-01 09:01:00',
    punch_state: '1',
    punch_state_display: 'Check Out',
    verify_type: 1,
    verify_type_display: 'Fingerprint',
    terminal_sn: 'BT-DESK',
    terminal_alias: 'Front desk',
    area_alias: null,
    work_code: '0',
    upload_time: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
  });
  const face = await get('/biotime/iclock/api/transactions/?terminal_alias=Gate');
  t.equal(face.count, 3);
  t.match(face.data[0], {
    emp_code: '1002',
    first_name: '',
    verify_type: 15,
    verify_type_display: 'Face',
    punch_state_display: 'Check In',
  });

  t.equal((await get('/biotime/iclock/api/transactions/?terminal_sn=BT-GATE&limit=2')).data.length, 2, '`limit` is page_size');
  t.equal((await get('/biotime/iclock/api/transactions/?terminal_alias=Nowhere')).count, 0);
  const window = await get('/biotime/iclock/api/transactions/?start_time=2026-03-01%2009:05:00&end_time=2026-03-01%2009:07:59');
  t.same(
    window.data.map((x) => x['punch_time']),
    ['2026-03-01 09:05:00', '2026-03-01 09:06:00', '2026-03-01 09:07:00'],
  );
  const latest = await get('/biotime/iclock/api/transactions/?ordering=-punch_time&page_size=1');
  t.equal(latest.data[0]?.['punch_time'], '2026-03-01 10:02:00');
  const after = await get(`/biotime/iclock/api/transactions/?id__gt=${ids[9]}&page_size=1000`);
  t.same(
    after.data.map((x) => x['id']),
    [ids[10], ids[11], ...face.data.map((x) => x['id'])],
  );
  const one = await s.call('GET', `/biotime/iclock/api/transactions/${ids[0]}/`, auth);
  t.match(one.body, { id: ids[0], punch_time: '2026-03-01 09:00:00' });

  const badTime = await s.call('GET', '/biotime/iclock/api/transactions/?start_time=yesterday', auth);
  t.equal(badTime.status, 400);
  t.match(badTime.body, { start_time: [String] });
  t.same((await s.call('GET', '/biotime/iclock/api/transactions/?page=3&emp_code=1001', auth)).body, { detail: 'Invalid page.' });
  t.equal((await s.call('GET', '/biotime/iclock/api/transactions/?page_size=0', auth)).status, 400);
  t.equal((await s.call('GET', '/biotime/iclock/api/transactions/?ordering=pin', auth)).status, 400);
  const big = await get('/biotime/iclock/api/transactions/?page_size=5000');
  t.equal(big.data.length, 15, 'page_size is capped at 1000, not refused');

  // Another location sees none of it, and not by id either.
  const other = `Token ${s.otherToken}`;
  t.equal(((await s.call('GET', '/biotime/iclock/api/transactions/', other)).body as unknown as List).count, 0);
  t.equal((await s.call('GET', `/biotime/iclock/api/transactions/${ids[0]}/`, other)).status, 404);
  t.equal(((await s.call('GET', '/biotime/iclock/api/terminals/', other)).body as unknown as List).count, 0);
});

t.test('terminals: BioGate devices in BioTime fields, filters, details', async (t) => {
  const s = await biotimeSetup(t);
  const auth = `Token ${s.app.token}`;
  const area = await s.api('POST', '/api/areas', { name: 'Lobby' });
  await terminal(t, s, 'BT-T1', 'Lobby door', 'v3');
  await terminal(t, s, 'BT-T2', 'Back door');
  t.equal((await s.api('PATCH', '/api/devices/BT-T1', { area_id: area.body['id'] })).status, 200);
  const list = (await s.call('GET', '/biotime/iclock/api/terminals/', auth)).body as unknown as List;
  t.equal(list.count, 2);
  const t1 = list.data.find((x) => x['sn'] === 'BT-T1') as Json;
  t.match(t1, {
    id: Number,
    sn: 'BT-T1',
    alias: 'Lobby door',
    terminal_name: 'Lobby door',
    ip_address: '127.0.0.1',
    state: 1,
    terminal_tz: 0,
    area: { id: area.body['id'], area_code: String(area.body['id']), area_name: 'Lobby' },
    area_name: 'Lobby',
    last_activity: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
    transfer_time: String,
    is_attendance: 1,
  });
  t.ok('user_count' in t1 && 'fp_count' in t1 && 'face_count' in t1 && 'transaction_count' in t1 && 'fw_ver' in t1 && 'push_ver' in t1);
  const bySn = (await s.call('GET', '/biotime/iclock/api/terminals/?sn=BT-T2', auth)).body as unknown as List;
  t.same(
    bySn.data.map((x) => x['alias']),
    ['Back door'],
  );
  const byArea = (await s.call('GET', `/biotime/iclock/api/terminals/?area=${area.body['id']}`, auth)).body as unknown as List;
  t.same(
    byArea.data.map((x) => x['sn']),
    ['BT-T1'],
  );
  t.match((await s.call('GET', `/biotime/iclock/api/terminals/${t1['id']}/`, auth)).body, { sn: 'BT-T1' });
  t.equal((await s.call('GET', `/biotime/iclock/api/terminals/${t1['id']}/`, `Token ${s.otherToken}`)).status, 404);
});

t.test('employees: written through BioTime, synced to the terminal, errors in DRF shape', async (t) => {
  const s = await biotimeSetup(t);
  const auth = `Token ${s.app.token}`;
  const sim = await terminal(t, s, 'BT-EMP', 'Entrance', 'v3');
  const area = (await s.api('POST', '/api/areas', { name: 'HQ' })).body['id'] as number;
  const dept = await s.call('POST', '/biotime/personnel/api/departments/', auth, { dept_code: 'ENG', dept_name: 'Engineering' });
  t.equal(dept.status, 201);
  t.same(dept.body, { id: dept.body['id'], dept_code: 'ENG', dept_name: 'Engineering', parent_dept: null });
  t.equal((await s.call('POST', '/biotime/personnel/api/departments/', auth, { dept_code: 'E2', dept_name: 'Engineering' })).status, 400);
  const pos = await s.call('POST', '/biotime/personnel/api/positions/', auth, { position_code: 'DEV', position_name: 'Developer' });
  t.equal(pos.status, 201);

  const created = await s.call('POST', '/biotime/personnel/api/employees/', auth, {
    emp_code: '2001',
    first_name: 'Sara',
    last_name: 'Lee',
    department: dept.body['id'],
    position: pos.body['id'],
    area: [area],
    hire_date: '2026-01-05',
  });
  t.equal(created.status, 201);
  t.match(created.body, {
    id: Number,
    emp_code: '2001',
    first_name: 'Sara',
    department: { id: dept.body['id'], dept_code: 'ENG', dept_name: 'Engineering' },
    position: { id: pos.body['id'], position_code: 'DEV', position_name: 'Developer' },
    area: [{ id: area, area_code: String(area), area_name: 'HQ' }],
  });
  const user = await s.api('GET', '/api/users/2001');
  t.match(user.body, { pin: 2001, first_name: 'Sara', department: 'Engineering', position: 'Developer', areas: [area] });
  // The terminal has no area: it holds every active user.
  await until(() => sim.users().has('2001'), 'the employee on the terminal');

  const id = created.body['id'] as number;
  const patched = await s.call('PATCH', `/biotime/personnel/api/employees/${id}/`, auth, { first_name: 'Sarah' });
  t.equal(patched.status, 200);
  t.match(patched.body, { first_name: 'Sarah', last_name: 'Lee', department: { dept_name: 'Engineering' } });
  await until(
    () => sim.users().get('2001')?.name === 'Sarah Lee' || sim.users().get('2001')?.name === 'Sarah',
    'the new name on the terminal',
  );
  const put = await s.call('PUT', `/biotime/personnel/api/employees/${id}/`, auth, {
    emp_code: '2001',
    department: dept.body['id'],
    area: [area],
    position: null,
  });
  t.equal(put.status, 200);
  t.match(put.body, { first_name: 'Sarah', position: null });

  const list = async (query: string) =>
    ((await s.call('GET', `/biotime/personnel/api/employees/${query}`, auth)).body as unknown as List).data.map((x) => x['emp_code']);
  await s.api('POST', '/api/users', { pin: 2002, first_name: 'Tom' });
  t.same(await list(''), ['2001', '2002']);
  t.same(await list('?emp_code=2002'), ['2002']);
  t.same(await list(`?department=${dept.body['id']}`), ['2001']);
  t.same(await list(`?areas=${area}`), ['2001']);
  t.same(await list('?first_name=Tom'), ['2002']);
  t.same(await list('?department=99999'), []);

  const errors: [Json, string][] = [
    [{ emp_code: 'abc' }, 'emp_code'],
    [{ emp_code: '123456789' }, 'emp_code'],
    [{ emp_code: '2001' }, 'emp_code'],
    [{}, 'emp_code'],
    [{ emp_code: '2003', department: 99999 }, 'department'],
    [{ emp_code: '2003', area: [99999] }, 'area'],
    [{ emp_code: '2003', area: ['x'] }, 'area'],
    [{ emp_code: '2003', device_password: 'abc' }, 'device_password'],
  ];
  for (const [body, field] of errors) {
    const r = await s.call('POST', '/biotime/personnel/api/employees/', auth, body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(r.body, { [field]: [String] }, `${JSON.stringify(body)} names ${field}`);
  }
  t.same((await s.call('POST', '/biotime/personnel/api/employees/', auth, { emp_code: '2003', department: 99999 })).body, {
    department: ['Invalid pk "99999" - object does not exist.'],
  });
  t.equal((await s.api('GET', '/api/users/2003')).status, 404, 'a refused write wrote nothing');

  // Another location cannot read, change or delete this employee.
  const other = `Token ${s.otherToken}`;
  t.equal((await s.call('GET', `/biotime/personnel/api/employees/${id}/`, other)).status, 404);
  t.equal((await s.call('DELETE', `/biotime/personnel/api/employees/${id}/`, other)).status, 404);
  t.equal(((await s.call('GET', '/biotime/personnel/api/departments/', other)).body as unknown as List).count, 0);

  const deleted = await s.call('DELETE', `/biotime/personnel/api/employees/${id}/`, auth);
  t.equal(deleted.status, 204);
  t.equal((await s.call('GET', `/biotime/personnel/api/employees/${id}/`, auth)).status, 404);
  t.equal((await s.api('GET', '/api/users/2001')).status, 404);
  await until(() => !sim.users().has('2001'), 'the employee deleted from the terminal');

  // Departments, positions and areas as lists and details.
  const depts = (await s.call('GET', '/biotime/personnel/api/departments/?dept_code=ENG', auth)).body as unknown as List;
  t.same(depts.data, [dept.body]);
  t.same((await s.call('GET', `/biotime/personnel/api/positions/${pos.body['id']}/`, auth)).body, pos.body);
  const areas = (await s.call('GET', '/biotime/personnel/api/areas/', auth)).body as unknown as List;
  t.same(areas.data, [{ id: area, area_code: String(area), area_name: 'HQ', parent_area: null }]);
  t.equal((await s.call('GET', '/biotime/personnel/api/areas/99999/', auth)).status, 404);
});
