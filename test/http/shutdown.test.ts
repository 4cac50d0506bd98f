/**
 * Graceful shutdown (README "Operations"): close() stops accepting at once, lets
 * in-flight requests finish (up to the grace period), then closes every connection.
 * Requests are driven with node:http so a body can be held half-sent. The last tests run the
 * real process (src/main.ts, from the sources) and signal it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Agent, request, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { createHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/log.js';
import { ADMIN_TOKEN, freePort, startApp, tempDir, TEST_HTTP_ENGINE, waitFor, waitForAsync, within } from '../helpers/app.js';

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Starts a request and hands back the ClientRequest to write the body by hand. */
function rawRequest(
  port: number,
  options: { method: string; path: string; headers?: Record<string, string | number>; agent?: Agent },
): { req: ClientRequest; response: Promise<RawResponse> } {
  let req!: ClientRequest;
  const response = new Promise<RawResponse>((resolve, reject) => {
    req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method,
        path: options.path,
        headers: options.headers ?? {},
        agent: options.agent ?? false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
  return { req, response };
}

/** A complete GET (no body). */
function get(port: number, path: string, agent: Agent, headers: Record<string, string> = {}): Promise<RawResponse> {
  const { req, response } = rawRequest(port, { method: 'GET', path, agent, headers });
  req.end();
  return response;
}

/** Settles to 'refused' (or another error code) / 'answered', bounded in time. */
async function connectOutcome(url: string): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
    await res.body?.cancel();
    return `answered ${res.status}`;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return cause?.code === 'ECONNREFUSED' ? 'refused' : `failed: ${String(cause?.code ?? err)}`;
  }
}

t.test('an in-flight request finishes after close(); new connections are refused', async (t) => {
  const s = await startApp(t, { config: { adminToken: ADMIN_TOKEN } });
  const body = JSON.stringify({ name: 'Arrived during shutdown' });
  const { req, response } = rawRequest(s.port, {
    method: 'POST',
    path: '/admin/locations',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  req.write(body.slice(0, 10));
  await waitFor(() => s.app.http.inFlight === 1, 3000, 'the server to see the request');

  let closed = false;
  const closing = s.close().then(() => (closed = true));
  t.equal(await connectOutcome(`${s.url}/healthz`), 'refused', 'the listener is closed at once');
  t.equal(closed, false, 'close() waits for the request');

  req.end(body.slice(10));
  const res = await within(5000, 'the in-flight response', response);
  t.equal(res.status, 201, 'the request completes');
  t.match(JSON.parse(res.body), { location: { name: 'Arrived during shutdown' } });
  await within(5000, 'close()', closing);
  t.equal(s.app.http.inFlight, 0);
  t.equal(await connectOutcome(`${s.url}/healthz`), 'refused', 'still refused after close');
  await t.rejects(s.app.store.ping(), 'the store is closed after the listener');
});

t.test('a request on a kept-alive connection during shutdown gets 503 SHUTTING_DOWN', async (t) => {
  const s = await startApp(t, { config: { adminToken: ADMIN_TOKEN } });
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => keepAlive.destroy());
  t.equal((await within(5000, 'first request', get(s.port, '/healthz', keepAlive))).status, 200);

  // Hold the shutdown open with a half-sent body on another connection.
  const slowBody = '{"name":"Slow"}';
  const slow = rawRequest(s.port, {
    method: 'POST',
    path: '/admin/locations',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-length': slowBody.length },
  });
  slow.req.write(slowBody.slice(0, 7));
  await waitFor(() => s.app.http.inFlight === 1, 3000, 'the slow request');
  const closing = s.close();

  const late = await within(5000, 'request during shutdown', get(s.port, '/readyz', keepAlive, { 'x-request-id': 'late-1' }));
  t.equal(late.status, 503);
  t.equal(late.headers['x-request-id'], 'late-1');
  t.strictSame(JSON.parse(late.body), { detail: 'The gateway is shutting down', code: 'SHUTTING_DOWN' });

  slow.req.end(slowBody.slice(7));
  t.equal((await within(5000, 'slow response', slow.response)).status, 201);
  await within(5000, 'close()', closing);
});

t.test('past the grace period close() ends the stragglers', async (t) => {
  const s = await startApp(t, { config: { adminToken: ADMIN_TOKEN, shutdownGraceS: 1 } });
  const stuck = rawRequest(s.port, {
    method: 'POST',
    path: '/admin/locations',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-length': 100 },
  });
  const outcome = stuck.response.then(
    (r) => `answered ${r.status}`,
    (err: NodeJS.ErrnoException) => `failed ${err.code ?? err.message}`,
  );
  stuck.req.write('{"na');
  await waitFor(() => s.app.http.inFlight === 1, 3000, 'the stuck request');

  const started = Date.now();
  await within(4000, 'close() with a stuck request', s.close());
  const took = Date.now() - started;
  t.ok(took >= 950 && took < 3000, `close() waited the 1 s grace period (took ${took} ms)`);
  t.equal(await within(3000, 'the stuck client to notice', outcome), 'failed ECONNRESET', 'the connection is closed under the client');
});

t.test('close() does not cut a large response that is still draining', async (t) => {
  // The server layer alone, with a route whose answer is far larger than the socket buffers.
  const size = 24 * 1024 * 1024;
  const http = createHttpServer({ engine: TEST_HTTP_ENGINE, logger: createLogger({ level: 'silent' }), bodyLimit: 1024 });
  http.route({ method: 'GET', pattern: '/big', handler: () => ({ status: 200, body: new Uint8Array(size).fill(0x61) }) });
  const port = await http.listen('127.0.0.1', 0);
  let closing: Promise<void> | undefined;
  t.teardown(() => closing ?? http.close(0));

  const received = await within(
    20_000,
    'the large response',
    new Promise<{ bytes: number; ok: boolean }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/big', agent: false }, (res) => {
        res.pause(); // let backpressure build up on the server
        let bytes = 0;
        let ok = true;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (ok && !chunk.equals(Buffer.alloc(chunk.length, 0x61))) ok = false;
        });
        res.on('end', () => resolve({ bytes, ok }));
        res.on('error', reject);
        setTimeout(() => {
          closing = http.close(10_000);
          res.resume();
        }, 100);
      });
      req.on('error', reject);
      req.end();
    }),
  );
  t.equal(received.bytes, size, 'every byte arrived');
  t.ok(received.ok, 'bytes intact');
  await within(5000, 'close()', closing ?? Promise.resolve());
  t.equal(http.inFlight, 0);
});

// ------------------------------------------------------------------ the real process (src/main.ts)

const LOADER = new URL('../../node_modules/@tapjs/typescript/dist/esm/import.mjs', import.meta.url).href;

interface Served {
  readonly port: number;
  readonly db: string;
  readonly token: string;
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; at: number }>;
  stdout(): string;
}

/** `biogate serve` from the sources in a child process, on a fresh SQLite file. */
async function serveProcess(t: Test, env: Record<string, string>): Promise<Served> {
  const dir = await tempDir(t);
  const db = join(dir, 'biogate.db');
  const port = await freePort();
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BIOGATE_')));
  const child = spawn(process.execPath, [`--import=${LOADER}`, 'src/cli.ts', 'serve'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: {
      ...clean,
      TS_NODE_TRANSPILE_ONLY: '1',
      BIOGATE_PORT: String(port),
      BIOGATE_HOST: '127.0.0.1',
      BIOGATE_STORE: `sqlite:${db}`,
      BIOGATE_LOG_LEVEL: 'warn',
      BIOGATE_SHUTDOWN_DRAIN_S: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await within(
    60_000,
    'the server to start',
    (async () => {
      while (!/BioGate listening on/.test(out)) {
        if (child.exitCode !== null) throw new Error(`exited early: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    })(),
  );
  const token = /bg_[A-Za-z0-9_-]{32}/.exec(out)?.[0] ?? '';
  return { port, db, token, child, exited, stdout: () => out };
}

async function assign(s: Served, sn: string): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${s.port}/api/devices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sn }),
  });
  if (res.status !== 201) throw new Error(`assigning ${sn}: ${res.status}`);
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

t.test('process: SIGTERM during a long request exits within BIOGATE_SHUTDOWN_GRACE_S (plus the store close)', async (t) => {
  const s = await serveProcess(t, { BIOGATE_SHUTDOWN_GRACE_S: '1', BIOGATE_DEVICE_BODY_LIMIT_MB: '16' });
  await assign(s, 'LONGREQ1');
  // ~4 MiB of punches: storing them takes seconds, far longer than the grace period.
  const lines: string[] = [];
  for (let i = 0; i < 120_000; i++) {
    const sec = i % 86_400;
    lines.push(
      `${1 + (i % 500)}\t2026-02-${pad2(1 + (Math.floor(i / 86_400) % 28))} ${pad2(Math.floor(sec / 3600))}:${pad2(Math.floor(sec / 60) % 60)}:${pad2(sec % 60)}\t0\t1\t0\t0\t0`,
    );
  }
  const body = `${lines.join('\n')}\n`;
  const upload = rawRequest(s.port, {
    method: 'POST',
    path: '/iclock/cdata?SN=LONGREQ1&table=ATTLOG&Stamp=1',
    headers: { 'content-length': Buffer.byteLength(body) },
  });
  const answered = upload.response.then(
    (r) => `answered ${r.status}`,
    (err: NodeJS.ErrnoException) => `failed ${err.code ?? err.message}`,
  );
  await new Promise<void>((resolve) => upload.req.end(body, resolve));
  await new Promise((r) => setTimeout(r, 300)); // the gateway is now decoding and storing
  const signalled = Date.now();
  s.child.kill('SIGTERM');
  const exit = await within(20_000, 'the process to exit', s.exited);
  const took = exit.at - signalled;
  t.equal(exit.code, 0, 'exit code 0');
  t.ok(took < 1000 + 2000 + 1500, `exited ${took} ms after SIGTERM (grace 1 s + at most 2 s to close)`);
  t.comment(`upload: ${await answered}; exit after ${took} ms`);
  t.notOk(existsSync(`${s.db}-wal`), 'the store was closed (SQLite checkpointed and removed its WAL)', { log: s.stdout().slice(-4000) });
});

t.test('process: a second SIGTERM exits promptly, after closing the store', async (t) => {
  const s = await serveProcess(t, { BIOGATE_SHUTDOWN_GRACE_S: '30' });
  await assign(s, 'HOLDER01');
  // A request that holds the shutdown for the whole 30 s grace period: a body that never ends.
  const held = rawRequest(s.port, {
    method: 'POST',
    path: '/iclock/cdata?SN=HOLDER01&table=ATTLOG',
    headers: { 'content-length': 100_000 },
  });
  held.response.catch(() => undefined);
  held.req.write('1\t2026-03-01 08:00:00\t0\t1\n');
  const trickle = setInterval(() => held.req.write('1'), 500);
  t.teardown(() => clearInterval(trickle));
  await new Promise((r) => setTimeout(r, 300));
  s.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  t.equal(s.child.exitCode, null, 'the first signal waits for the request');
  const second = Date.now();
  s.child.kill('SIGTERM');
  const exit = await within(10_000, 'the process to exit', s.exited);
  t.ok(exit.at - second < 4000, `exited ${exit.at - second} ms after the second signal`);
  t.equal(exit.code, 1, 'exit code 1: the shutdown was cut short');
  t.notOk(existsSync(`${s.db}-wal`), 'the store was closed first (SQLite checkpointed and removed its WAL)');
  t.match(s.stdout(), /second signal: closing the store and exiting now/);
});

t.test('process: SIGTERM drains first: /readyz 503 "draining" while the API and terminals are still served, then the exit', async (t) => {
  const s = await serveProcess(t, { BIOGATE_SHUTDOWN_DRAIN_S: '2', BIOGATE_LOG_LEVEL: 'info' });
  const base = `http://127.0.0.1:${s.port}`;
  t.equal((await fetch(`${base}/readyz`)).status, 200, 'ready before the signal');
  const signalled = Date.now();
  s.child.kill('SIGTERM');
  await waitForAsync(async () => (await fetch(`${base}/readyz`)).status === 503, 5000, '/readyz 503');
  const ready = await fetch(`${base}/readyz`);
  t.same([ready.status, await ready.json()], [503, { status: 'draining' }], '/readyz: 503 draining');
  t.equal((await fetch(`${base}/healthz`)).status, 200, '/healthz still 200');
  const me = await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${s.token}` } });
  t.equal(me.status, 200, 'the API is still served during the drain');
  const poll = await fetch(`${base}/iclock/cdata?SN=DRAIN001&options=all&pushver=2.4.1`);
  t.equal(poll.status, 200, 'a terminal is still served during the drain');
  t.equal(s.child.exitCode, null, 'still running within the drain');
  const exit = await within(15_000, 'the process to exit', s.exited);
  t.equal(exit.code, 0, 'exit code 0');
  t.ok(exit.at - signalled >= 2000, `exited ${exit.at - signalled} ms after SIGTERM, after the 2 s drain`);
  t.match(s.stdout(), /draining: \/readyz answers 503 until the shutdown/);
});

t.test('process: a second signal during the drain starts the shutdown at once (exit code 0)', async (t) => {
  const s = await serveProcess(t, { BIOGATE_SHUTDOWN_DRAIN_S: '60' });
  s.child.kill('SIGTERM');
  await waitForAsync(async () => (await fetch(`http://127.0.0.1:${s.port}/readyz`)).status === 503, 5000, '/readyz 503');
  const second = Date.now();
  s.child.kill('SIGINT');
  const exit = await within(10_000, 'the process to exit', s.exited);
  t.equal(exit.code, 0, 'a graceful exit');
  t.ok(exit.at - second < 5000, `exited ${exit.at - second} ms after the second signal, not after the 60 s drain`);
});
