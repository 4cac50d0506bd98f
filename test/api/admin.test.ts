/**
 * The admin API (README "Admin API"): exists only with BIOGATE_ADMIN_TOKEN,
 * manages locations and tokens, and its effects are visible to /api at once.
 */
import t from 'tap';
import { routerPattern } from '../../src/api/route.js';
import { ADMIN_TOKEN, bearer, fakeClock, fetchJson, jsonBody, startApp } from '../helpers/app.js';

const START = '2026-03-01T08:00:00.000Z';
const TOKEN = /^bg_[A-Za-z0-9_-]{32}$/;
const admin = bearer(ADMIN_TOKEN);

interface LocationView {
  id: number;
  name: string;
  is_active: boolean;
  users_count: number;
  devices_count: number;
  created_at: string;
  updated_at: string | null;
  timezone: string;
}

t.test('without BIOGATE_ADMIN_TOKEN the admin API does not exist (404)', async (t) => {
  const { url, token } = await startApp(t);
  for (const [method, path] of [
    ['GET', '/admin/locations'],
    ['POST', '/admin/locations'],
    ['PATCH', '/admin/locations/1'],
    ['GET', '/admin/locations/1/tokens'],
    ['DELETE', '/admin/tokens/1'],
  ] as const) {
    for (const headers of [{}, admin, bearer(token)]) {
      const { res, body } = await fetchJson(`${url}${path}`, { method, headers });
      t.equal(res.status, 404, `${method} ${path}`);
      t.equal((body as { code: string }).code, 'NOT_FOUND');
    }
  }
});

t.test('wrong or missing admin token: 401', async (t) => {
  const { url, token } = await startApp(t, { config: { adminToken: ADMIN_TOKEN } });
  const cases: [string, Record<string, string>][] = [
    ['missing', {}],
    ['wrong', bearer('x'.repeat(ADMIN_TOKEN.length))],
    ['prefix of it', bearer(ADMIN_TOKEN.slice(0, -1))],
    ['a location token', bearer(token)],
    ['Basic scheme', { authorization: `Basic ${ADMIN_TOKEN}` }],
  ];
  for (const [label, headers] of cases) {
    const { res, body } = await fetchJson(`${url}/admin/locations`, { headers });
    t.equal(res.status, 401, label);
    t.equal(res.headers.get('www-authenticate'), 'Bearer realm="biogate-admin"', `${label}: challenge`);
    t.strictSame(body, { detail: 'Admin token required', code: 'UNAUTHORIZED' }, `${label}: body`);
  }
  // ...and the admin token is no location token.
  t.equal((await fetch(`${url}/api/me`, { headers: admin })).status, 401);
});

t.test('locations: create (token shown once), list, rename, time zone, disable, enable', async (t) => {
  const clock = fakeClock(START);
  const { url, locationId } = await startApp(t, { config: { adminToken: ADMIN_TOKEN }, clock });

  clock.advance(1000);
  const created = await fetchJson(`${url}/admin/locations`, jsonBody('POST', { name: 'Warehouse', timezone: 'Asia/Tokyo' }, admin));
  t.equal(created.res.status, 201);
  const c = created.body as { location: LocationView; token: string };
  t.strictSame(Object.keys(c).sort(), ['location', 'token']);
  t.match(c.token, TOKEN);
  const id = c.location.id;
  t.strictSame(c.location, {
    id,
    name: 'Warehouse',
    is_active: true,
    users_count: 0,
    devices_count: 0,
    created_at: '2026-03-01T08:00:01.000Z',
    updated_at: null,
    timezone: 'Asia/Tokyo',
    require_comm_key: false,
    attendance_debounce_s: 60,
    day_start_hour: 0,
    attendance_photos: false,
    attendance_photo_retention_days: 30,
    scenario: null,
  });
  const me = await fetchJson(`${url}/api/me`, { headers: bearer(c.token) });
  t.equal(me.res.status, 200, 'the new token works');
  // /api/me is the location view plus the calling token and the device connection (test/api/me-token.test.ts).
  const { token: caller, device_connection: _connection, ...meLocation } = me.body as Record<string, unknown>;
  t.strictSame(meLocation, c.location);
  t.match(caller, { scope: 'full' });

  const noZone = await fetchJson(`${url}/admin/locations`, jsonBody('POST', { name: 'Plain' }, admin));
  t.equal(noZone.res.status, 201);
  t.equal((noZone.body as { location: LocationView }).location.timezone, 'UTC', 'time zone defaults to UTC');

  const list = await fetchJson(`${url}/admin/locations`, { headers: admin });
  t.equal(list.res.status, 200);
  t.strictSame(
    (list.body as LocationView[]).map((l) => [l.id, l.name, l.timezone]),
    [
      [locationId, 'Default', 'UTC'],
      [id, 'Warehouse', 'Asia/Tokyo'],
      [(noZone.body as { location: LocationView }).location.id, 'Plain', 'UTC'],
    ],
  );
  t.notOk(JSON.stringify(list.body).includes('bg_'), 'listings carry no token');

  clock.advance(1000);
  const renamed = await fetchJson(
    `${url}/admin/locations/${id}`,
    jsonBody('PATCH', { name: 'Warehouse 2', timezone: 'Europe/Lisbon' }, admin),
  );
  t.equal(renamed.res.status, 200);
  t.match(renamed.body, { id, name: 'Warehouse 2', timezone: 'Europe/Lisbon', is_active: true, updated_at: '2026-03-01T08:00:02.000Z' });

  const badZone = await fetchJson(`${url}/admin/locations/${id}`, jsonBody('PATCH', { timezone: 'Europe/Atlantis' }, admin));
  t.equal(badZone.res.status, 422);
  t.strictSame(badZone.body, {
    detail: [{ loc: ['body', 'timezone'], msg: 'unknown IANA time zone "Europe/Atlantis"', type: 'enum' }],
    code: 'VALIDATION_FAILED',
  });

  const badBody = await fetchJson(`${url}/admin/locations/${id}`, jsonBody('PATCH', { is_active: 'no', name: '' }, admin));
  t.equal(badBody.res.status, 422);
  t.equal((badBody.body as { detail: unknown[] }).detail.length, 2, 'both problems listed');

  clock.advance(1000);
  const off = await fetchJson(`${url}/admin/locations/${id}`, jsonBody('PATCH', { is_active: false }, admin));
  t.match(off.body, { id, is_active: false, updated_at: '2026-03-01T08:00:03.000Z' });
  const denied = await fetchJson(`${url}/api/me`, { headers: bearer(c.token) });
  t.equal(denied.res.status, 403);
  t.strictSame(denied.body, { detail: `Location ${id} is disabled`, code: 'LOCATION_DISABLED' });

  const on = await fetchJson(`${url}/admin/locations/${id}`, jsonBody('PATCH', { is_active: true }, admin));
  t.match(on.body, { id, is_active: true });
  t.equal((await fetch(`${url}/api/me`, { headers: bearer(c.token) })).status, 200);
});

t.test('tokens: issue with scope and expiry, list without secrets, revoke', async (t) => {
  const clock = fakeClock(START);
  const { url, app, locationId } = await startApp(t, { config: { adminToken: ADMIN_TOKEN }, clock });

  const issued = await fetchJson(
    `${url}/admin/locations/${locationId}/tokens`,
    jsonBody('POST', { scope: 'read', expires_in_days: 7, label: 'dashboard' }, admin),
  );
  t.equal(issued.res.status, 201);
  const tok = issued.body as { id: number; token: string; location_id: number; scope: string; expires_at: string | null };
  t.strictSame(Object.keys(tok).sort(), ['expires_at', 'id', 'location_id', 'scope', 'token']);
  t.match(tok, { location_id: locationId, scope: 'read', expires_at: '2026-03-08T08:00:00.000Z' });
  t.match(tok.token, TOKEN);
  t.equal((await fetch(`${url}/api/me`, { headers: bearer(tok.token) })).status, 200, 'a read token may GET');

  // A read token may only GET: every write route of the location API answers 403 SCOPE_DENIED
  // (the scope check runs before input validation, so an empty body is enough).
  const writes = app.apiRoutes.filter((r) => r.auth === 'location' && (r.write ?? (r.method !== 'GET' && r.method !== 'HEAD')));
  t.comment(`${writes.length} location write routes`);
  for (const r of writes) {
    const path = routerPattern(r.path).replace(/:[^/]+/g, '1');
    const { res, body } = await fetchJson(`${url}${path}`, {
      method: r.method,
      headers: { ...bearer(tok.token), 'content-type': 'application/json' },
      body: '{}',
    });
    t.equal(res.status, 403, `${r.method} ${r.path}: 403 for a read token`);
    t.equal((body as { code: string }).code, 'SCOPE_DENIED', `${r.method} ${r.path}: SCOPE_DENIED`);
  }

  const plain = await fetchJson(`${url}/admin/locations/${locationId}/tokens`, { method: 'POST', headers: admin });
  t.equal(plain.res.status, 201, 'the body is optional');
  t.match(plain.body, { location_id: locationId, scope: 'full', expires_at: null });

  const badScope = await fetchJson(
    `${url}/admin/locations/${locationId}/tokens`,
    jsonBody('POST', { scope: 'root', expires_in_days: 0 }, admin),
  );
  t.equal(badScope.res.status, 422);
  t.strictSame([...(badScope.body as { detail: { loc: string[] }[] }).detail.map((d) => d.loc.join('.'))].sort(), [
    'body.expires_in_days',
    'body.scope',
  ]);

  const listed = await fetchJson(`${url}/admin/locations/${locationId}/tokens`, { headers: admin });
  t.equal(listed.res.status, 200);
  const rows = listed.body as Record<string, unknown>[];
  t.strictSame(
    rows.map((r) => [r['scope'], r['label'], r['revoked_at']]),
    [
      ['full', 'initial', null],
      ['read', 'dashboard', null],
      ['full', null, null],
    ],
  );
  for (const r of rows)
    t.strictSame(Object.keys(r).sort(), ['created_at', 'expires_at', 'id', 'label', 'location_id', 'revoked_at', 'scope']);
  t.notOk(JSON.stringify(rows).includes('bg_'), 'no token text');

  clock.advance(5000);
  const revoked = await fetchJson(`${url}/admin/tokens/${tok.id}`, { method: 'DELETE', headers: admin });
  t.equal(revoked.res.status, 200);
  t.match(revoked.body, { id: tok.id, scope: 'read', revoked_at: '2026-03-01T08:00:05.000Z' });
  t.notOk('hash' in (revoked.body as object), 'no hash either');
  const after = await fetchJson(`${url}/api/me`, { headers: bearer(tok.token) });
  t.equal(after.res.status, 401);
  t.strictSame(after.body, { detail: 'Token revoked', code: 'UNAUTHORIZED' });

  clock.advance(5000);
  const again = await fetchJson(`${url}/admin/tokens/${tok.id}`, { method: 'DELETE', headers: admin });
  t.equal(again.res.status, 200, 'revoking twice is fine');
  t.match(again.body, { revoked_at: '2026-03-01T08:00:05.000Z' }, 'and keeps the first time');
});

t.test('unknown ids: 404 LOCATION_NOT_FOUND / TOKEN_NOT_FOUND', async (t) => {
  const { url } = await startApp(t, { config: { adminToken: ADMIN_TOKEN } });
  const cases: [string, string, RequestInit, string][] = [
    ['PATCH', '/admin/locations/999', jsonBody('PATCH', { name: 'X' }, admin), 'Location 999 not found'],
    ['GET', '/admin/locations/999/tokens', { headers: admin }, 'Location 999 not found'],
    ['POST', '/admin/locations/999/tokens', jsonBody('POST', {}, admin), 'Location 999 not found'],
  ];
  for (const [method, path, init, detail] of cases) {
    const { res, body } = await fetchJson(`${url}${path}`, init);
    t.equal(res.status, 404, `${method} ${path}`);
    t.strictSame(body, { detail, code: 'LOCATION_NOT_FOUND' });
  }
  const tok = await fetchJson(`${url}/admin/tokens/999`, { method: 'DELETE', headers: admin });
  t.equal(tok.res.status, 404);
  t.strictSame(tok.body, { detail: 'Token 999 not found', code: 'TOKEN_NOT_FOUND' });
});
