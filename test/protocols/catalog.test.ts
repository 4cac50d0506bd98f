import t from 'tap';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import {
  CATALOG,
  DURATION_MESSAGE,
  PRESET_IDS,
  defaultExpirySeconds,
  findPreset,
  paramsSchemaFor,
  type PresetId,
} from '../../protocols/catalog.js';

t.test('every preset id appears exactly once, in PRESET_IDS order', async (t) => {
  t.same(
    CATALOG.map((s) => s.id),
    [...PRESET_IDS],
  );
  t.equal(new Set(CATALOG.map((s) => s.id)).size, PRESET_IDS.length);
  const names = CATALOG.flatMap((s) => [s.id, ...s.aliases]);
  t.equal(new Set(names).size, names.length, 'no alias collides with an id or another alias');
});

t.test('every params schema compiles; hasParams matches the schema', async (t) => {
  for (const spec of CATALOG) {
    const check = Compile(spec.params);
    t.ok(check.Check({}) || spec.hasParams, `${spec.id}: {} valid unless it has params`);
    if (!spec.hasParams) t.notOk(check.Check({ x: 1 }), `${spec.id}: extra keys rejected`);
    t.ok(spec.description.length > 0 && !spec.description.includes('\n'), `${spec.id}: one-line description`);
  }
});

t.test('findPreset: exact id or alias, lower case only', async (t) => {
  t.equal(findPreset('restart')?.id, 'reboot');
  t.equal(findPreset('reboot')?.id, 'reboot');
  t.equal(findPreset('REBOOT'), undefined);
  t.equal(findPreset('rebot'), undefined);
  t.equal(paramsSchemaFor('door-open'), findPreset('door-open')?.params);
  t.throws(() => paramsSchemaFor('nope' as PresetId), RangeError);
});

t.test('risk, door and expiry classes (API-CONTRACT §4, §5)', async (t) => {
  const risky = CATALOG.filter((s) => s.risk === 'risky')
    .map((s) => s.id)
    .sort();
  t.same(risky, ['clear-biodata', 'clear-data', 'clear-log', 'clear-photo', 'custom', 'firmware-upgrade', 'shell-command']);
  const door = CATALOG.filter((s) => s.door)
    .map((s) => s.id)
    .sort();
  t.same(door, [
    'cancel-alarm',
    'clear-alarm',
    'door-close',
    'door-lock',
    'door-open',
    'door-unlock',
    'emergency-off',
    'emergency-on',
    'normal-open',
  ]);
  const v3only = CATALOG.filter((s) => s.versions.length === 1 && s.versions[0] === 3)
    .map((s) => s.id)
    .sort();
  t.same(v3only, ['cancel-alarm', 'door-close', 'door-lock', 'door-open', 'emergency-off', 'emergency-on', 'normal-open']);
  t.equal(defaultExpirySeconds(findPreset('door-open')!), 60);
  t.equal(defaultExpirySeconds(findPreset('reboot')!), 86400);
  t.equal(findPreset('enroll-biometric')?.resultTimeoutS, 600);
  t.equal(findPreset('reboot')?.resultTimeoutS, undefined);
});

t.test('params constraints and defaults', async (t) => {
  const ok = (id: PresetId, v: unknown): boolean => Compile(paramsSchemaFor(id)).Check(v);
  t.same(Value.Default(paramsSchemaFor('door-open'), {}), { door_id: 1, duration: 5 });
  t.same(Value.Default(paramsSchemaFor('enroll-biometric'), { pin: 1, user_id: 2 }), {
    pin: 1,
    user_id: 2,
    type: 'fingerprint',
    fid: 0,
    retry: 3,
    overwrite: 1,
  });
  t.ok(ok('door-open', { door_id: 4, duration: 254 }));
  t.notOk(ok('door-open', { door_id: 5 }));
  t.notOk(ok('door-open', { duration: 0 }));
  t.notOk(ok('door-open', { duration: 255 }));
  t.equal(
    (paramsSchemaFor('door-open') as { properties: { duration: { errorMessage: string } } }).properties.duration.errorMessage,
    DURATION_MESSAGE,
  );
  t.ok(ok('enroll-biometric', { pin: 99999999, user_id: 1, type: 'face', fid: 111, retry: 1, overwrite: 0 }));
  t.notOk(ok('enroll-biometric', { pin: 100000000, user_id: 1 }));
  t.notOk(ok('enroll-biometric', { pin: 1, user_id: 1, fid: 10 }));
  t.notOk(ok('enroll-biometric', { pin: 1, user_id: 1, retry: 4 }));
  t.notOk(ok('enroll-biometric', { pin: 1, user_id: 1, overwrite: 2 }));
  t.notOk(ok('enroll-biometric', { pin: 1, user_id: 1, type: 'iris' }));
  t.notOk(ok('enroll-biometric', { pin: 1 }), 'user_id required (SERVICE-SPEC)');
  t.ok(ok('load-users', {}));
  t.ok(ok('load-users', { pin: null, user_id: 3 }));
  t.ok(ok('check-attendance', { startDate: '2024-02-29', endDate: null }));
  t.notOk(ok('check-attendance', { startDate: '2023-02-29' }));
  t.notOk(ok('check-attendance', { startDate: '2024-1-01' }));
  t.ok(ok('firmware-upgrade', { url: 'https://example.com/fw.bin', checksum: 'd41d8cd98f00b204e9800998ecf8427E', size: 1 }));
  t.notOk(ok('firmware-upgrade', { url: 'http://example.com/fw.bin', checksum: 'd41d8cd98f00b204e9800998ecf8427e', size: 1 }));
  t.notOk(ok('firmware-upgrade', { url: 'https://example.com/fw.bin', checksum: 'xyz', size: 1 }));
  t.notOk(ok('firmware-upgrade', { url: 'https://example.com/fw.bin', checksum: 'd41d8cd98f00b204e9800998ecf8427e', size: 0 }));
  t.ok(ok('shell-command', { command: 'date' }));
  t.notOk(ok('shell-command', { command: '' }));
  t.notOk(ok('shell-command', { command: 'a\nb' }));
  t.ok(ok('custom', { command: 'INFO' }));
  t.notOk(ok('custom', { command: 'C:1:INFO' }));
  t.notOk(ok('custom', { command: 'a\rb' }));
  t.notOk(ok('custom', { command: 'a\u0000b' }));
  t.notOk(ok('custom', { command: 'x'.repeat(16 * 1024 + 1) }));
});
