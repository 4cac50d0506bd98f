/**
 * BIOGATE_CORS_ORIGINS over real HTTP: preflights answered for listed origins (204, the origin
 * echoed, methods, headers incl. Authorization/Content-Type/Idempotency-Key, max-age), actual
 * answers (errors included) carry Access-Control-Allow-Origin for listed origins only, and with
 * the setting empty nothing changes (OPTIONS stays 405, no CORS header anywhere).
 */
import t from 'tap';
import { loadConfig } from '../../src/config/load.js';
import { gateway } from './client.js';

const DASH = 'https://dash.example.com';
const LOCAL = 'http://localhost:5173';

const preflight = (url: string, path: string, origin: string, method = 'POST') =>
  fetch(`${url}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': method,
      'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key',
    },
  });

const list = (v: string | null) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

t.test('listed origins: preflight and actual responses', async (t) => {
  const { a, url } = await gateway(t, { config: { corsOrigins: `${DASH}, ${LOCAL}` } });

  for (const origin of [DASH, LOCAL]) {
    const res = await preflight(url, '/api/commands', origin);
    t.equal(res.status, 204, `${origin}: preflight 204`);
    t.equal(res.headers.get('access-control-allow-origin'), origin, 'the origin echoed (never *)');
    t.match(res.headers.get('vary') ?? '', /Origin/);
    t.ok(list(res.headers.get('access-control-allow-methods')).includes('post'), 'POST allowed');
    t.ok(list(res.headers.get('access-control-allow-methods')).includes('get'), 'GET allowed');
    for (const h of ['authorization', 'content-type', 'idempotency-key'])
      t.ok(list(res.headers.get('access-control-allow-headers')).includes(h), `${h} allowed`);
    t.equal(res.headers.get('access-control-max-age'), '600');
    t.equal(res.headers.get('access-control-allow-credentials'), null, 'no credentials mode (bearer tokens, not cookies)');
    t.equal((await res.text()).length, 0, 'no body');
  }
  const withParam = await preflight(url, '/api/users/1001', DASH, 'DELETE');
  t.equal(withParam.status, 204, 'a path with a parameter');
  for (const m of ['get', 'head', 'delete', 'options'])
    t.ok(list(withParam.headers.get('access-control-allow-methods')).includes(m), `/api/users/{pin}: ${m}`);
  t.notOk(list(withParam.headers.get('access-control-allow-methods')).includes('post'), 'only what the path serves');

  const me = await fetch(`${url}/api/me`, { headers: { Origin: DASH, Authorization: `Bearer ${a.token}` } });
  t.equal(me.status, 200);
  t.equal(me.headers.get('access-control-allow-origin'), DASH, 'actual response: allow-origin');
  t.match(me.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/);

  const denied = await fetch(`${url}/api/me`, { headers: { Origin: DASH } });
  t.equal(denied.status, 401);
  t.equal(denied.headers.get('access-control-allow-origin'), DASH, 'errors carry it too (the page can read the 401)');
  const invalid = await fetch(`${url}/api/users?limit=0`, { headers: { Origin: DASH, Authorization: `Bearer ${a.token}` } });
  t.equal(invalid.status, 422);
  t.equal(invalid.headers.get('access-control-allow-origin'), DASH, 'a 422 too');

  const post = await fetch(`${url}/api/users`, {
    method: 'POST',
    headers: { Origin: LOCAL, Authorization: `Bearer ${a.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ pin: 77, first_name: 'Cors' }),
  });
  t.equal(post.status, 201);
  t.equal(post.headers.get('access-control-allow-origin'), LOCAL);
});

t.test('unlisted origins and no Origin: no CORS headers', async (t) => {
  const { a, url } = await gateway(t, { config: { corsOrigins: DASH } });
  for (const origin of ['https://evil.example.com', 'https://dash.example.com.evil.example', 'http://dash.example.com', 'null']) {
    const pre = await preflight(url, '/api/commands', origin);
    t.equal(pre.status, 204, `${origin}: preflight answered (Allow) …`);
    t.equal(pre.headers.get('access-control-allow-origin'), null, '… without allow-origin');
    t.equal(pre.headers.get('access-control-allow-methods'), null);
    const res = await fetch(`${url}/api/me`, { headers: { Origin: origin, Authorization: `Bearer ${a.token}` } });
    t.equal(res.status, 200);
    t.equal(res.headers.get('access-control-allow-origin'), null, `${origin}: actual response has no allow-origin`);
  }
  const plain = await fetch(`${url}/api/me`, { headers: { Authorization: `Bearer ${a.token}` } });
  t.equal(plain.headers.get('access-control-allow-origin'), null, 'same-origin / non-browser calls: nothing added');
  const upper = await fetch(`${url}/api/me`, { headers: { Origin: 'HTTPS://DASH.EXAMPLE.COM', Authorization: `Bearer ${a.token}` } });
  t.equal(
    upper.headers.get('access-control-allow-origin'),
    'HTTPS://DASH.EXAMPLE.COM',
    'origins compare as URLs (scheme and host case-insensitive)',
  );
});

t.test('default (no origins): OPTIONS is 405 and nothing is added', async (t) => {
  const { a, url } = await gateway(t);
  const pre = await preflight(url, '/api/commands', DASH);
  t.equal(pre.status, 405);
  t.equal(pre.headers.get('access-control-allow-origin'), null);
  const res = await fetch(`${url}/api/me`, { headers: { Origin: DASH, Authorization: `Bearer ${a.token}` } });
  t.equal(res.headers.get('access-control-allow-origin'), null);
});

t.test('BIOGATE_CORS_ORIGINS is validated', async (t) => {
  t.equal(loadConfig({ env: { BIOGATE_CORS_ORIGINS: `${DASH},${LOCAL}` } }).corsOrigins, `${DASH},${LOCAL}`);
  for (const bad of ['*', 'dash.example.com', 'ftp://x.example.com', 'https://dash.example.com/path']) {
    t.throws(() => loadConfig({ env: { BIOGATE_CORS_ORIGINS: bad } }), /BIOGATE_CORS_ORIGINS/, `"${bad}" is refused`);
  }
});
