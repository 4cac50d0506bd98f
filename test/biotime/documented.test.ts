/**
 * BioTime's documented examples (the API documentation a ZKBio Time server serves, "ZKBioTime 8.0 API Documentation
 * v1.0.0", transaction, terminal, personnel and sign-in pages): every key a documented answer has, ours has, with a
 * value of the same JSON type wherever neither is null (issue #37 "Verified by": a contract test suite from the
 * documented examples).
 */
import t from 'tap';
import { biotimeSetup, punchesListed, terminal, type Json, type List } from './helpers.js';

const TOKEN = { token: 'gP4K......biHUoy' };
const LIST = { count: 6, next: null, previous: null, msg: '', code: 0, data: [] };
const TRANSACTION = {
  id: 1,
  emp_code: '11111111122',
  first_name: '',
  last_name: '',
  department: 'Department',
  position: 'Position',
  punch_time: '2020-06-05 00:00:00',
  punch_state: '0',
  punch_state_display: 'Check In',
  verify_type: 0,
  verify_type_display: 'Password',
  work_code: '',
  gps_location: '',
  area_alias: null,
  terminal_sn: '',
  temperature: 0.0,
  terminal_alias: null,
  upload_time: '2020-06-05 08:47:59',
};
const TERMINAL = {
  id: 5,
  sn: 'A6KX192060002',
  ip_address: '172.30.7.162',
  alias: 'Auto add',
  terminal_name: null,
  fw_ver: null,
  push_ver: null,
  state: 1,
  terminal_tz: 8,
  area: { id: 1, area_code: '1', area_name: 'Not Authorized' },
  last_activity: '2020-06-02 15:04:38',
  user_count: null,
  fp_count: null,
  face_count: null,
  palm_count: null,
  transaction_count: null,
  push_time: null,
  transfer_time: '00:00;14:05',
  transfer_interval: 1,
  is_attendance: 1,
  area_name: 'Not Authorized',
};
const EMPLOYEE = {
  id: 1,
  emp_code: '007',
  first_name: '',
  last_name: null,
  nickname: null,
  device_password: null,
  card_no: null,
  department: { id: 3715, dept_code: '4', dept_name: 'MARS Egypt' },
  position: null,
  hire_date: '2020-06-01',
  gender: null,
  birthday: null,
  verify_mode: 0,
  emp_type: null,
  contact_tel: null,
  office_tel: null,
  mobile: null,
  national: null,
  city: null,
  address: null,
  postcode: null,
  email: null,
  enroll_sn: 'CEUY201760002',
  ssn: null,
  religion: null,
  enable_att: true,
  enable_overtime: false,
  enable_holiday: true,
  dev_privilege: 0,
  area: [{ id: 136, area_code: '1111.111.11', area_name: 'test1' }],
  app_status: 0,
  app_role: 1,
  update_time: '2020-06-01 19:37:35',
};
const DEPARTMENT = { id: 1, dept_code: '1', dept_name: 'WORLD', parent_dept: null };
const POSITION = { id: 1, position_code: '1', position_name: 'WORLD', parent_position: null };
const AREA = { id: 1, area_code: '1', area_name: 'WORLD', parent_area: null };

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Where `ours` lacks a documented key or holds another JSON type (nulls aside), by path. */
function differences(documented: unknown, ours: unknown, at = '$'): string[] {
  if (documented === null || ours === null) return [];
  if (kind(documented) !== kind(ours)) return [`${at}: documented ${kind(documented)}, ours ${kind(ours)}`];
  if (Array.isArray(documented))
    return documented.length > 0 && (ours as unknown[]).length > 0 ? differences(documented[0], (ours as unknown[])[0], `${at}[0]`) : [];
  if (typeof documented !== 'object') return [];
  return Object.entries(documented as Json).flatMap(([k, v]) =>
    k in (ours as Json) ? differences(v, (ours as Json)[k], `${at}.${k}`) : [`${at}.${k}: missing`],
  );
}

t.test('every documented answer, key for key and type for type', async (t) => {
  const s = await biotimeSetup(t);
  const auth = `Token ${s.app.token}`;
  const sign = await s.call('POST', '/biotime/api-token-auth/', undefined, { username: String(s.app.locationId), password: s.app.token });
  t.same(differences(TOKEN, sign.body), [], 'api-token-auth');
  const jwt = await s.call('POST', '/biotime/jwt-api-token-auth/', undefined, {
    username: String(s.app.locationId),
    password: s.app.token,
  });
  t.same(differences(TOKEN, jwt.body), [], 'jwt-api-token-auth');

  const area = (await s.api('POST', '/api/areas', { name: 'Lobby' })).body['id'] as number;
  const dept = (await s.call('POST', '/biotime/personnel/api/departments/', auth, { dept_code: '4', dept_name: 'MARS Egypt' })).body['id'];
  await s.call('POST', '/biotime/personnel/api/positions/', auth, { position_code: '1', position_name: 'Clerk' });
  await s.call('POST', '/biotime/personnel/api/employees/', auth, { emp_code: '7', department: dept, area: [area], first_name: 'Ana' });
  const sim = await terminal(t, s, 'DOC-1', 'Auto add');
  t.equal((await s.api('PATCH', '/api/devices/DOC-1', { area_id: area })).status, 200);
  t.ok(await sim.punch('7', '2026-03-01 09:00:00', 0, 0));
  await punchesListed(s, 1);

  const cases: [string, string, Json][] = [
    ['/biotime/iclock/api/transactions/', 'transactions', TRANSACTION],
    ['/biotime/iclock/api/terminals/', 'terminals', TERMINAL],
    ['/biotime/personnel/api/employees/', 'employees', EMPLOYEE],
    ['/biotime/personnel/api/departments/', 'departments', DEPARTMENT],
    ['/biotime/personnel/api/positions/', 'positions', POSITION],
    ['/biotime/personnel/api/areas/', 'areas', AREA],
  ];
  for (const [path, name, item] of cases) {
    const list = (await s.call('GET', path, auth)).body as unknown as List;
    t.same(differences(LIST, list), [], `${name}: the list envelope`);
    t.ok(list.data.length > 0, `${name}: something listed`);
    t.same(differences(item, list.data[0]), [], `${name}: the documented item`);
    const one = await s.call('GET', `${path}${String(list.data[0]?.['id'])}/`, auth);
    t.same(differences(item, one.body), [], `${name}: the documented detail`);
  }
});
