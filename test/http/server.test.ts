/**
 * The HTTP layer as an integrator sees it [API-CONTRACT §1, §3]: 404/405/413/400/422
 * bodies, request ids, Date, HEAD. Real server on port 0, plain fetch.
 */
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import { createHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/log.js';
import {
  ADMIN_TOKEN,
  bearer,
  fetchJson,
  jsonBody,
  logCapture,
  startApp,
  TEST_HTTP_ENGINE,
  waitFor,
  within,
  type LogCapture,
} from '../helpers/app.js';

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
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  t.equal(chunked.res.status, 413, 'chunked body over the limit');
  t.strictSame(chunked.body, expected);

  const name = 'y'.repeat(200); // the longest name, still far under 1048 bytes
  const small = await fetchJson(`${url}/admin/locations`, jsonBody('POST', { name, timezone: 'Europe/Berlin' }, admin));
  t.equal(small.res.status, 201, 'a body under the limit still works on the same server');

  const list = await fetchJson(`${url}/admin/locations`, { headers: admin });
  t.strictSame(
    (list.body as { name: string }[]).map((l) => l.name),
    ['Default', name],
  );
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
  const bad = await fetchJson(`${url}/admin/locations`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: '{"name": "x",',
  });
  t.equal(bad.res.status, 400);
  t.strictSame(bad.body, { detail: 'Body is not valid JSON', code: 'BAD_REQUEST' });

  // [API-CONTRACT §3] JSON of the wrong top-level type is a 400 too.
  for (const raw of ['[]', 'null', '"name"', '42']) {
    const wrong = await fetchJson(`${url}/admin/locations`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: raw,
    });
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
  t.strictSame(zone.body, {
    detail: [{ loc: ['body', 'timezone'], msg: 'unknown IANA time zone "Mars/Olympus_Mons"', type: 'enum' }],
    code: 'VALIDATION_FAILED',
  });
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

/** The HTTP layer alone (as test/http/shutdown.test.ts does), with routes that record onSettled. */
async function settledServer(t: Test, logs?: LogCapture) {
  const http = createHttpServer({
    engine: TEST_HTTP_ENGINE,
    logger: logs ? createLogger({ level: 'info', destination: logs }) : createLogger({ level: 'silent' }),
    bodyLimit: 1024,
  });
  const calls: Record<string, boolean[]> = {};
  const hook = (name: string) => (delivered: boolean) => void (calls[name] ??= []).push(delivered);
  http.route({ method: 'GET', pattern: '/small', handler: () => ({ status: 200, body: { ok: true }, onSettled: hook('small') }) });
  http.route({
    method: 'GET',
    pattern: '/held',
    // A long poll: answers only once the client is gone.
    handler: (req) =>
      new Promise((resolve) => req.signal.addEventListener('abort', () => resolve({ status: 200, body: 'late', onSettled: hook('held') }))),
  });
  http.route({
    method: 'GET',
    pattern: '/big',
    handler: () => ({ status: 200, body: new Uint8Array(24 * 1024 * 1024).fill(0x61), onSettled: hook('big') }),
  });
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  http.route({ method: 'GET', pattern: '/cyclic', handler: () => ({ status: 200, body: cyclic, onSettled: hook('cyclic') }) });
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  http.route({ method: 'GET', pattern: '/deep', handler: () => ({ status: 200, body: { deep } }) });
  http.route({
    method: 'GET',
    pattern: '/throws',
    handler: () => {
      throw new TypeError('boom');
    },
  });
  http.route({
    method: 'GET',
    pattern: '/bad-hook',
    handler: () => ({
      status: 200,
      body: 'x',
      onSettled: () => {
        throw new Error('hook');
      },
    }),
  });
  const port = await http.listen('127.0.0.1', 0);
  let closed = false;
  t.teardown(() => (closed ? undefined : http.close(0)));
  return { http, port, url: `http://127.0.0.1:${port}`, calls, close: () => ((closed = true), http.close(0)) };
}

t.test('onSettled: true once a response was handed to the socket', async (t) => {
  const s = await settledServer(t);
  t.equal((await fetch(`${s.url}/small`)).status, 200);
  await waitFor(() => s.calls['small']?.length === 1, 2000, 'onSettled');
  const head = await fetch(`${s.url}/small`, { method: 'HEAD' });
  t.equal(head.status, 200);
  await waitFor(() => s.calls['small']?.length === 2, 2000, 'onSettled on HEAD');
  await new Promise((r) => setTimeout(r, 50));
  t.strictSame(s.calls['small'], [true, true], 'exactly once per response, delivered');
});

t.test('onSettled: false when the client left before the answer was ready', async (t) => {
  const s = await settledServer(t);
  const gone = new AbortController();
  const pending = fetch(`${s.url}/held`, { signal: gone.signal }).catch((err: Error) => err.name);
  await waitFor(() => s.http.inFlight === 1, 2000, 'the held request');
  gone.abort();
  t.equal(await pending, 'AbortError');
  await waitFor(() => s.calls['held']?.length === 1, 2000, 'onSettled');
  await new Promise((r) => setTimeout(r, 50));
  t.strictSame(s.calls['held'], [false]);
  t.equal(s.http.inFlight, 0);
});

t.test('onSettled: false when the client left while the response was written', async (t) => {
  const s = await settledServer(t);
  await new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: s.port, path: '/big', agent: false }, (res) => {
      res.pause(); // backpressure: most of the 24 MiB is still queued on the server
      setTimeout(() => {
        res.destroy();
        resolve();
      }, 100);
    });
    req.on('error', reject);
    req.end();
  });
  await waitFor(() => s.calls['big']?.length === 1, 3000, 'onSettled');
  t.strictSame(s.calls['big'], [false]);
});

t.test('onSettled: false for a response cut off by close()', async (t) => {
  const s = await settledServer(t);
  const paused = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: s.port, path: '/big', agent: false }, (res) => {
      res.pause(); // the response cannot drain before close()
      res.on('error', () => undefined);
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
  t.teardown(() => paused.destroy());
  await new Promise((r) => setTimeout(r, 100));
  await within(5000, 'close()', s.close());
  await waitFor(() => s.calls['big']?.length === 1, 3000, 'onSettled');
  t.strictSame(s.calls['big'], [false]);
  t.equal(s.http.inFlight, 0);
});

t.test('a handler or serialisation that throws: 500 INTERNAL with an error id, the process lives on', async (t) => {
  const logs = logCapture();
  const s = await settledServer(t, logs);
  for (const path of ['/throws', '/cyclic', '/deep']) {
    const { res, body } = await fetchJson(`${s.url}${path}`);
    t.equal(res.status, 500, `${path}: 500`);
    const b = body as { detail: string; code: string; error_id: string };
    t.strictSame(Object.keys(b).sort(), ['code', 'detail', 'error_id'], `${path}: generic body`);
    t.equal(b.code, 'INTERNAL');
    t.equal(b.detail, 'Internal server error');
    const line = logs.entries().find((e) => e['error_id'] === b.error_id);
    t.ok(line, `${path}: the log line carries the error id`);
    t.equal(line?.['level'], 'error');
  }
  await waitFor(() => s.calls['cyclic']?.length === 1, 2000, 'onSettled of the failed render');
  t.strictSame(s.calls['cyclic'], [true], 'the 500 that replaced it was delivered');
  const hook = await fetch(`${s.url}/bad-hook`);
  t.equal(await hook.text(), 'x', 'a throwing onSettled hook does not break the response');
  t.equal((await fetch(`${s.url}/small`)).status, 200, 'later requests are served');
});

t.test('a body still incomplete after the body timeout: connection closed, handler never called', async (t) => {
  const http = createHttpServer({
    engine: TEST_HTTP_ENGINE,
    logger: createLogger({ level: 'silent' }),
    bodyLimit: 1024,
    bodyTimeoutMs: 1500,
  });
  let handled = 0;
  http.route({ method: 'POST', pattern: '/upload', handler: () => (handled++, { status: 200, body: 'OK' }) });
  const port = await http.listen('127.0.0.1', 0);
  t.teardown(() => http.close(0));
  const outcome = await within(
    10_000,
    'the trickling request to end',
    new Promise<{ response: string; ms: number }>((resolve) => {
      const started = Date.now();
      let response = '';
      let timer: NodeJS.Timeout | undefined;
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n');
        timer = setInterval(() => socket.write('x'), 200); // 5 bytes a second: alive, never finished
      });
      socket.on('data', (d: Buffer) => (response += d.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ response, ms: Date.now() - started });
      });
    }),
  );
  t.equal(outcome.response, '', 'no answer');
  t.ok(outcome.ms >= 1400 && outcome.ms < 6000, `closed at the 1.5 s body timeout (${outcome.ms} ms)`);
  t.equal(handled, 0, 'the handler never saw a partial body');
  t.equal(http.inFlight, 0);
});

t.test('a request that logs nothing makes no child logger; one that logs gets it once, with its id (issue #20)', async (t) => {
  const logs = logCapture();
  const logger = createLogger({ level: 'info', destination: logs });
  let made = 0;
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<typeof logger.child>) => {
    made++;
    return child(...args);
  }) as typeof logger.child;
  const http = createHttpServer({ engine: TEST_HTTP_ENGINE, logger, bodyLimit: 1024 });
  // Answered in the handler's own turn (no promise), as an idle poll is.
  http.route({ method: 'GET', pattern: '/quiet', handler: () => ({ status: 200, body: 'OK' }) });
  http.route({
    method: 'GET',
    pattern: '/chatty',
    handler: (req) => {
      req.log.info({ token: 'SECRETTOKEN' }, 'hello');
      req.log.warn('again');
      return { status: 200, body: 'OK' };
    },
  });
  const port = await http.listen('127.0.0.1', 0);
  t.teardown(() => http.close(0));
  for (let i = 0; i < 3; i++) t.equal(await (await fetch(`http://127.0.0.1:${port}/quiet`)).text(), 'OK');
  t.equal(made, 0, 'no child logger for requests that log nothing');
  const res = await fetch(`http://127.0.0.1:${port}/chatty`, { headers: { 'x-request-id': 'r-1' } });
  t.equal(await res.text(), 'OK');
  t.equal(made, 1, 'one child, made on first use');
  t.same(
    logs
      .entries()
      .filter((l) => l['reqId'] !== undefined)
      .map((l) => [l['msg'], l['reqId']]),
    [
      ['hello', 'r-1'],
      ['again', 'r-1'],
    ],
    'its id on every line',
  );
  t.notMatch(logs.text(), /SECRETTOKEN/, 'redaction still applies');
});
