// The pure parts of webhooks (issue #16): the retry schedule, Retry-After, attendance batching, the address guard.
import t from 'tap';
import { STANDARD_SHAPE, type StoredEvent, type WebhookSubscription } from '../../src/store/ports/index.js';
import { isPublicAddress } from '../../src/net/address-guard.js';
import { urlProblem } from '../../src/webhooks/address-guard.js';
import { deliveriesFor } from '../../src/webhooks/payload.js';
import { nextAttemptAt, parseRetryAfter, RETRY_WINDOW_MS } from '../../src/webhooks/schedule.js';

const T0 = new Date('2026-03-01T08:00:00.000Z');
const plus = (ms: number) => new Date(T0.getTime() + ms);

t.test('schedule: documented delays ±20 %, capped at the 24 h mark, then failed', async (t) => {
  const expected = [5_000, 60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000];
  expected.forEach((ms, i) => {
    t.equal(nextAttemptAt(T0, T0, i + 1, null, () => 0.5)?.getTime(), T0.getTime() + ms, `after attempt ${i + 1}: ${ms} ms`);
    t.equal(nextAttemptAt(T0, T0, i + 1, null, () => 0)?.getTime(), T0.getTime() + ms * 0.8, 'jitter low end');
  });
  t.equal(
    nextAttemptAt(T0, plus(RETRY_WINDOW_MS - 1000), 9, null, () => 0.5)?.getTime(),
    T0.getTime() + RETRY_WINDOW_MS,
    'the last attempt at the 24 h mark',
  );
  t.equal(nextAttemptAt(T0, plus(RETRY_WINDOW_MS), 10, null), null, 'at 24 h: failed');
  t.equal(nextAttemptAt(T0, T0, 1, 120_000)?.getTime(), T0.getTime() + 120_000, 'Retry-After wins');
  t.equal(parseRetryAfter('120', T0), 120_000);
  t.equal(parseRetryAfter(plus(30_000).toUTCString(), T0), 30_000, 'HTTP date');
  t.equal(parseRetryAfter('soon', T0), null);
  t.equal(parseRetryAfter(undefined, T0), null);
});

t.test('attendance batching: one record per delivery by default, N with attendance_batch; ids stable', async (t) => {
  const sub = {
    ...STANDARD_SHAPE,
    id: 3,
    location_id: 1,
    events: ['attendance.recorded'],
    attendance_batch: 1,
  } as unknown as WebhookSubscription;
  const records = Array.from({ length: 5 }, (_, i) => ({ id: i + 1, pin: '7' }));
  const e: StoredEvent = {
    id: 'ev',
    seq: 9,
    location_id: 1,
    type: 'attendance.recorded',
    at: T0.toISOString(),
    node: 'n',
    data: { sn: 'S', records },
  };
  const one = deliveriesFor(sub, e, 'now');
  t.same(
    one.map((d) => d.event_id),
    ['ev.1', 'ev.2', 'ev.3', 'ev.4', 'ev.5'],
  );
  t.same(JSON.parse(one[2]?.payload ?? '{}'), {
    id: 'ev.3',
    type: 'attendance.recorded',
    location_id: 1,
    created_at: T0.toISOString(),
    data: { sn: 'S', records: [records[2]] },
  });
  t.same(
    deliveriesFor(sub, e, 'later').map((d) => d.payload),
    one.map((d) => d.payload),
    'the same event gives the same deliveries',
  );
  const two = deliveriesFor({ ...sub, attendance_batch: 2 }, e, 'now');
  t.same(
    two.map((d) => (JSON.parse(d.payload) as { data: { records: unknown[] } }).data.records.length),
    [2, 2, 1],
  );
  t.same(
    deliveriesFor({ ...sub, attendance_batch: 10 }, e, 'now').map((d) => d.event_id),
    ['ev'],
    'fits in one: the event id itself',
  );
  t.same(deliveriesFor({ ...sub, events: ['device.online'] }, e, 'now'), [], 'not subscribed: nothing');
});

t.test('address guard', async (t) => {
  for (const a of [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.5',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:10.0.0.1',
    '224.0.0.1',
  ]) {
    t.notOk(isPublicAddress(a), `${a}: not public`);
  }
  for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) t.ok(isPublicAddress(a), `${a}: public`);
  const strict = { allowHttp: false, allowPrivate: false };
  t.equal(urlProblem('https://example.com/hook', strict), null);
  t.match(urlProblem('http://example.com/hook', strict), /BIOGATE_WEBHOOK_ALLOW_HTTP/);
  t.match(urlProblem('https://127.0.0.1/', strict), /BIOGATE_WEBHOOK_ALLOW_PRIVATE/);
  t.match(urlProblem('https://[::1]/', strict), /BIOGATE_WEBHOOK_ALLOW_PRIVATE/);
  t.equal(urlProblem('https://[::1]/', { allowHttp: false, allowPrivate: true }), null);
  t.match(urlProblem('gopher://x/', strict), /https/);
  t.match(urlProblem('not a url', strict), /absolute URL/);
});

t.test('filter: each kind of event by the fields it has; none of them, no delivery', async (t) => {
  const sub = (filter: WebhookSubscription['filter'], events: string[]) =>
    ({ ...STANDARD_SHAPE, id: 1, location_id: 1, events, attendance_batch: 1, filter }) as unknown as WebhookSubscription;
  const ev = (type: string, data: unknown): StoredEvent => ({
    id: type,
    seq: 1,
    location_id: 1,
    type,
    at: T0.toISOString(),
    node: 'n',
    data,
  });
  const door = (code: number, pin: string | null) => ev('door.event', { id: 1, sn: 'D1', event: code, door: 1, pin, type: 'alarm' });
  const areas = (sn: string) => (sn === 'D1' ? 5 : sn === 'D2' ? null : undefined);
  const n = (s: WebhookSubscription, e: StoredEvent) => deliveriesFor(s, e, 'now', areas).length;
  t.equal(n(sub({ event_codes: [27] }, ['door.event']), door(27, null)), 1, 'a door event of the code');
  t.equal(n(sub({ event_codes: [27] }, ['door.event']), door(28, null)), 0, 'another code');
  t.equal(n(sub({ pin: ['9'] }, ['door.event']), door(0, '9')), 1, 'a door event of the PIN');
  t.equal(n(sub({ pin: ['9'] }, ['door.event']), door(0, null)), 0, 'a door event without a PIN');
  t.equal(n(sub({ area_id: [5] }, ['door.event']), door(0, null)), 1, 'the terminal is in the area');
  const inNoArea = ev('door.event', { id: 2, sn: 'D2', event: 0, door: 1, pin: null });
  t.equal(n(sub({ area_id: [5] }, ['door.event']), inNoArea), 0, 'a terminal in no area');
  const command = (sn: string | null) => ev('command.updated', { command: { id: 1, sn, status: 'success', command: 'reboot' } });
  t.equal(n(sub({ sn: ['D1'] }, ['command.updated']), command('D1')), 1, 'a command of the terminal');
  t.equal(n(sub({ sn: ['D1'] }, ['command.updated']), command(null)), 0, 'a location-wide command has no terminal');
  const voided = ev('attendance.voided', { record: { id: 1, sn: null, pin: '9' } });
  t.equal(n(sub({ pin: ['9'] }, ['attendance.voided']), voided), 1, 'a voided punch of the PIN');
  t.equal(n(sub({ sn: ['D1'] }, ['attendance.voided']), voided), 0, 'a manual punch has no terminal');
  t.equal(n(sub({ sn: ['D1'] }, ['user.changed']), ev('user.changed', { pins: [1], change: 'deleted' })), 0, 'no terminal: dropped');
  t.equal(n(sub(null, ['user.changed']), ev('user.changed', { pins: [1], change: 'deleted' })), 1, 'no filter: sent');
});
