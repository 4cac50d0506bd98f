/**
 * Issue #32 (16): quotas per location. BIOGATE_QUOTA_DEVICES and BIOGATE_QUOTA_USERS refuse one more with
 * 429 QUOTA_EXCEEDED naming the quota (an import refuses the new users beyond it as per-item errors);
 * counts come from the store, so a second node on the same store sees them. BIOGATE_QUOTA_RECORDS
 * keeps the newest raw device records and door events per location (the oldest go). Either store.
 */
import t from 'tap';
import { ADMIN_TOKEN, startApp } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { client, gateway, type ErrorBody } from '../api/client.js';
import { trimToQuota } from '../../src/locations/quotas.js';

interface ImportResult {
  processed_count: number;
  error_count: number;
  errors: { user_data: { pin: number }; code: string; error: string }[];
}

t.test('devices quota: one more assignment is 429 QUOTA_EXCEEDED, whoever assigns', async (t) => {
  const { a, started } = await gateway(t, { env: { BIOGATE_QUOTA_DEVICES: '2' }, config: { adminToken: ADMIN_TOKEN } });
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'Q1' } })).status, 201);
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'Q2' } })).status, 201);
  const over = await a.api<ErrorBody>('POST', '/api/devices', { body: { sn: 'Q3' } });
  t.equal(over.status, 429);
  t.equal(over.body.code, 'QUOTA_EXCEEDED');
  t.match(over.body.detail, /BIOGATE_QUOTA_DEVICES.*2 devices/);
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'Q1', name: 'Renamed' } })).status, 200, 'an assigned device updates');
  const byAdmin = await a.api<ErrorBody>('POST', '/admin/devices/Q3/assign', { token: ADMIN_TOKEN, body: { location_id: a.id } });
  t.equal(byAdmin.body.code, 'QUOTA_EXCEEDED', 'the admin is held to it too');
  const byCli = await cli(['device', 'assign', '--location', String(a.id), '--sn', 'Q3'], {
    BIOGATE_STORE: started.storeUrl,
    BIOGATE_QUOTA_DEVICES: '2',
  });
  t.equal(byCli.code, 1);
  t.match(byCli.stderr, /QUOTA_EXCEEDED/);
  t.equal((await a.api('DELETE', '/api/devices/Q2')).status, 200);
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'Q3' } })).status, 201, 'room again once one left');
});

t.test('users quota: counted in the store (two nodes), new users refused, updates kept', async (t) => {
  const env = { BIOGATE_QUOTA_USERS: '3' };
  const one = await startApp(t, { env });
  const two = await startApp(t, { env, storeUrl: one.storeUrl });
  const apiOne = client(one.url, one.token);
  const apiTwo = client(two.url, one.token);
  for (const pin of [1, 2]) t.equal((await apiOne('POST', '/api/users', { body: { pin, first_name: `U${pin}` } })).status, 201);
  t.equal((await apiTwo('POST', '/api/users', { body: { pin: 3, first_name: 'U3' } })).status, 201, 'the third, on the other node');
  const over = await apiOne<ErrorBody>('POST', '/api/users', { body: { pin: 4, first_name: 'U4' } });
  t.equal(over.status, 429, 'node one sees the user node two created');
  t.equal(over.body.code, 'QUOTA_EXCEEDED');
  t.match(over.body.detail, /BIOGATE_QUOTA_USERS.*3 users/);
  t.equal((await apiTwo('POST', '/api/users', { body: { pin: 1, first_name: 'Renamed' } })).status, 200, 'an update is not a new user');

  t.equal((await apiOne('DELETE', '/api/users/3')).status, 200);
  const imported = await apiTwo<ImportResult>('POST', '/api/users/import', {
    body: [
      { pin: 2, first_name: 'Updated' },
      { pin: 5, first_name: 'Five' },
      { pin: 6, first_name: 'Six' },
      { pin: 5, first_name: 'Five again' },
    ],
  });
  t.equal(imported.status, 200);
  t.equal(imported.body.processed_count, 3, 'the update, the one new user there is room for, and its repeat');
  t.equal(imported.body.error_count, 1);
  t.match(imported.body.errors, [{ user_data: { pin: 6 }, code: 'QUOTA_EXCEEDED', error: /BIOGATE_QUOTA_USERS/ }]);
  const total = await apiOne<{ total: number }>('GET', '/api/users?limit=1');
  t.equal(total.body.total, 3, 'still three users');
});

t.test('records quota: the newest raw records and door events per location are kept, the oldest go', async (t) => {
  const started = await startApp(t, { env: { BIOGATE_QUOTA_RECORDS: '1000' } });
  const other = await started.app.locations.create({ name: 'Other' });
  const store = started.app.store;
  const now = '2026-03-01T08:00:00.000Z';
  const records = (location_id: number, n: number, from = 0) =>
    store.deviceRecords.append(
      {
        location_id,
        sn: 'RAW1',
        table: 'workcode',
        source: 'upload',
        cmd_id: null,
        records: Array.from({ length: n }, (_, i) => `R${from + i}`),
      },
      now,
    );
  await records(started.locationId, 1200);
  await records(other.location.id, 10);
  const door = (i: number) => ({
    location_id: started.locationId,
    sn: 'RAW1',
    type: 'normal' as const,
    event: 0,
    door: 1,
    pin: null,
    card_no: null,
    verify_type: null,
    in_out: 0,
    device_index: i,
    local_time: '2026-03-01 09:00:00',
    timestamp: now,
    state: null,
    extra: null,
    dedup_key: `k${i}`,
  });
  await store.doorEvents.append(
    Array.from({ length: 1100 }, (_, i) => door(i)),
    now,
  );
  const trimmed = await trimToQuota(store, started.config.quotaRecords, 150);
  t.strictSame(trimmed, { records: 200, doorEvents: 100 });
  const kept = await store.deviceRecords.list(started.locationId, { sn: 'RAW1' }, { offset: 0, limit: 1000 });
  t.equal(kept.total, 1000);
  t.strictSame(kept.items.map((r) => r.record).sort((x, y) => Number(x.slice(1)) - Number(y.slice(1)))[0], 'R200', 'the oldest went');
  t.equal(
    (await store.deviceRecords.list(other.location.id, { sn: 'RAW1' }, { offset: 0, limit: 10 })).total,
    10,
    'other locations untouched',
  );
  const events = await store.doorEvents.list(started.locationId, {}, { offset: 0, limit: 1 });
  t.equal(events.total, 1000);
  t.strictSame(await trimToQuota(store, started.config.quotaRecords), { records: 0, doorEvents: 0 }, 'idempotent');
});
