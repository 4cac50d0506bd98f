/**
 * The HTTP layer as an integrator sees it [API-CONTRACT §1, §3]: 404/405/413/400/422
 * bodies, request ids, Date, HEAD. Real server on port 0, plain fetch.
 */
import t from 'tap';
import { ADMIN_TOKEN, bearer, fetchJson, jsonBody, startApp } from '../helpers/app.js';

const admin = bearer(ADMIN_TOKEN);
const GENERATED_ID = /^[a-z0-9]{1,6}-[0-9a-z]+$/;

t.test('unknown path: 404 NOT_FOUND', async (t) => {
  const { url } = await startApp(t);
  const { res, body } = await fetchJson(`${url}/nope/deeper`);
  t.equal(res.status, 404);
  t.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.strictSame(body, { detail: 'No route for /nope/deeper', code: 'NOT_FOUND' });
});

t.test('known path, wrong method: 405 with Allow', async (t) => {
  const { url } = await startApp(t, { config: { adminToken: ADMIN_TOKEN } });
  const me = await fetchJson(`${url}/api/me`, { method: 'POST' });
  t.equal(me.res.status, 405);
  t.equal(me.res.headers.get('allow'), 'GET');
  t.strictSame(me.body, { detail: 'Method POST is not allowed on /api/me', code: 'METHOD_NOT_ALLOWED' });

  const del = await fetchJson(`${url}/admin/locations`, { method: 'DELETE', headers: admin });
  t.equal(del.res.status, 405);
  t.equal(del.res.headers.get('allow'), 'GET, POST', 'every method of the path is listed');
  t.equal((del.body as { code: string }).code, 'METHOD_NOT_ALLOWED');

  const options = await fetchJson(`${url}/healthz`, { method: 'OPTIONS' });
  t.equal(options.res.status, 405);
  t.equal(options.res.headers.get('allow'), 'GET');
});

t.test('body over BIOGATE_BODY_LIMIT_MB: 413 PAYLOAD_TOO_LARGE, nothing created', async (t) => {
  // 0.001 MiB = 1048 bytes
  const { url } = await startApp(t, { config: { adminToken: ADMIN_TOKEN, bodyLimitMb: 0.001 } });
  const expected = { detail: 'Request body exceeds 1048 bytes', code: 'PAYLOAD_TOO_LARGE' };
  const big = JSON.stringify({ name: 'x'.repeat(2000) });

  const declared = await fetchJson(`${url}/admin/locations`, jsonBody('POST', JSON.parse(big), admin));
  t.equal(declared.res.status, 413, 'Content-Length over the limit');
  t.strictSame(declared.body, expected);

  // No Content-Length (chunked): the limit is enforced while reading.
  const bytes = new TextEncoder().encode(big);
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += 500) c.enqueue(bytes.subarray(i, i + 500));
      c.close();
    },
  });
  const chunked = await fetchJson(`${url}/admin/locations`, {
    method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: stream, duplex: 'half',
  } as RequestInit);
  t.equal(chunked.res.status, 413, 'chunked body over the limit');
  t.strictSame(chunked.body, expected);

  const name = 'y'.repeat(200); // the longest name, still far under 1048 bytes
  const small = await fetchJson(`${url}/admin/locations`, jsonBody('POST', { name, timezone: 'Europe/Berlin' }, admin));
  t.equal(small.res.status, 201, 'a body under the limit still works on the same server');

  const list = await fetchJson(`${url}/admin/locations`, { headers: admin });
  t.strictSame((list.body as { name: string }[]).map((l) => l.name), ['Default', name]);
});

t.test('X-Request-Id: echoed when sane, generated otherwise', async (t) => {
  const { url } = await startApp(t);
  const given = await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'trace-42.a:b_C' } });
  t.equal(given.headers.get('x-request-id'), 'trace-42.a:b_C');

  const a = (await fetch(`${url}/healthz`)).headers.get('x-request-id') ?? '';
  const b = (await fetch(`${url}/healthz`)).headers.get('x-request-id') ?? '';
  t.match(a, GENERATED_ID);
  t.match(b, GENERATED_ID);
  t.not(a, b, 'each request gets its own id');

  const spaces = (await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'has spaces in it' } })).headers.get('x-request-id') ?? '';
  t.match(spaces, GENERATED_ID, 'an id with unsafe characters is replaced');
  const long = (await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'a'.repeat(65) } })).headers.get('x-request-id') ?? '';
  t.match(long, GENERATED_ID, 'an id over 64 characters is replaced');

  const err = await fetch(`${url}/nope`, { headers: { 'x-request-id': 'on-errors-too' } });
  t.equal(err.headers.get('x-request-id'), 'on-errors-too', 'error responses carry it as well');
});

t.test('Date header on every response', async (t) => {
  const { url } = await startApp(t);
  for (const path of ['/healthz', '/nope']) {
    const res = await fetch(`${url}${path}`);
    const date = res.headers.get('date') ?? '';
    t.match(date, /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/, `${path}: IMF-fixdate`);
    t.ok(Math.abs(Date.parse(date) - Date.now()) < 5000, `${path}: current time`);
  }
});

t.test('HEAD on a GET route: same status and headers, no body', async (t) => {
  const { url, token } = await startApp(t);
  const get = await fetch(`${url}/api/me`, { headers: bearer(token) });
  const getBody = await get.text();
  const head = await fetch(`${url}/api/me`, { method: 'HEAD', headers: bearer(token) });
  t.equal(head.status, 200);
  t.equal(await head.text(), '');
  t.equal(head.headers.get('content-type'), 'application/json; charset=utf-8');
  t.equal(head.headers.get('content-length'), String(Buffer.byteLength(getBody)), 'Content-Length of the GET body');
  t.match(head.headers.get('x-request-id') ?? '', GENERATED_ID);

  const unauth = await fetch(`${url}/api/me`, { method: 'HEAD' });
  t.equal(unauth.status, 401, 'HEAD is authenticated like GET');
  t.match(unauth.headers.get('www-authenticate') ?? '', /^Bearer/);
});

t.test('malformed JSON: 400 BAD_REQUEST', async (t) => {
  const { url } = await startApp(t, { config: { adminToken: ADMIN_TOKEN } });
  const bad = await fetchJson(`${url}/admin/locations`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: '{"name": "x",' });
  t.equal(bad.res.status, 400);
  t.strictSame(bad.body, { detail: 'Body is not valid JSON', code: 'BAD_REQUEST' });

  // [API-CONTRACT §3] JSON of the wrong top-level type is a 400 too.
  for (const raw of ['[]', 'null', '"name"', '42']) {
    const wrong = await fetchJson(`${url}/admin/locations`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: raw });
    t.equal(wrong.res.status, 400, `${raw}: 400`);
    t.strictSame(wrong.body, { detail: 'Body must be a JSON object', code: 'BAD_REQUEST' }, `${raw}: body`);
  }

  const empty = await fetchJson(`${url}/admin/locations`, { method: 'POST', headers: admin });
  t.equal(empty.res.status, 400);
  t.strictSame(empty.body, { detail: 'A JSON body is required', code: 'BAD_REQUEST' });
});

t.test('422: every problem listed at once, each with loc/msg/type', async (t) => {
  const { url } = await startApp(t, { config: { adminToken: ADMIN_TOKEN } });
  const { res, body } = await fetchJson(`${url}/admin/locations`, jsonBody('POST', { name: '', timezone: 5, color: 'red' }, admin));
  t.equal(res.status, 422);
  const b = body as { code: string; detail: { loc: (string | number)[]; msg: string; type: string }[] };
  t.equal(b.code, 'VALIDATION_FAILED');
  t.strictSame(Object.keys(b).sort(), ['code', 'detail']);
  const byLoc = [...b.detail].sort((x, y) => JSON.stringify(x.loc).localeCompare(JSON.stringify(y.loc)));
  t.strictSame(byLoc, [
    { loc: ['body', 'color'], msg: 'unknown field', type: 'extra_forbidden' },
    { loc: ['body', 'name'], msg: 'must not be empty', type: 'length' },
    { loc: ['body', 'timezone'], msg: 'must be a string', type: 'type_error' },
  ]);

  const missing = await fetchJson(`${url}/admin/locations`, jsonBody('POST', {}, admin));
  t.equal(missing.res.status, 422);
  t.strictSame(missing.body, { detail: [{ loc: ['body', 'name'], msg: 'field required', type: 'missing' }], code: 'VALIDATION_FAILED' });

  const path = await fetchJson(`${url}/admin/locations/abc/tokens`, { headers: admin });
  t.equal(path.res.status, 422);
  t.strictSame(path.body, { detail: [{ loc: ['path', 'id'], msg: 'must be an integer', type: 'type_error' }], code: 'VALIDATION_FAILED' });

  const zone = await fetchJson(`${url}/admin/locations`, jsonBody('POST', { name: 'Mars', timezone: 'Mars/Olympus_Mons' }, admin));
  t.equal(zone.res.status, 422);
  t.strictSame(zone.body, { detail: [{ loc: ['body', 'timezone'], msg: 'unknown IANA time zone "Mars/Olympus_Mons"', type: 'enum' }], code: 'VALIDATION_FAILED' });
});

t.test('multi-byte JSON responses: Content-Length in bytes, body intact', async (t) => {
  const { url, app } = await startApp(t, { config: { adminToken: ADMIN_TOKEN } });
  const name = 'Ünïcødé-' + 'n'.repeat(190);
  for (let i = 0; i < 300; i++) await app.locations.create({ name });
  const res = await fetch(`${url}/admin/locations`, { headers: admin });
  const text = await res.text();
  t.equal(res.headers.get('content-length'), String(Buffer.byteLength(text)));
  const list = JSON.parse(text) as { name: string }[];
  t.equal(list.length, 301);
  t.equal(list.at(-1)?.name, name);
});
