/**
 * /api/devices over real HTTP [SERVICE-SPEC "Endpoints", API-CONTRACT §2, §5 Devices, §6 trust]:
 * assignment (idempotent, 403 for another location's device), the DeviceResponse
 * field set, list/search/online filter, status, unassignment and its effect on
 * pending commands, and the roster sync that assignment starts.
 *
 * No device runtime talks to the gateway here: a device "connecting" is simulated by
 * writing its session fields through the store port, as the runtime would.
 */
import t from 'tap';
import { fakeClock } from '../helpers/app.js';
import {
  DEVICE_KEYS,
  ISO_MS_Z,
  gateway,
  keysOf,
  locsOf,
  sorted,
  wellFormedIssues,
  type CommandResponse,
  type DeviceResponse,
  type ErrorBody,
  type Page,
} from './client.js';

const START = '2026-03-01T08:00:00.000Z';

t.test('POST /api/devices: 201 with every DeviceResponse field; never-connected nulls', async (t) => {
  const clock = fakeClock(START);
  const { a } = await gateway(t, { clock });
  const res = await a.api<DeviceResponse>('POST', '/api/devices', { body: { sn: 'ABC123' } });
  t.equal(res.status, 201);
  t.strictSame(keysOf(res.body), sorted(DEVICE_KEYS), 'the DeviceResponse fields (plus version_override), nothing else');
  t.ok(Number.isInteger(res.body.id) && res.body.id > 0);
  t.strictSame(
    { ...res.body, id: 0 },
    {
      id: 0,
      name: 'Device ABC123',
      serial_number: 'ABC123',
      location_id: a.id,
      location: { id: a.id, name: 'Default' },
      registry_code: null,
      session_id: null,
      registered_at: null,
      options: null,
      version: null,
      last_seen: null,
      is_active: false,
      created_at: START,
      updated_at: null,
      version_override: null,
      auth: 'serial_only',
      allowed_networks: null,
      registration: { bound: false, bound_at: null, bound_address: null, accepted_at: null },
      area: null,
      access_control: { schedules: false, doors: 1 },
      sync: {
        state: 'unknown',
        owed: 0,
        revocations_owed: 0,
        refused: 0,
        last_confirmed_at: null,
        last_audit_at: null,
        reason: 'the terminal has not connected yet',
      },
    },
  );

  clock.advance(1000);
  const again = await a.api<DeviceResponse>('POST', '/api/devices', { body: { sn: 'ABC123' } });
  t.equal(again.status, 200, 'already assigned here: 200 (idempotent)');
  t.equal(again.body.id, res.body.id);
  t.equal(again.body.name, 'Device ABC123', 'the name is kept when none is given');

  const renamed = await a.api<DeviceResponse>('POST', '/api/devices', { body: { sn: 'ABC123', name: 'Front door' } });
  t.equal(renamed.status, 200);
  t.equal(renamed.body.name, 'Front door', 'a given name replaces the old one');
  t.equal((await a.api<DeviceResponse>('GET', '/api/devices/ABC123')).body.name, 'Front door');

  const custom = await a.api<DeviceResponse>('POST', '/api/devices', { body: { sn: 'NAMED-1', name: 'Lobby terminal' } });
  t.equal(custom.status, 201);
  t.equal(custom.body.name, 'Lobby terminal');
  const nullName = await a.api<DeviceResponse>('POST', '/api/devices', { body: { sn: 'NAMED-2', name: null } });
  t.equal(nullName.body.name, 'Device NAMED-2', 'null name = the default');

  const max = 'S'.repeat(64);
  t.equal((await a.api('POST', '/api/devices', { body: { sn: max } })).status, 201, '64 characters are accepted');
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'a_b-C9' } })).status, 201, 'letters, digits, - and _');

  const me = await a.api<{ devices_count: number }>('GET', '/api/me');
  t.equal(me.body.devices_count, 5);
});

t.test('POST /api/devices: validation (422) and body shape (400)', async (t) => {
  const { a } = await gateway(t);
  const cases: [body: unknown, locs: string[]][] = [
    [{}, ['body.sn']],
    [{ sn: '' }, ['body.sn']],
    [{ sn: ' ' }, ['body.sn']],
    [{ sn: 'has space' }, ['body.sn']],
    [{ sn: 'x'.repeat(65) }, ['body.sn']],
    [{ sn: 'SN/1' }, ['body.sn']],
    [{ sn: 12345 }, ['body.sn']],
    [{ sn: null }, ['body.sn']],
    [{ sn: 'OK1', name: '' }, ['body.name']],
    [{ sn: 'OK1', name: 'a\tb' }, ['body.name']],
    [{ sn: 'OK1', name: 'x'.repeat(101) }, ['body.name']],
    [{ sn: 'OK1', name: 5 }, ['body.name']],
    [{ sn: 'OK1', version: '4.0.0' }, ['body.version']],
    [{ sn: 'OK1', version: '3.0' }, ['body.version']],
    [{ sn: 'OK1', version: 3 }, ['body.version']],
    [{ sn: 'OK1', comm_key: 'abc' }, ['body.comm_key']],
    [{ sn: 'OK1', comm_key: '' }, ['body.comm_key']],
    [{ sn: '', name: '', version: '1.0.0' }, ['body.name', 'body.sn', 'body.version']],
  ];
  for (const [body, locs] of cases) {
    const res = await a.api<ErrorBody>('POST', '/api/devices', { body });
    t.equal(res.status, 422, `${JSON.stringify(body).slice(0, 60)}: 422`);
    t.strictSame(locsOf(res.body), locs, `${JSON.stringify(body).slice(0, 60)}: ${locs.join(', ')}`);
    t.ok(wellFormedIssues(res.body, 'body'));
  }
  for (const raw of ['', '{"sn": ', '["ABC"]', '"ABC"']) {
    const res = await a.api<ErrorBody>('POST', '/api/devices', { raw });
    t.equal(res.status, 400, `${JSON.stringify(raw)}: 400`);
    t.equal(res.body.code, 'BAD_REQUEST');
  }
  t.equal((await a.api<Page<DeviceResponse>>('GET', '/api/devices')).body.total, 0, 'nothing was assigned');
});

t.test('POST /api/devices: version pin and write-only comm_key', async (t) => {
  const { a } = await gateway(t);
  const v2 = await a.api<DeviceResponse>('POST', '/api/devices', { body: { sn: 'V2DEV', version: '2.0.0' } });
  t.equal(v2.status, 201);
  t.equal(v2.body.version_override, '2.0.0', 'the pinned dialect is shown');
  t.equal(v2.body.version, null, 'the detected version stays null until the device connects');
  const v3 = await a.api<DeviceResponse>('POST', '/api/devices', { body: { sn: 'V2DEV', version: '3.0.0' } });
  t.equal(v3.status, 200);
  t.equal(v3.body.version_override, '3.0.0', 're-assigning may change the pin');
  const unpinned = await a.api<DeviceResponse>('POST', '/api/devices', { body: { sn: 'V2DEV', version: null } });
  t.equal(unpinned.body.version_override, null, 'null removes the pin');

  const keyed = await a.api<DeviceResponse>('POST', '/api/devices', { body: { sn: 'KEYED', comm_key: '918273' } });
  t.equal(keyed.status, 201);
  const seen = [
    JSON.stringify(keyed.body),
    JSON.stringify((await a.api('GET', '/api/devices/KEYED')).body),
    JSON.stringify((await a.api('GET', '/api/devices')).body),
  ];
  for (const text of seen) {
    t.notOk(text.includes('918273'), 'the comm key never comes back');
    t.notOk(/"comm_key[^"]*":/.test(text), 'no comm_key field of any kind (only `auth: "comm_key"`)');
  }
});

t.test('POST /api/devices: a device of another location is 403 DEVICE_OTHER_LOCATION', async (t) => {
  const { a, tenant, started } = await gateway(t);
  const b = await tenant('Branch');
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'SHARED1' } })).status, 201);
  for (const body of [{ sn: 'SHARED1' }, { sn: 'SHARED1', name: 'Mine now', version: '2.0.0', comm_key: '1' }]) {
    const res = await b.api<ErrorBody>('POST', '/api/devices', { body });
    t.equal(res.status, 403);
    t.strictSame(res.body, { detail: 'Device SHARED1 is assigned to another location', code: 'DEVICE_OTHER_LOCATION' });
  }
  const stillA = await a.api<DeviceResponse>('GET', '/api/devices/SHARED1');
  t.match(stillA.body, { location_id: a.id, name: 'Device SHARED1', version_override: null }, 'the owner sees it unchanged');
  const device = await started.app.store.devices.getBySerial('SHARED1');
  t.equal(device?.comm_key_hash, null, 'no comm key was set by the other location');

  // An unassigned device (seen on the wire first) can be taken by anyone; once unassigned, by another.
  await started.app.store.devices.ensure('SEEN-FIRST', START);
  t.equal((await a.api<ErrorBody>('GET', '/api/devices/SEEN-FIRST')).status, 404, "an unassigned device is nobody's");
  const claimed = await b.api<DeviceResponse>('POST', '/api/devices', { body: { sn: 'SEEN-FIRST' } });
  t.equal(claimed.status, 201);
  t.equal(claimed.body.id, (await started.app.store.devices.getBySerial('SEEN-FIRST'))?.id, 'the recorded device, not a new one');
  t.equal((await a.api('DELETE', '/api/devices/SHARED1')).status, 200);
  t.equal(
    (await b.api('POST', '/api/devices', { body: { sn: 'SHARED1' } })).status,
    201,
    'after unassignment another location may assign it',
  );
});

t.test('GET /api/devices: pagination, order, search, is_active', async (t) => {
  const clock = fakeClock(START);
  const { a, started } = await gateway(t, { clock });
  const empty = await a.api<Page<DeviceResponse>>('GET', '/api/devices');
  t.strictSame(empty.body, { data: [], total: 0, page: 1, limit: 15, total_pages: 0, has_next: false, has_prev: false });

  const serials = Array.from({ length: 17 }, (_, i) => `DEV${String(17 - i).padStart(2, '0')}`);
  for (const sn of serials) await a.api('POST', '/api/devices', { body: { sn } });
  await a.api('POST', '/api/devices', { body: { sn: 'DEV05', name: 'Warehouse Gate' } });

  const p1 = await a.api<Page<DeviceResponse>>('GET', '/api/devices');
  t.match(p1.body, { total: 17, page: 1, limit: 15, total_pages: 2, has_next: true, has_prev: false });
  t.equal(p1.body.data.length, 15);
  t.strictSame(
    p1.body.data.map((d) => d.serial_number),
    [...serials].sort().slice(0, 15),
    'ordered by serial number',
  );
  for (const d of p1.body.data) t.strictSame(keysOf(d), sorted(DEVICE_KEYS));
  const p2 = await a.api<Page<DeviceResponse>>('GET', '/api/devices?page=2');
  t.match(p2.body, { total: 17, page: 2, total_pages: 2, has_next: false, has_prev: true });
  t.strictSame(
    p2.body.data.map((d) => d.serial_number),
    ['DEV16', 'DEV17'],
  );
  const p3 = await a.api<Page<DeviceResponse>>('GET', '/api/devices?page=3');
  t.strictSame(p3.body, { data: [], total: 17, page: 3, limit: 15, total_pages: 2, has_next: false, has_prev: true });
  t.match((await a.api<Page<DeviceResponse>>('GET', '/api/devices?limit=100')).body, { total_pages: 1, has_next: false });
  t.match((await a.api<Page<DeviceResponse>>('GET', '/api/devices?limit=17')).body, { total_pages: 1 });
  t.match((await a.api<Page<DeviceResponse>>('GET', '/api/devices?limit=16')).body, { total_pages: 2, has_next: true });

  const search = async (q: string) =>
    (await a.api<Page<DeviceResponse>>('GET', `/api/devices?search=${encodeURIComponent(q)}`)).body.data.map((d) => d.serial_number);
  t.strictSame(await search('warehouse'), ['DEV05'], 'name, case-insensitive');
  t.strictSame(await search('GATE'), ['DEV05']);
  t.strictSame(
    await search('dev1'),
    ['DEV10', 'DEV11', 'DEV12', 'DEV13', 'DEV14', 'DEV15', 'DEV16', 'DEV17'],
    'serial, case-insensitive substring',
  );
  t.strictSame(await search('device dev03'), ['DEV03'], 'the default name "Device {SN}" is searchable');
  t.strictSame(await search('%'), [], '% is a literal');
  t.strictSame(await search('_'), [], '_ is a literal');
  t.strictSame(await search('nothing'), []);

  // Two devices connect (the device runtime writes these session fields).
  for (const sn of ['DEV01', 'DEV02']) {
    await started.app.store.devices.updateSession(
      sn,
      { last_seen: clock.now().toISOString(), version: '3.0.0', registered_at: START, options: { FWVersion: 'Ver 8.0' } },
      START,
    );
  }
  const online = async (q: string) => (await a.api<Page<DeviceResponse>>('GET', `/api/devices?limit=100&${q}`)).body;
  t.strictSame(
    (await online('is_active=true')).data.map((d) => d.serial_number),
    ['DEV01', 'DEV02'],
    'online devices',
  );
  t.equal((await online('is_active=1')).total, 2);
  t.equal((await online('is_active=false')).total, 15, 'offline devices');
  t.equal((await online('is_active=0')).total, 15);
  t.equal((await online('is_active=true&search=dev02')).total, 1, 'filters combine');
  t.match((await online('is_active=true')).data[0], {
    is_active: true,
    version: '3.0.0',
    last_seen: START,
    options: { FWVersion: 'Ver 8.0' },
  });

  clock.advance(60_000);
  t.equal((await online('is_active=true')).total, 2, 'still online at exactly the threshold (60 s)');
  clock.advance(1);
  t.equal((await online('is_active=true')).total, 0, 'offline past the threshold');
  t.equal((await online('is_active=false')).total, 17);

  for (const [q, loc] of [
    ['limit=0', 'query.limit'],
    ['limit=101', 'query.limit'],
    ['page=0', 'query.page'],
    ['page=x', 'query.page'],
    ['page=614891469123651721', 'query.page'],
    ['is_active=maybe', 'query.is_active'],
  ]) {
    const res = await a.api<ErrorBody>('GET', `/api/devices?${q}`);
    t.equal(res.status, 422, `${q}: 422`);
    t.strictSame(locsOf(res.body), [loc], `${q}: ${loc}`);
  }
});

t.test('GET /api/devices/{sn} and /status; 404 for unknown and foreign devices', async (t) => {
  const clock = fakeClock(START);
  const { a, tenant, started } = await gateway(t, { clock });
  const b = await tenant('Other');
  const created = await a.api<DeviceResponse>('POST', '/api/devices', { body: { sn: 'STAT1' } });
  await b.api('POST', '/api/devices', { body: { sn: 'BDEV1' } });

  const one = await a.api<DeviceResponse>('GET', '/api/devices/STAT1');
  t.equal(one.status, 200);
  t.strictSame(one.body, created.body);

  const status = await a.api('GET', '/api/devices/STAT1/status');
  t.equal(status.status, 200);
  t.strictSame(status.body, { device_id: created.body.id, serial_number: 'STAT1', is_online: false, last_seen: null, status: 'offline' });

  clock.advance(5000);
  const seenAt = clock.now().toISOString();
  await started.app.store.devices.updateSession('STAT1', { last_seen: seenAt, version: '2.0.0' }, seenAt);
  t.strictSame((await a.api('GET', '/api/devices/STAT1/status')).body, {
    device_id: created.body.id,
    serial_number: 'STAT1',
    is_online: true,
    last_seen: seenAt,
    status: 'online',
  });
  const connected = await a.api<DeviceResponse>('GET', '/api/devices/STAT1');
  t.match(connected.body, { is_active: true, last_seen: seenAt, version: '2.0.0' });
  t.match(connected.body.updated_at, ISO_MS_Z);
  clock.advance(61_000);
  t.match(
    (await a.api('GET', '/api/devices/STAT1/status')).body,
    { is_online: false, last_seen: seenAt, status: 'offline' },
    'offline after the threshold',
  );
  t.equal((await a.api<DeviceResponse>('GET', '/api/devices/STAT1')).body.is_active, false, 'is_active follows the same rule');

  for (const path of ['/api/devices/NOPE', '/api/devices/NOPE/status', '/api/devices/BDEV1', '/api/devices/BDEV1/status']) {
    const res = await a.api<ErrorBody>('GET', path);
    t.equal(res.status, 404, `${path}: 404`);
    t.equal(res.body.code, 'DEVICE_NOT_FOUND');
  }
  t.strictSame(
    (await a.api('GET', '/api/devices/BDEV1')).body,
    { detail: 'Device BDEV1 not found', code: 'DEVICE_NOT_FOUND' },
    'a foreign device is "not found", like an unknown one',
  );
  for (const sn of ['bad%20sn', 'x'.repeat(65), 'a%2Fb']) {
    const res = await a.api<ErrorBody>('GET', `/api/devices/${sn}`);
    t.equal(res.status, 422, `${sn}: 422`);
    t.strictSame(locsOf(res.body), ['path.device_serial']);
  }
});

t.test('DELETE /api/devices/{sn}: idempotent, fails pending commands, leaves foreign devices alone', async (t) => {
  const { a, tenant } = await gateway(t);
  const b = await tenant('Other');
  await a.api('POST', '/api/users', { body: { pin: 1, first_name: 'Roster' } });
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'GONE1' } })).status, 201);
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'KEEP1' } })).status, 201);
  const reboot = await a.api<CommandResponse>('POST', '/api/commands', { body: { sn: 'GONE1', command: 'reboot' } });
  const other = await a.api<CommandResponse>('POST', '/api/commands', { body: { sn: 'KEEP1', command: 'reboot' } });
  t.equal(reboot.status, 201);

  const del = await a.api('DELETE', '/api/devices/GONE1');
  t.equal(del.status, 200);
  t.strictSame(del.body, {});
  const again = await a.api('DELETE', '/api/devices/GONE1');
  t.equal(again.status, 200, 'a second unassign is fine');
  t.strictSame(again.body, {});
  t.strictSame((await a.api('DELETE', '/api/devices/NEVER-SEEN')).body, {}, 'an unknown serial too');
  t.equal((await a.api('GET', '/api/devices/GONE1')).status, 404, 'no longer visible');

  const failed = await a.api<CommandResponse>('GET', `/api/commands/${reboot.body.id}`);
  t.match(failed.body, { status: 'failed', error_message: 'device unassigned', is_active: false });
  const sync = await a.api<Page<CommandResponse>>('GET', '/api/commands?sn=GONE1&command=sync-users');
  t.equal(sync.body.total, 1, 'the roster op queued on assignment');
  t.match(sync.body.data[0], { status: 'failed', error_message: 'device unassigned' }, 'pending sync ops fail too');
  t.match(
    (await a.api<CommandResponse>('GET', `/api/commands/${other.body.id}`)).body,
    { status: 'pending', error_message: null },
    'other devices keep theirs',
  );

  // B cannot unassign A's device: 200 {} (nothing revealed), and nothing changes.
  const foreign = await b.api('DELETE', '/api/devices/KEEP1');
  t.equal(foreign.status, 200);
  t.strictSame(foreign.body, {});
  t.match((await a.api<DeviceResponse>('GET', '/api/devices/KEEP1')).body, { location_id: a.id }, 'still assigned to its owner');
  t.match((await a.api<CommandResponse>('GET', `/api/commands/${other.body.id}`)).body, { status: 'pending' }, 'its commands untouched');
  t.equal((await a.api('DELETE', '/api/devices/bad%20sn')).status, 422);
  t.equal((await a.api<{ devices_count: number }>('GET', '/api/me')).body.devices_count, 1);
});

t.test('assigning a device queues sync-users for each active user', async (t) => {
  const { a, started } = await gateway(t);
  await a.api('POST', '/api/users/import', {
    body: [
      { pin: 11, first_name: 'A' },
      { pin: 12, first_name: 'B' },
      { pin: 13, first_name: 'C' },
      { pin: 14, first_name: 'Inactive', is_active: false },
    ],
  });
  // The import's fan-out runs in the background; a drain still running when the device is assigned
  // would also send it the inactive user's delete (a fourth record).
  await started.app.outbox.idle();
  t.equal((await a.api<Page<CommandResponse>>('GET', '/api/commands')).body.total, 0, 'no device, no sync');
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'ROSTER1' } })).status, 201);
  const cmds = await a.api<Page<CommandResponse>>('GET', '/api/commands?command=sync-users');
  t.equal(cmds.body.total, 3, 'one per active user');
  t.strictSame(
    cmds.body.data.map((c) => c.params).sort((x, y) => Number(x?.['pin']) - Number(y?.['pin'])),
    [
      { op: 'user.upsert', pin: 11 },
      { op: 'user.upsert', pin: 12 },
      { op: 'user.upsert', pin: 13 },
    ],
  );
  for (const c of cmds.body.data)
    t.match(c, { command: 'sync-users', sn: 'ROSTER1', status: 'pending', priority: 0, location_id: a.id, created_by_token_id: null });

  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'ROSTER1' } })).status, 200);
  t.equal((await a.api<Page<CommandResponse>>('GET', '/api/commands')).body.total, 3, 're-assigning (200) queues nothing more');

  await a.api('POST', '/api/users', { body: { pin: 15, first_name: 'Late' } });
  const after = await a.api<Page<CommandResponse>>('GET', '/api/commands?command=sync-users');
  t.equal(after.body.total, 4, 'a new user is synced to the assigned device');
  t.match(after.body.data[0], { params: { op: 'user.upsert', pin: 15 } }, 'newest first');
});
