import t from 'tap';
import { createDeviceMemory, DEFAULT_LIMITS } from '../../src/simulator/memory.js';
import type { SimTemplate } from '../../src/simulator/types.js';

const T = { timeout: 10_000 };
const tpl = (over: Partial<SimTemplate>): SimTemplate => ({
  table: 'FINGERTMP',
  pin: '1',
  type: 1,
  no: 0,
  index: 0,
  valid: 1,
  duress: 0,
  majorVer: 10,
  minorVer: 0,
  format: 0,
  tmp: 'AAAA',
  ...over,
});

t.test('users: defaults, merge, capacity, delete', T, async (t) => {
  const m = createDeviceMemory(1, { maxUsers: 2, maxTemplates: 2, maxAttendance: 100 });
  t.equal(m.putUser({ pin: '1', name: 'Ann' }), 'ok');
  t.same(m.users.get('1'), {
    pin: '1',
    name: 'Ann',
    privilege: 0,
    password: '',
    card: '',
    group: 1,
    tz: '',
    verify: 0,
    viceCard: '',
    startTime: '0',
    endTime: '0',
    disabled: false,
    uid: 1,
  });
  t.equal(m.putUser({ pin: '1', privilege: 14, name: undefined }), 'ok');
  t.match(m.users.get('1'), { name: 'Ann', privilege: 14, uid: 1 }, 'undefined keeps the stored value');
  t.equal(m.putUser({ pin: '2' }), 'ok');
  t.equal(m.putUser({ pin: '3' }), 'full');
  t.equal(m.users.get('2')?.uid, 2);
  t.equal(
    m.deleteUsers((u) => u.pin === '1'),
    1,
  );
  t.same([...m.users.keys()], ['2']);
  t.same(DEFAULT_LIMITS, { maxUsers: 20_000, maxTemplates: 40_000, maxAttendance: 10_000 });
});

t.test('templates: one slot per table/pin/type/no/index', T, async (t) => {
  const m = createDeviceMemory(0, { maxUsers: 1, maxTemplates: 2, maxAttendance: 1 });
  t.equal(m.putTemplate(tpl({})), 'ok');
  t.equal(m.putTemplate(tpl({ tmp: 'BBBB' })), 'ok', 'replace');
  t.equal(m.templateCount, 1);
  t.equal(m.putTemplate(tpl({ table: 'BIODATA' })), 'ok', 'same finger in another table');
  t.equal(m.putTemplate(tpl({ no: 1 })), 'full');
  t.same(
    m.templatesOf('1').map((x) => x.table),
    ['BIODATA', 'FINGERTMP'],
    'ties ordered by table',
  );
  t.equal(m.findTemplate('FINGERTMP', '1', 1, 0)?.tmp, 'BBBB');
  t.equal(m.findTemplate('FINGERTMP', '1', 1, 5), undefined);
  t.equal(
    m.deleteTemplates((x) => x.table === 'BIODATA'),
    1,
  );
  t.equal(m.templates().length, 1);
  const order = createDeviceMemory(0);
  for (const x of [tpl({ type: 9 }), tpl({ no: 2, index: 1 }), tpl({ no: 2 }), tpl({ no: 1 })]) order.putTemplate(x);
  t.same(
    order.templatesOf('1').map((x) => `${x.type}/${x.no}/${x.index}`),
    ['1/1/0', '1/2/0', '1/2/1', '9/0/0'],
  );
});

t.test('authorizations, photos', T, async (t) => {
  const m = createDeviceMemory(1);
  m.putAuthorization({ pin: '1', timezoneId: 1, doorMask: 1 });
  m.putAuthorization({ pin: '1', timezoneId: 1, doorMask: 3 });
  m.putAuthorization({ pin: '1', timezoneId: 2, doorMask: 1 });
  t.same(m.authorizations(), [
    { pin: '1', timezoneId: 1, doorMask: 3 },
    { pin: '1', timezoneId: 2, doorMask: 1 },
  ]);
  t.equal(
    m.deleteAuthorizations((a) => a.timezoneId === 2),
    1,
  );
  m.putUserPhoto('1', 10);
  m.putUserPhoto('2', 20);
  t.equal(
    m.deleteUserPhotos((p) => p === '2'),
    1,
  );
  t.same([...m.userPhotos], [['1', 10]]);
  m.putBioPhoto({ pin: '1', type: 9, size: 5 });
  t.equal(
    m.deleteBioPhotos(() => true),
    1,
  );
  t.equal(m.attendancePhotos, 0);
  m.clearAttendancePhotos();
  t.equal(m.attendancePhotos, 0);
});

t.test('attendance is capped: the oldest records go', T, async (t) => {
  const m = createDeviceMemory(1, { maxUsers: 1, maxTemplates: 1, maxAttendance: 100 });
  for (let i = 1; i <= 105; i++) m.addAttendance('1', '2026-01-01 08:00:00', 0, 1);
  t.equal(m.attendance().length, 100);
  t.equal(m.attendance()[0]?.index, 6);
  for (let i = 0; i < 10; i++) m.addAttendance('1', '2026-01-01 08:00:00', 0, 1);
  t.equal(m.attendance().length, 100);
  t.equal(m.attendance().at(-1)?.index, 115);
  m.markUploaded(50);
  m.markUploaded(40);
  t.equal(m.uploadedUpTo, 50, 'never goes back');
  m.clearAttendance();
  t.equal(m.attendance().length, 0);
});

t.test('doors and options', T, async (t) => {
  const m = createDeviceMemory(2);
  t.same(
    m.doors().map((d) => d.door),
    [1, 2],
  );
  m.updateDoor(2, { relay: 'open', lastOpenSeconds: 5 });
  m.updateDoor(3, { relay: 'open' });
  t.match(m.doors()[1], { relay: 'open', lastOpenSeconds: 5, lockedDown: false, pulses: 0 });
  t.equal(m.doors().length, 2, 'no door 3');
  t.equal(m.emergency, 'none');
  m.options.set('A', '1');
  t.equal(m.options.get('A'), '1');
});
