/**
 * Manual punches and voids over real HTTP (issue #35 item 3), on both stores (test/mongo-api-leg.mjs runs test/api):
 * a manual punch with its provenance, the full scope rule, refusals, and a void flowing through the cursor feed, the
 * list, the CSV, the time cards and the event feed; another location can neither see nor void a record.
 * A terminal's punch goes in through the store port, as the device runtime stores it (test/api/time-cards.test.ts).
 */
import t from 'tap';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { fakeClock } from '../helpers/app.js';
import { client, gateway, type ErrorBody, type Json } from './client.js';

const ADMIN_TOKEN = 'manual-punch-admin-token-0123456789abcd';

interface Record_ extends Json {
  id: number;
  sn: string | null;
  source: string;
  voided_at: string | null;
  void_reason: string | null;
}

t.test('manual punch and void: provenance, scope, refusals, cursor, CSV, time cards, events, isolation', async (t) => {
  const clock = fakeClock('2026-03-02T17:30:00.000Z');
  const g = await gateway(t, { clock, config: { adminToken: ADMIN_TOKEN } });
  const { a, started } = g;
  const admin = client(g.url, ADMIN_TOKEN);
  t.equal((await admin('PATCH', `/admin/locations/${a.id}`, { body: { timezone: 'Europe/Berlin' } })).status, 200);
  const b = await g.tenant('Other');
  const operator = await started.app.locations.issueToken({ location_id: a.id, scope: 'operator', label: 'desk' });
  const events: AnyFeedEvent[] = [];
  started.app.feed.subscribe({ locationId: null }, (e) => void events.push(e));
  t.equal((await a.api('POST', '/api/users', { body: { pin: 5, first_name: 'Eve' } })).status, 201);

  const body = { pin: 5, timestamp: '2026-03-02 08:00:00', reason: 'forgot her badge' };
  t.match(
    await a.api('POST', '/api/attendance', { body, token: operator.token }),
    { status: 403, body: { code: 'SCOPE_DENIED' } },
    'an operator token may not enter punches',
  );
  const manual = await a.api<Record_>('POST', '/api/attendance', { body });
  t.equal(manual.status, 201);
  t.match(manual.body, {
    sn: null,
    pin: '5',
    timestamp: '2026-03-02T07:00:00.000Z',
    local_time: '2026-03-02 08:00:00',
    status: 0,
    status_label: 'check-in',
    verify: null,
    verify_label: null,
    source: 'manual',
    reason: 'forgot her badge',
    created_by: { label: 'initial' },
    voided_at: null,
    void_reason: null,
  });
  t.type((manual.body['created_by'] as { token_id: unknown }).token_id, 'number', 'the token that entered it');
  t.match(await a.api('POST', '/api/attendance', { body }), { status: 409, body: { code: 'ATTENDANCE_EXISTS' } }, 'the same one twice');
  const refusals: [Json, number, string][] = [
    [{ ...body, pin: 999 }, 404, 'USER_NOT_FOUND'],
    [{ ...body, timestamp: '2026-03-02T19:00:00Z' }, 422, 'VALIDATION_FAILED'],
    [{ ...body, timestamp: '2026-02-30 08:00:00' }, 422, 'VALIDATION_FAILED'],
    [{ ...body, timestamp: 'yesterday' }, 422, 'VALIDATION_FAILED'],
    [{ pin: 5, timestamp: body.timestamp }, 422, 'VALIDATION_FAILED'],
    [{ ...body, reason: '' }, 422, 'VALIDATION_FAILED'],
    [{ ...body, status: 256 }, 422, 'VALIDATION_FAILED'],
    [{ ...body, sn: 'X' }, 422, 'VALIDATION_FAILED'],
  ];
  for (const [bad, status, code] of refusals)
    t.match(await a.api('POST', '/api/attendance', { body: bad }), { status, body: { code } }, `${JSON.stringify(bad)}: ${status}`);
  const withOffset = await a.api<Record_>('POST', '/api/attendance', {
    body: { pin: 5, timestamp: '2026-03-02T12:00:00+01:00', status: 3, reason: 'lunch back' },
  });
  t.match(withOffset, { status: 201, body: { timestamp: '2026-03-02T11:00:00.000Z', local_time: '2026-03-02 12:00:00' } });

  // The terminal's check-out at 17:00 local.
  const [device] = await started.app.store.attendance.record(
    [
      {
        location_id: a.id,
        sn: 'MP-1',
        pin: '5',
        user_id: null,
        timestamp: '2026-03-02T16:00:00.000Z',
        local_time: '2026-03-02 17:00:00',
        status: 1,
        verify: 1,
        work_code: null,
      },
    ],
    clock.now().toISOString(),
  );
  const deviceId = device?.id ?? 0;
  const card = async () =>
    (await a.api<{ data: Json[] }>('GET', '/api/attendance/daily?from=2026-03-02')).body.data.find((c) => c['pin'] === '5');
  t.match(await card(), {
    first_in: '2026-03-02T08:00:00+01:00',
    last_out: '2026-03-02T17:00:00+01:00',
    punches: 3,
    sources: ['device', 'manual'],
  });

  // Void the terminal's punch: full scope only, once, only in the own location.
  const voidIt = (id: number, token?: string) =>
    a.api<Record_>('POST', `/api/attendance/${id}/void`, { body: { reason: 'badge lent' }, ...(token ? { token } : {}) });
  t.match(await voidIt(deviceId, operator.token), { status: 403, body: { code: 'SCOPE_DENIED' } });
  t.match(
    await b.api('POST', `/api/attendance/${deviceId}/void`, { body: { reason: 'x' } }),
    { status: 404, body: { code: 'ATTENDANCE_NOT_FOUND' } },
    'another location cannot void it',
  );
  const voided = await voidIt(deviceId);
  t.match(voided, {
    status: 200,
    body: { id: deviceId, sn: 'MP-1', source: 'device', voided_at: '2026-03-02T17:30:00.000Z', void_reason: 'badge lent' },
  });
  t.match(await voidIt(deviceId), { status: 409, body: { code: 'ATTENDANCE_VOIDED' } });
  t.match(await voidIt(424242), { status: 404, body: { code: 'ATTENDANCE_NOT_FOUND' } });
  t.match(await a.api('POST', `/api/attendance/${deviceId}/void`, { body: {} }), { status: 422 }, 'a void needs a reason');
  t.match(await card(), { punches: 2, sources: ['manual'], last_out: '2026-03-02T12:00:00+01:00' }, 'the voided punch left the card');

  // Readable everywhere, flagged.
  clock.advance(10_000); // past the MongoDB cursor feed's settling margin
  const cursor = await a.api<{ data: Record_[] }>('GET', '/api/attendance?after=0');
  t.same(
    cursor.body.data.map((r) => [r.source, r.voided_at !== null]),
    [
      ['manual', false],
      ['manual', false],
      ['device', true],
    ],
    'the cursor feed has all three, the voided one flagged',
  );
  const listed = await a.api<{ data: Record_[] }>('GET', '/api/attendance');
  t.equal(listed.body.data.find((r) => r.id === deviceId)?.void_reason, 'badge lent', 'the list shows it');
  const csv = await a.api<string>('GET', '/api/attendance.csv');
  const [header, ...rows] = String(csv.body).trim().split('\r\n');
  t.match(header, /,source,reason,created_by_token_id,created_by_label,voided_at,void_reason$/);
  t.ok(
    rows.some((r) => r.startsWith(`${deviceId},MP-1,`) && r.endsWith(',device,,,,2026-03-02T17:30:00.000Z,badge lent')),
    'the CSV flags the voided row',
  );
  t.ok(
    rows.some((r) => r.includes(',manual,forgot her badge,') && r.includes(',initial,')),
    'and names the manual one’s reason and token',
  );
  t.same((await b.api<{ data: unknown[] }>('GET', '/api/attendance?after=0')).body.data, [], 'the other location sees none');

  // The feed: the manual punches as attendance.recorded (no terminal), the void as attendance.voided.
  const recorded = events.flatMap((e) => (e.type === 'attendance.recorded' ? [e.data] : []));
  t.match(
    recorded.filter((d) => d.sn === null).map((d) => d.records[0]?.['reason']),
    ['forgot her badge', 'lunch back'],
  );
  const voids = events.flatMap((e) => (e.type === 'attendance.voided' ? [e] : []));
  t.equal(voids.length, 1);
  t.match(voids[0], {
    location_id: a.id,
    data: { record: { id: deviceId, void_reason: 'badge lent', voided_at: '2026-03-02T17:30:00.000Z' } },
  });
  const error = (await a.api<ErrorBody>('POST', '/api/attendance/abc/void', { body: { reason: 'x' } })).status;
  t.ok(error === 404 || error === 422, 'a malformed id is refused');
});
