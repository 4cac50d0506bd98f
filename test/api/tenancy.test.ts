/**
 * Tenant isolation [SERVICE-SPEC "What the service does", API-CONTRACT §3 404, §4]:
 * location B, holding the pins, serials and command ids of location A, can neither
 * see nor change A's records through any endpoint, and A's records are byte-for-byte
 * the same afterwards.
 */
import t from 'tap';
import { fakeClock } from '../helpers/app.js';
import {
  gateway,
  type Call,
  type CommandResponse,
  type DeviceResponse,
  type ErrorBody,
  type Json,
  type Page,
  type Tenant,
  type UserResponse,
} from './client.js';

/** Everything A can read about its own records. */
async function snapshot(api: Call, commandIds: readonly number[]): Promise<Json> {
  const get = async (path: string) => {
    const res = await api('GET', path);
    return { status: res.status, body: res.body };
  };
  return {
    me: await get('/api/me'),
    users: await get('/api/users?limit=100&include=biometrics'),
    devices: await get('/api/devices?limit=100'),
    commands: await get('/api/commands?limit=100'),
    attendance: await get('/api/attendance?limit=100'),
    one: await Promise.all([get('/api/users/1001'), get('/api/users/1002'), get('/api/devices/A-DEV1'), get('/api/devices/A-DEV1/status')]),
    byId: await Promise.all(commandIds.map((id) => get(`/api/commands/${id}`))),
  };
}

async function populate(tenant: Tenant, prefix: string, pins: readonly number[]) {
  const api = tenant.api;
  await api('POST', '/api/users/import', {
    body: pins.map((pin) => ({ pin, first_name: `${prefix}-first-${pin}`, last_name: `${prefix}-last` })),
  });
  await api('POST', '/api/devices', { body: { sn: `${prefix}-DEV1`, name: `${prefix} front` } });
  await api('POST', '/api/devices', { body: { sn: `${prefix}-DEV2` } });
  const reboot = await api<CommandResponse>('POST', '/api/commands', {
    body: { sn: `${prefix}-DEV1`, command: 'reboot' },
    headers: { 'idempotency-key': 'shared-key' },
  });
  const door = await api<CommandResponse>('POST', `/api/devices/${prefix}-DEV2/command`, { body: { command: 'door-open' } });
  return [reboot.body.id, door.body.id];
}

t.test("location B never sees or changes location A's records", async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const { a, tenant, started } = await gateway(t, { clock });
  const b = await tenant('Branch');
  const aCommands = await populate(a, 'A', [1001, 1002]);
  const bCommands = await populate(b, 'B', [2001]);
  await started.app.store.attendance.record(
    [
      {
        location_id: a.id,
        sn: 'A-DEV1',
        pin: '1001',
        user_id: null,
        timestamp: '2026-03-01T07:00:00.000Z',
        local_time: '2026-03-01 07:00:00',
        status: 0,
        verify: 1,
        work_code: null,
      },
    ],
    '2026-03-01T08:00:00.000Z',
  );
  const aUser = await a.api<UserResponse>('GET', '/api/users/1001');
  const allA = await a.api<Page<CommandResponse>>('GET', '/api/commands?limit=100');
  const aCommandIds = allA.body.data.map((c) => c.id);
  t.ok(aCommandIds.length > aCommands.length, 'A has API commands and sync ops');
  const before = await snapshot(a.api, aCommandIds);
  // Time moves on, so any write of B's requests would show in a timestamp; by less than A's door-open lives (60 s), so
  // no expiry sweep may fail it before the second snapshot (it did at exactly 60 s, on a slow MongoDB run).
  clock.advance(30_000);

  const notFound = async (method: string, path: string, code: string, body?: unknown) => {
    const res = await b.api<ErrorBody>(method, path, body === undefined ? {} : { body });
    t.equal(res.status, 404, `B ${method} ${path}: 404`);
    t.equal(res.body.code, code, `B ${method} ${path}: ${code}`);
  };

  // Users: lookups and deletes by A's pins.
  for (const pin of [1001, 1002]) {
    await notFound('GET', `/api/users/${pin}`, 'USER_NOT_FOUND');
    await notFound('GET', `/api/users/${pin}?include=biometrics`, 'USER_NOT_FOUND');
    await notFound('DELETE', `/api/users/${pin}`, 'USER_NOT_FOUND');
  }
  const bUsers = await b.api<Page<UserResponse>>('GET', '/api/users?limit=100');
  t.strictSame(
    bUsers.body.data.map((u) => u.pin),
    [2001],
    'B lists only its own users',
  );
  for (const q of ['A-first', 'A-last', '1001', '100']) {
    t.equal((await b.api<Page<UserResponse>>('GET', `/api/users?search=${q}`)).body.total, 0, `B's search for ${q} finds nothing of A`);
  }
  const cleared = await b.api('DELETE', '/api/users/clear', { body: { pins: [1001, 1002] } });
  t.match(cleared.body, { users_deleted: 0, devices_affected: 2, commands_created: 0 }, "clearing A's pins clears nothing");

  // Devices: by A's serials.
  for (const sn of ['A-DEV1', 'A-DEV2']) {
    await notFound('GET', `/api/devices/${sn}`, 'DEVICE_NOT_FOUND');
    await notFound('GET', `/api/devices/${sn}/status`, 'DEVICE_NOT_FOUND');
    await notFound('POST', `/api/devices/${sn}/command`, 'DEVICE_NOT_FOUND', { command: 'reboot' });
    await notFound('POST', '/api/commands', 'DEVICE_NOT_FOUND', { sn, command: 'door-open' });
    const take = await b.api<ErrorBody>('POST', '/api/devices', { body: { sn, name: 'Taken', version: '2.0.0', comm_key: '1234' } });
    t.equal(take.status, 403, `B cannot assign ${sn}`);
    t.equal(take.body.code, 'DEVICE_OTHER_LOCATION');
    const unassign = await b.api('DELETE', `/api/devices/${sn}`);
    t.equal(unassign.status, 200, `B DELETE ${sn}: 200 (idempotent, reveals nothing)`);
    t.strictSame(unassign.body, {});
  }
  const bDevices = await b.api<Page<DeviceResponse>>('GET', '/api/devices?limit=100');
  t.strictSame(
    bDevices.body.data.map((d) => d.serial_number),
    ['B-DEV1', 'B-DEV2'],
  );
  t.equal((await b.api<Page<DeviceResponse>>('GET', '/api/devices?search=A-')).body.total, 0);

  // Commands: by A's ids (and every id that is not B's).
  const maxId = Math.max(...aCommandIds, ...bCommands);
  const bIds = new Set((await b.api<Page<CommandResponse>>('GET', '/api/commands?limit=100')).body.data.map((c) => c.id));
  for (let id = 1; id <= maxId + 1; id++) {
    if (bIds.has(id)) continue;
    await notFound('GET', `/api/commands/${id}`, 'COMMAND_NOT_FOUND');
    await notFound('DELETE', `/api/commands/${id}`, 'COMMAND_NOT_FOUND');
  }
  t.equal((await b.api<Page<CommandResponse>>('GET', '/api/commands?sn=A-DEV1')).body.total, 0, "B cannot list A's device commands");
  t.ok(
    [...bIds].every((id) => !aCommandIds.includes(id)),
    'ids are unique across locations',
  );

  // Commands that name A's users.
  const enroll = await b.api<ErrorBody>('POST', '/api/commands', {
    body: { sn: 'B-DEV1', command: 'enroll-biometric', params: { pin: 1001, user_id: aUser.body.id } },
  });
  t.equal(enroll.status, 422, "B cannot enrol A's user");
  const load = await b.api<ErrorBody>('POST', '/api/commands', {
    body: { sn: 'B-DEV1', command: 'load-users', params: { user_id: aUser.body.id } },
  });
  t.equal(load.status, 422, "B cannot resolve A's user id");

  // The same Idempotency-Key in B is B's own.
  const sameKey = await b.api<CommandResponse>('POST', '/api/commands', {
    body: { sn: 'B-DEV2', command: 'info' },
    headers: { 'idempotency-key': 'shared-key' },
  });
  t.equal(sameKey.status, 422, "B's own earlier use of the key decides (another body)");
  t.equal(
    (
      await b.api<CommandResponse>('POST', '/api/commands', {
        body: { sn: 'B-DEV1', command: 'reboot' },
        headers: { 'idempotency-key': 'shared-key' },
      })
    ).body.id,
    bCommands[0],
  );

  // Attendance.
  t.equal((await b.api<Page<Json>>('GET', '/api/attendance?sn=A-DEV1')).body.total, 0);
  t.equal((await b.api<Page<Json>>('GET', '/api/attendance?pin=1001')).body.total, 0);

  // Writes with A's pins create B's own records.
  const own = await b.api<UserResponse>('POST', '/api/users', { body: { pin: 1001, first_name: 'B-own' } });
  t.equal(own.status, 201, 'a pin A uses is new in B');
  t.equal(own.body.location_id, b.id);
  t.not(own.body.id, aUser.body.id);
  const imported = await b.api<{ processed_count: number; processed_users: UserResponse[] }>('POST', '/api/users/import', {
    body: [{ pin: '1002', first_name: 'B-import' }],
  });
  t.match(imported.body, { processed_count: 1 });
  t.equal(imported.body.processed_users[0]?.location_id, b.id);
  t.match((await b.api('DELETE', '/api/users/clear')).body, { users_deleted: 3 }, 'B clears all of its own users');
  t.equal((await b.api('DELETE', '/api/users/1001')).status, 200, 'and deletes its own 1001');

  const me = await b.api<{ id: number; users_count: number; devices_count: number }>('GET', '/api/me');
  t.match(me.body, { id: b.id, users_count: 2, devices_count: 2 });

  const after = await snapshot(a.api, aCommandIds);
  t.strictSame(after, before, "A's records are unchanged");
});
