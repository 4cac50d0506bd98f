/**
 * Signing in to the BioTime-compatible API (issue #37 item 1): both sign-in routes, both schemes, DRF's error
 * bodies, the JWT's lifetime on the clock, revocation acting at once, read tokens reading only, and the facade
 * off with BIOGATE_BIOTIME_API=off.
 */
import t from 'tap';
import { ADMIN_TOKEN, bearer, fakeClock, fetchJson, startApp } from '../helpers/app.js';
import { biotimeSetup } from './helpers.js';

const BAD_LOGIN = { non_field_errors: ['Unable to log in with provided credentials.'] };

t.test('api-token-auth answers the location token; Token and Bearer schemes read', async (t) => {
  const s = await biotimeSetup(t);
  const login = await s.call('POST', '/biotime/api-token-auth/', undefined, { username: String(s.app.locationId), password: s.app.token });
  t.equal(login.status, 200);
  t.same(login.body, { token: s.app.token });
  const listed = await s.call('GET', '/biotime/iclock/api/terminals/', `Token ${s.app.token}`);
  t.equal(listed.status, 200);
  t.match(listed.body, { count: 0, next: null, previous: null, msg: '', code: 0, data: [] });
  t.equal((await s.call('GET', '/biotime/iclock/api/terminals/', `Bearer ${s.app.token}`)).status, 200);

  // The username may be the token's label; a form body is read like JSON.
  const form = await fetchJson(`${s.app.url}/biotime/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'payroll', password: s.readToken }).toString(),
  });
  t.equal(form.res.status, 200);
  t.same(form.body, { token: s.readToken });
});

t.test('wrong or missing credentials are DRF 400s; missing or bad tokens 401 {"detail"}', async (t) => {
  const s = await biotimeSetup(t);
  const post = (body: unknown) => s.call('POST', '/biotime/jwt-api-token-auth/', undefined, body);
  t.same((await post({ username: 'nobody', password: s.app.token })).body, BAD_LOGIN, 'the username must name the token');
  t.same((await post({ username: String(s.otherLocationId), password: s.app.token })).body, BAD_LOGIN, "another location's id");
  t.same((await post({ username: String(s.app.locationId), password: 'bg_' + 'x'.repeat(32) })).body, BAD_LOGIN);
  const missing = await post({ username: '1' });
  t.equal(missing.status, 400);
  t.same(missing.body, { password: ['This field is required.'] });
  t.equal((await post([1, 2])).status, 400, 'an array body');
  t.equal((await s.call('POST', '/biotime/api-token-auth/', undefined, { username: 'x'.repeat(5000), password: 'y' })).status, 400);

  const none = await s.call('GET', '/biotime/iclock/api/transactions/', undefined);
  t.equal(none.status, 401);
  t.same(none.body, { detail: 'Authentication credentials were not provided.' });
  const bad = await s.call('GET', '/biotime/iclock/api/transactions/', 'Token bg_' + 'z'.repeat(32));
  t.equal(bad.status, 401);
  t.same(bad.body, { detail: 'Invalid token.' });
  t.equal(bad.headers.get('www-authenticate'), 'Token');
  t.same((await s.call('GET', '/biotime/iclock/api/transactions/', 'JWT not.a.jwt')).body, { detail: 'Error decoding signature.' });
  t.same((await s.call('GET', '/biotime/iclock/api/transactions/', 'Basic abc')).body, { detail: 'Invalid token header.' });
});

t.test('a JWT lives BIOGATE_BIOTIME_JWT_TTL_S on the clock, names its token, and dies with it', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const s = await biotimeSetup(t, { clock, config: { biotimeJwtTtlS: 600 } });
  const login = await s.call('POST', '/biotime/jwt-api-token-auth/', undefined, { username: 'payroll', password: s.readToken });
  t.equal(login.status, 200);
  const jwt = login.body['token'] as string;
  const [header, payload] = jwt
    .split('.')
    .slice(0, 2)
    .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>);
  t.match(header, { alg: 'HS256', typ: 'JWT' });
  t.equal(payload?.['exp'], Date.parse('2026-03-01T08:00:00.000Z') / 1000 + 600);
  t.notOk(jwt.includes(s.readToken), 'the token itself is not in the JWT');
  const read = () => s.call('GET', '/biotime/iclock/api/transactions/', `JWT ${jwt}`);
  t.equal((await read()).status, 200);

  // A signature made with another key, or a changed payload, is refused.
  const forged =
    [header, { ...payload, user_id: 1 }].map((p) => Buffer.from(JSON.stringify(p)).toString('base64url')).join('.') +
    '.' +
    jwt.split('.')[2];
  t.same((await s.call('GET', '/biotime/iclock/api/transactions/', `JWT ${forged}`)).body, { detail: 'Error decoding signature.' });

  // Read scope: writes are refused in DRF's words.
  const write = await s.call('POST', '/biotime/personnel/api/departments/', `JWT ${jwt}`, { dept_code: 'X', dept_name: 'X' });
  t.equal(write.status, 403);
  t.same(write.body, { detail: 'You do not have permission to perform this action.' });

  clock.advance(601_000);
  const expired = await read();
  t.equal(expired.status, 401);
  t.same(expired.body, { detail: 'Signature has expired.' });

  // A fresh JWT of a revoked token is refused at once.
  clock.advance(-601_000);
  const again = (await s.call('POST', '/biotime/jwt-api-token-auth/', undefined, { username: 'payroll', password: s.readToken })).body[
    'token'
  ] as string;
  t.equal(
    (await fetchJson(`${s.app.url}/admin/tokens/${s.readTokenId}`, { method: 'DELETE', headers: bearer(ADMIN_TOKEN) })).res.status,
    200,
  );
  const revoked = await s.call('GET', '/biotime/iclock/api/transactions/', `JWT ${again}`);
  t.equal(revoked.status, 401);
  t.same(revoked.body, { detail: 'Invalid token.' });
});

t.test('unknown paths are 404 {"detail": "Not found."}; a served path\'s other methods 405', async (t) => {
  const s = await biotimeSetup(t);
  const auth = `Token ${s.app.token}`;
  const unknown = await s.call('GET', '/biotime/att/api/firstLastReport/', auth);
  t.equal(unknown.status, 404);
  t.same(unknown.body, { detail: 'Not found.' });
  const method = await s.call('DELETE', '/biotime/iclock/api/transactions/', auth);
  t.equal(method.status, 405);
  t.same(method.body, { detail: 'Method "DELETE" not allowed.' });
  t.equal(method.headers.get('allow'), 'GET');
  t.equal((await s.call('POST', '/biotime/personnel/api/employees/9/', auth)).headers.get('allow'), 'GET, PUT, PATCH, DELETE');
  t.same((await s.call('GET', '/biotime/iclock/api/terminals/abc/', auth)).body, { detail: 'Not found.' });
});

t.test('BIOGATE_BIOTIME_API=off: no /biotime at all', async (t) => {
  const app = await startApp(t, { env: { BIOGATE_BIOTIME_API: 'off' } });
  const { res, body } = await fetchJson(`${app.url}/biotime/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: String(app.locationId), password: app.token }),
  });
  t.equal(res.status, 404);
  t.match(body, { code: 'NOT_FOUND' }, "BioGate's own 404");
  const doc = (await fetchJson(`${app.url}/api/openapi.json`)).body as { paths: Record<string, unknown> };
  t.notOk(
    Object.keys(doc.paths).some((p) => p.startsWith('/biotime/')),
    'nor in the OpenAPI document',
  );
});
