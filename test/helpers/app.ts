/**
 * Test helpers: the real app on port 0 with a temporary store, a fake clock, and a capture
 * stream for logs. Nothing of ours is mocked (STYLE.md §10).
 *
 *   const { url, token } = await startApp(t);
 *   const res = await fetch(`${url}/api/me`, { headers: auth(token) });
 *
 * The store is a fresh SQLite file, or, with BIOGATE_TEST_API_STORE=mongodb, a fresh database on
 * the server of BIOGATE_TEST_MONGO_URL (the MongoDB leg of `npm test`, test/mongo-api-leg.mjs).
 * `TEST_STORE` says which, for the few cases that only make sense on one of them.
 *
 * Everything started here is closed by `t.teardown`; `close()` may also be
 * called earlier (it is idempotent).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { buildApp, type App } from '../../src/app.js';
import type { RuntimeConfig } from '../../src/devices/runtime-config.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/load.js';
import type { Config, SettingKey } from '../../src/config/schema.js';
import { createLogger, type Logger } from '../../src/log.js';
import { databaseName } from '../../src/store/mongo/connect.js';

/** The part of a tap Test these helpers need. */
export interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface FakeClock extends Clock {
  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void;
  /** Jumps to an absolute time. */
  set(time: Date | string): void;
}

export const DAY_MS = 86_400_000;

/** A clock that stands still until told to move. */
export function fakeClock(start: Date | string = '2026-03-01T08:00:00.000Z'): FakeClock {
  let ms = new Date(start).getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`fakeClock: invalid start ${String(start)}`);
  return {
    now: () => new Date(ms),
    advance(by) {
      ms += by;
    },
    set(time) {
      ms = new Date(time).getTime();
    },
  };
}

/** A fresh directory under the OS temp dir, removed when the test ends. */
export async function tempDir(t: Teardown, prefix = 'biogate-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Collects log lines (a pino destination); `entries()` parses them. */
export interface LogCapture {
  write(line: string): void;
  text(): string;
  entries(): Record<string, unknown>[];
}

export function logCapture(): LogCapture {
  const chunks: string[] = [];
  return {
    write: (line) => void chunks.push(line),
    text: () => chunks.join(''),
    entries: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/**
 * Which store startApp gives an app: `sqlite` unless BIOGATE_TEST_API_STORE=mongodb (which then
 * needs BIOGATE_TEST_MONGO_URL). A case that only holds for one adapter skips on the other with
 * the reason: `{ skip: TEST_STORE === 'mongodb' && 'SQLite-only: …' }`.
 */
export const TEST_STORE = testStoreKind(process.env);

function testStoreKind(env: NodeJS.ProcessEnv): 'sqlite' | 'mongodb' {
  const kind = env['BIOGATE_TEST_API_STORE'] ?? 'sqlite';
  if (kind === 'sqlite') return 'sqlite';
  if (kind !== 'mongodb') throw new Error(`BIOGATE_TEST_API_STORE: expected "sqlite" or "mongodb", got "${kind}"`);
  if (!env['BIOGATE_TEST_MONGO_URL'])
    throw new Error('BIOGATE_TEST_API_STORE=mongodb needs BIOGATE_TEST_MONGO_URL (a MongoDB-compatible server)');
  return 'mongodb';
}

/**
 * The HTTP engine under test: BIOGATE_HTTP_ENGINE of this process (`node` in the node engine leg of
 * `npm test`, test/node-engine-leg.mjs), else `auto`. startApp passes it on unless a test sets its
 * own; tests that build the HTTP layer alone hand it to createHttpServer.
 */
export const TEST_HTTP_ENGINE = testHttpEngine(process.env);

function testHttpEngine(env: NodeJS.ProcessEnv): 'auto' | 'uws' | 'node' {
  const engine = env['BIOGATE_HTTP_ENGINE'] ?? 'auto';
  if (engine === 'auto' || engine === 'uws' || engine === 'node') return engine;
  throw new Error(`BIOGATE_HTTP_ENGINE: expected "auto", "uws" or "node", got "${engine}"`);
}

export interface StartOptions {
  /** Config values by setting name (`bodyLimitMb`, `adminToken`, …); they win over `env`. */
  readonly config?: Partial<Record<SettingKey, unknown>>;
  /** BIOGATE_* variables as the process would see them (default: none). */
  readonly env?: NodeJS.ProcessEnv;
  readonly clock?: Clock;
  /** Send logs here, at `config.logLevel` (default `info`), instead of dropping them. */
  readonly logs?: LogCapture;
  /**
   * Start on the store of an earlier app (its `storeUrl`) instead of a fresh one, e.g. to restart:
   * `await first.close(); const second = await startApp(t, { storeUrl: first.storeUrl })`.
   * Works in both store modes. The app that created the store cleans it up, after closing
   * every app started on it.
   */
  readonly storeUrl?: string;
  /** Use this SQLite file (in either mode) instead of a fresh store; the caller owns its directory. */
  readonly storePath?: string;
  /** Device runtime settings beyond the config (buildApp's `runtime`). */
  readonly runtime?: Partial<RuntimeConfig>;
  /** The API body timeout in ms (buildApp's `apiBodyTimeoutMs`; default 10 s). */
  readonly apiBodyTimeoutMs?: number;
}

export interface StartedApp {
  /** `http://127.0.0.1:<port>` (https with TLS). */
  readonly url: string;
  readonly port: number;
  readonly app: App;
  readonly config: Config;
  /** Token of the bootstrap location "Default"; '' when bootstrap did not run. */
  readonly token: string;
  /** Id of the bootstrap location; 0 when bootstrap did not run. */
  readonly locationId: number;
  /**
   * `sqlite:<path>` or `mongodb://…/<database>`: hand it to the CLI as BIOGATE_STORE to share
   * the store, or to startApp as `storeUrl` to start another app on it.
   */
  readonly storeUrl: string;
  /** The SQLite file; undefined on MongoDB. */
  readonly storePath: string | undefined;
  /** What the app printed through `announce` (the bootstrap banner), joined. */
  readonly announced: string;
  /** Closes the app (idempotent; also run at teardown). */
  close(): Promise<void>;
}

/** Closers of every app running on a store startApp created, by store URL. */
const appsOnStore = new Map<string, Set<() => Promise<void>>>();

/** MongoDB databases created so far by this process (they get distinct names). */
let mongoDatabases = 0;

/** A fresh store and how to remove it; named like test/contract/mongo.test.ts names its databases. */
async function freshStore(): Promise<{ url: string; path: string | undefined; remove: () => Promise<void> }> {
  if (TEST_STORE === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'biogate-test-'));
    const path = join(dir, 'biogate.db');
    return { url: `sqlite:${path}`, path, remove: () => rm(dir, { recursive: true, force: true }) };
  }
  const server = process.env['BIOGATE_TEST_MONGO_URL'] as string; // checked by testStoreKind
  const name = `${databaseName(server)}_api_${process.pid}_${++mongoDatabases}`;
  const url = server.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]*)(\/[^?]*)?/, `$1/${name}`);
  const remove = async () => {
    const { MongoClient } = await import('mongodb');
    const client = new MongoClient(server);
    try {
      await client.db(name).dropDatabase();
    } finally {
      await client.close();
    }
  };
  return { url, path: undefined, remove };
}

/** Builds and starts the real app on 127.0.0.1:0 with a temporary store (see the file comment). */
export async function startApp(t: Teardown, options: StartOptions = {}): Promise<StartedApp> {
  if (options.storeUrl !== undefined && options.storePath !== undefined) throw new Error('startApp: pass storeUrl or storePath, not both');
  let closed: Promise<void> | undefined;
  let app: App | undefined = undefined; // set once built; close() may run before that
  // The app closes every connection, and fetch clients in this process must see that before a
  // test's next request, or that request goes out on a dead keep-alive socket ("other side
  // closed"), as it would for any HTTP client of a restarting server. One timer turn runs the
  // poll phase that delivers those closes.
  const close = () => (closed ??= (app ? app.close() : Promise.resolve()).then(() => new Promise<void>((r) => setTimeout(r, 10))));

  let storeUrl: string;
  let storePath: string | undefined;
  if (options.storePath !== undefined) {
    storePath = options.storePath;
    storeUrl = `sqlite:${storePath}`;
    t.teardown(close);
  } else if (options.storeUrl !== undefined) {
    storeUrl = options.storeUrl;
    storePath = storeUrl.startsWith('sqlite:') ? storeUrl.slice('sqlite:'.length) : undefined;
    appsOnStore.get(storeUrl)?.add(close);
    t.teardown(close);
  } else {
    const fresh = await freshStore();
    storeUrl = fresh.url;
    storePath = fresh.path;
    const apps = new Set([close]);
    appsOnStore.set(storeUrl, apps);
    // One teardown, in order: every app on the store (and its connection) first, then the store.
    t.teardown(async () => {
      await Promise.all([...apps].map((c) => c()));
      appsOnStore.delete(storeUrl);
      await fresh.remove();
    });
  }

  const config = loadConfig({
    env: { BIOGATE_HTTP_ENGINE: TEST_HTTP_ENGINE, ...options.env },
    overrides: { port: 0, host: '127.0.0.1', store: storeUrl, shutdownGraceS: 2, ...options.config },
  });
  const logger: Logger = createLogger(options.logs ? { level: config.logLevel, destination: options.logs } : { level: 'silent' });
  const announced: string[] = [];
  app = await buildApp({
    config,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.runtime ? { runtime: options.runtime } : {}),
    ...(options.apiBodyTimeoutMs !== undefined ? { apiBodyTimeoutMs: options.apiBodyTimeoutMs } : {}),
    announce: (text) => void announced.push(text),
  });
  const { port, bootstrap } = await app.start();
  // The start-up recovery drain of the sync outbox runs in the background (sync/outbox.ts start);
  // a test's first writes must not meet it (it may queue a user's op a second time, after a device
  // the test assigns in between, and exact command counts would then vary with the machine's load).
  await app.outbox.idle();
  const scheme = config.tlsCert ? 'https' : 'http';
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    app,
    config,
    token: bootstrap?.token.token ?? '',
    locationId: bootstrap?.location.id ?? 0,
    storeUrl,
    storePath,
    announced: announced.join('\n'),
    close,
  };
}

/** `{ Authorization: 'Bearer <token>' }` */
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** An admin token that satisfies the 24-character minimum. */
export const ADMIN_TOKEN = 'admin-secret-for-tests-0123456789';

/** fetch + JSON body, bounded in time (5 s). */
export async function fetchJson(url: string, init: RequestInit = {}): Promise<{ res: Response; body: unknown }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000), ...init });
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('application/json')) body = JSON.parse(text);
  return { res, body };
}

/** A JSON request body with its content type. */
export const jsonBody = (method: string, value: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});

/** One call of `app`'s REST API with its location token → the status code. */
export async function apiStatus(app: StartedApp, method: string, path: string, body?: unknown): Promise<number> {
  const init = body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token));
  return (await fetchJson(`${app.url}${path}`, init)).res.status;
}

/** Rejects with a clear message when `p` takes longer than `ms`. */
export async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A TCP port that was free a moment ago on 127.0.0.1 (for processes that need a fixed port). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls an asynchronous `condition` (an API read) every 20 ms; rejects after `ms`. */
export async function waitForAsync(condition: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Polls `condition` every 5 ms; rejects after `ms` (nothing here sleeps longer than needed). */
export async function waitFor(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
