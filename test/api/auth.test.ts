/**
 * Bearer authentication and tenancy [API-CONTRACT §3–4], seen through GET /api/me.
 * The clock is fake, so expiry is tested without waiting.
 */
import t from 'tap';
import { DAY_MS, fakeClock, fetchJson, startApp } from '../helpers/app.js';

const START = '2026-03-01T08:00:00.000Z';
const ISO_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface ErrorBody {
  detail: string;
  code: string;
}

/** GET /api/me with an optional Authorization header value. */
async function me(url: string, authorization?: string) {
  return fetchJson(`${url}/api/me`, authorization === undefined ? {} : { headers: { authorization } });
}

t.test('401 UNAUTHORIZED with WWW-Authenticate: Bearer', async (t) => {
  const { url, token, app, locationId } = await startApp(t);

  const cases: [label: string, authorization: string | undefined, detail: string][] = [
    ['missing header', undefined, 'Missing bearer token'],
    ['Basic scheme', `Basic ${Buffer.from(`user:${token}`).toString('base64')}`, 'Authorization must use the Bearer scheme'],
    ['bare token without scheme', token, 'Authorization must use the Bearer scheme'],
    ['Bearer without a token', 'Bearer ', 'Authorization must use the Bearer scheme'],
    ['malformed token', 'Bearer bg_short', 'Invalid token'],
    ['wrong prefix', `Bearer xx_${token.slice(3)}`, 'Invalid token'],
    ['unknown well-formed token', `Bearer bg_${'A'.repeat(32)}`, 'Invalid token'],
    ['token with one character changed', `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, 'Invalid token'],
  ];
  for (const [label, authorization, detail] of cases) {
    const { res, body } = await me(url, authorization);
    t.equal(res.status, 401, `${label}: 401`);
    t.equal(res.headers.get('www-authenticate'), 'Bearer realm="biogate"', `${label}: WWW-Authenticate`);
    t.strictSame(body, { detail, code: 'UNAUTHORIZED' }, `${label}: body`);
  }

  // The real token works, in any case of the scheme name.
  t.equal((await me(url, `Bearer ${token}`)).res.status, 200);
  t.equal((await me(url, `bearer ${token}`)).res.status, 200);

  // Revoked: 401 from the next request on (the server reads tokens per request).
  const [issued] = await app.locations.listTokens(locationId);
  await app.locations.revokeToken(issued?.id ?? 0);
  const revoked = await me(url, `Bearer ${token}`);
  t.equal(revoked.res.status, 401);
  t.equal(revoked.res.headers.get('www-authenticate'), 'Bearer realm="biogate"');
  t.strictSame(revoked.body, { detail: 'Token revoked', code: 'UNAUTHORIZED' });
});

t.test('expired token: 401 once the (fake) clock passes expires_at', async (t) => {
  const clock = fakeClock(START);
  const { url, app, locationId } = await startApp(t, { clock });
  const issued = await app.locations.issueToken({ location_id: locationId, expires_in_days: 1 });
  t.equal(issued.expires_at, '2026-03-02T08:00:00.000Z');

  t.equal((await me(url, `Bearer ${issued.token}`)).res.status, 200, 'valid when issued');
  clock.advance(DAY_MS - 1);
  t.equal((await me(url, `Bearer ${issued.token}`)).res.status, 200, 'valid 1 ms before expiry');
  clock.advance(1);
  const atExpiry = await me(url, `Bearer ${issued.token}`);
  t.equal(atExpiry.res.status, 401, 'invalid at expires_at');
  clock.advance(DAY_MS);
  const later = await me(url, `Bearer ${issued.token}`);
  t.equal(later.res.status, 401, 'invalid two days after issue');
  t.equal(later.res.headers.get('www-authenticate'), 'Bearer realm="biogate"');
  t.strictSame(later.body, { detail: 'Token expired', code: 'UNAUTHORIZED' });
});

t.test('disabled location: 403 LOCATION_DISABLED; enabled again: 200', async (t) => {
  const clock = fakeClock(START);
  const { url, token, app, locationId } = await startApp(t, { clock });
  clock.advance(60_000);
  await app.locations.update(locationId, { is_active: false });
  const off = await me(url, `Bearer ${token}`);
  t.equal(off.res.status, 403);
  t.equal(off.res.headers.get('www-authenticate'), null, '403 is not an authentication challenge');
  t.strictSame(off.body, { detail: `Location ${locationId} is disabled`, code: 'LOCATION_DISABLED' });

  clock.advance(60_000);
  await app.locations.update(locationId, { is_active: true });
  const on = await me(url, `Bearer ${token}`);
  t.equal(on.res.status, 200);
  t.match(on.body, { id: locationId, is_active: true, updated_at: '2026-03-01T08:02:00.000Z' });
});

t.test('GET /api/me: exact fields and types of Location (SERVICE-SPEC) + timezone', async (t) => {
  const clock = fakeClock(START);
  const { url, token, locationId } = await startApp(t, { clock });
  const { res, body } = await me(url, `Bearer ${token}`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.strictSame(body, {
    id: locationId,
    name: 'Default',
    is_active: true,
    users_count: 0,
    devices_count: 0,
    created_at: START,
    updated_at: null,
    timezone: 'UTC',
    require_comm_key: false,
    attendance_debounce_s: 60,
    day_start_hour: 0,
    attendance_photos: false,
    attendance_photo_retention_days: 30,
    // The emergency scenario in force (issue #36 item 3): none.
    scenario: null,
    // Extra fields (API-CONTRACT: extra fields are allowed): the calling token, for clients such as the console,
    // and how a terminal reaches this gateway (the console's "Add a terminal" guide).
    token: { id: 1, scope: 'full', expires_at: null },
    device_connection: { port: null, comm_key_required: false },
  });
  const b = body as Record<string, unknown>;
  t.strictSame(Object.keys(b).sort(), [
    'attendance_debounce_s',
    'attendance_photo_retention_days',
    'attendance_photos',
    'created_at',
    'day_start_hour',
    'device_connection',
    'devices_count',
    'id',
    'is_active',
    'name',
    'require_comm_key',
    'scenario',
    'timezone',
    'token',
    'updated_at',
    'users_count',
  ]);
  t.ok(Number.isInteger(b['id']) && (b['id'] as number) > 0, 'id is a positive integer');
  t.match(b['created_at'], ISO_MS_Z, 'created_at: ISO 8601, UTC with Z, milliseconds');
});

t.test('each token sees its own location only', async (t) => {
  const clock = fakeClock(START);
  const { url, token, app, locationId } = await startApp(t, { clock });
  clock.advance(1000);
  const second = await app.locations.create({ name: 'Second', timezone: 'Europe/Berlin' });
  t.not(second.location.id, locationId);

  const a = await me(url, `Bearer ${token}`);
  const b = await me(url, `Bearer ${second.token.token}`);
  t.match(a.body, { id: locationId, name: 'Default', timezone: 'UTC' });
  t.strictSame(b.body, {
    id: second.location.id,
    name: 'Second',
    is_active: true,
    users_count: 0,
    devices_count: 0,
    created_at: '2026-03-01T08:00:01.000Z',
    updated_at: null,
    timezone: 'Europe/Berlin',
    require_comm_key: false,
    attendance_debounce_s: 60,
    day_start_hour: 0,
    attendance_photos: false,
    attendance_photo_retention_days: 30,
    scenario: null,
    token: { id: second.token.id, scope: 'full', expires_at: null },
    device_connection: { port: null, comm_key_required: false },
  });

  // Disabling one location leaves the other untouched.
  await app.locations.update(second.location.id, { is_active: false });
  t.equal((await me(url, `Bearer ${second.token.token}`)).res.status, 403);
  t.equal((await me(url, `Bearer ${token}`)).res.status, 200);
  t.equal(((await me(url, `Bearer ${second.token.token}`)).body as ErrorBody).code, 'LOCATION_DISABLED');
});
