/**
 * GET /admin/devices/unassigned over real HTTP: a terminal that contacts the gateway without
 * being assigned shows up for the admin (serial, first and last contact, address, options), and
 * leaves the list once a location assigns it. Admin token only.
 */
import t from 'tap';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { gateway, type Json, type Page } from './client.js';

interface Unassigned {
  serial_number: string;
  first_seen: string;
  last_seen: string | null;
  last_address: string | null;
  version: string | null;
  options: Record<string, string> | null;
}

t.test('unassigned terminals, for the admin', async (t) => {
  const { a, url, started } = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  const admin = { token: ADMIN_TOKEN };
  const before = await a.api<Page<Unassigned>>('GET', '/admin/devices/unassigned', admin);
  t.equal(before.status, 200);
  t.strictSame(before.body.data, []);

  // Two terminals knock (the PUSH handshake [PUSH-v2 §3]): nobody assigned them.
  for (const sn of ['ZZUN2', 'ZZUN1']) {
    const res = await fetch(`${url}/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1`);
    await res.arrayBuffer();
  }
  // Presence is written behind (every few seconds): write it now rather than wait.
  await started.app.hub.presence.flush();
  const listed = await a.api<Page<Unassigned>>('GET', '/admin/devices/unassigned', admin);
  t.equal(listed.status, 200);
  t.strictSame(
    listed.body.data.map((d) => d.serial_number),
    ['ZZUN1', 'ZZUN2'],
    'by serial',
  );
  t.match(listed.body, { total: 2, page: 1, has_next: false });
  for (const d of listed.body.data) {
    t.strictSame(Object.keys(d).sort(), ['first_seen', 'last_address', 'last_seen', 'options', 'serial_number', 'version']);
    t.match(d.first_seen, /^\d{4}-\d{2}-\d{2}T/);
    t.match(
      d,
      { last_address: '127.0.0.1', version: '2.0.0', options: { PushVersion: '2.4.1' } },
      `${d.serial_number}: address, version and options`,
    );
    t.ok(d.last_seen !== null && d.last_seen >= d.first_seen, 'last contact, not before the first');
  }
  const paged = await a.api<Page<Unassigned>>('GET', '/admin/devices/unassigned?limit=1&page=2', admin);
  t.strictSame(
    paged.body.data.map((d) => d.serial_number),
    ['ZZUN2'],
  );

  const assigned = await a.api('POST', '/api/devices', { body: { sn: 'ZZUN1' } });
  t.equal(assigned.status, 201);
  const after = await a.api<Page<Unassigned>>('GET', '/admin/devices/unassigned', admin);
  t.strictSame(
    after.body.data.map((d) => d.serial_number),
    ['ZZUN2'],
    'assigned: no longer listed',
  );

  t.equal((await a.api<Json>('GET', '/admin/devices/unassigned')).status, 401, 'a location token is not the admin token');
  t.equal((await a.api<Json>('GET', '/admin/devices/unassigned', { token: null })).status, 401);
  t.equal((await a.api<Json>('GET', '/admin/devices/unassigned?limit=0', admin)).status, 422);
});

t.test('the admin assigns an unassigned terminal to a location', async (t) => {
  const { a, url } = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  const admin = { token: ADMIN_TOKEN };
  const me = await a.api<{ id: number }>('GET', '/api/me');
  const other = await a.api<{ location: { id: number }; token: string }>('POST', '/admin/locations', {
    ...admin,
    body: { name: 'Keyed', require_comm_key: true },
  });
  t.equal(other.status, 201);
  await a.api('POST', '/api/users', { body: { pin: 7, first_name: 'Ann' } });
  for (const sn of ['ZZAS1', 'ZZAS2']) await (await fetch(`${url}/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1`)).arrayBuffer();

  const assign = (sn: string, body: unknown, token: string | null = ADMIN_TOKEN) =>
    a.api<Json>('POST', `/admin/devices/${sn}/assign`, { token, body });
  const first = await assign('ZZAS1', { location_id: me.body.id, name: 'Front door' });
  t.equal(first.status, 201, 'newly assigned');
  t.match(first.body, { serial_number: 'ZZAS1', name: 'Front door' });
  const devices = await a.api<Page<{ serial_number: string }>>('GET', '/api/devices');
  t.strictSame(
    devices.body.data.map((d) => d.serial_number),
    ['ZZAS1'],
    'the location has it',
  );
  const commands = await a.api<Page<{ command: string }>>('GET', '/api/commands?device_serial=ZZAS1');
  t.ok(commands.body.data.length > 0, 'the roster sync is queued, as for POST /api/devices');
  t.equal((await assign('ZZAS1', { location_id: me.body.id })).status, 200, 'again: 200, idempotent');
  t.match(await assign('ZZAS1', { location_id: other.body.location.id }), { status: 403, body: { code: 'DEVICE_OTHER_LOCATION' } });
  t.match(
    await assign('ZZAS2', { location_id: other.body.location.id }),
    { status: 422, body: { code: 'VALIDATION_FAILED' } },
    'a location that requires a comm key refuses it',
  );
  t.match(await assign('ZZAS2', { location_id: 9999 }), { status: 404, body: { code: 'LOCATION_NOT_FOUND' } });
  for (const bad of [
    {},
    { location_id: 0 },
    { location_id: '1' },
    { location_id: me.body.id, extra: 1 },
    { location_id: me.body.id, name: 'a\tb' },
  ]) {
    t.match(await assign('ZZAS2', bad), { status: 422, body: { code: 'VALIDATION_FAILED' } }, `refused: ${JSON.stringify(bad)}`);
  }
  t.equal((await assign('bad%20sn', { location_id: me.body.id })).status, 422, 'serial checked');
  t.equal((await assign('ZZAS2', { location_id: me.body.id }, null)).status, 401);
  t.equal(
    (await a.api<Json>('POST', '/admin/devices/ZZAS2/assign', { body: { location_id: me.body.id } })).status,
    401,
    'a location token is not the admin token',
  );
  const left = await a.api<Page<{ serial_number: string }>>('GET', '/admin/devices/unassigned', admin);
  t.strictSame(
    left.body.data.map((d) => d.serial_number),
    ['ZZAS2'],
    'only the refused one is still unassigned',
  );
});

t.test('without BIOGATE_ADMIN_TOKEN the admin API does not exist', async (t) => {
  const { a } = await gateway(t);
  t.equal((await a.api<Json>('GET', '/admin/devices/unassigned', { token: ADMIN_TOKEN })).status, 404);
});
