/**
 * Test helpers: the real app on port 0 with a temporary SQLite store, a fake
 * clock, and a capture stream for logs. Nothing of ours is mocked (STYLE.md §10).
 *
 *   const { url, token } = await startApp(t);
 *   const res = await fetch(`${url}/api/me`, { headers: auth(token) });
 *
 * Everything started here is closed by `t.teardown`; `close()` may also be
 * called earlier (it is idempotent).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { buildApp, type App } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/load.js';
import type { Config, SettingKey } from '../../src/config/schema.js';
import { createLogger, type Logger } from '../../src/log.js';

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

export interface StartOptions {
  /** Config values by setting name (`bodyLimitMb`, `adminToken`, …); they win over `env`. */
  readonly config?: Partial<Record<SettingKey, unknown>>;
  /** BIOGATE_* variables as the process would see them (default: none). */
  readonly env?: NodeJS.ProcessEnv;
  readonly clock?: Clock;
  /** Send logs here, at `config.logLevel` (default `info`), instead of dropping them. */
  readonly logs?: LogCapture;
  /** Reuse this SQLite file instead of a fresh one (the caller owns its directory). */
  readonly storePath?: string;
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
  /** `sqlite:<path>`: hand it to the CLI as BIOGATE_STORE to share the store. */
  readonly storeUrl: string;
  readonly storePath: string;
  /** What the app printed through `announce` (the bootstrap banner), joined. */
  readonly announced: string;
  /** Closes the app (idempotent; also run at teardown). */
  close(): Promise<void>;
}

/** Builds and starts the real app on 127.0.0.1:0 with a temporary SQLite file. */
export async function startApp(t: Teardown, options: StartOptions = {}): Promise<StartedApp> {
  const dir = options.storePath === undefined ? await mkdtemp(join(tmpdir(), 'biogate-test-')) : undefined;
  const storePath = options.storePath ?? join(dir as string, 'biogate.db');
  let closed: Promise<void> | undefined;
  let app: App | undefined = undefined; // set once built; close() may run before that
  const close = () => (closed ??= app ? app.close() : Promise.resolve());
  // One teardown, in order: the app (and its store) first, then its directory.
  t.teardown(async () => {
    await close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const storeUrl = `sqlite:${storePath}`;
  const config = loadConfig({
    env: options.env ?? {},
    overrides: { port: 0, host: '127.0.0.1', store: storeUrl, shutdownGraceS: 2, ...options.config },
  });
  const logger: Logger = createLogger(options.logs ? { level: config.logLevel, destination: options.logs } : { level: 'silent' });
  const announced: string[] = [];
  app = await buildApp({ config, logger, ...(options.clock ? { clock: options.clock } : {}), announce: (text) => void announced.push(text) });
  const { port, bootstrap } = await app.start();
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

/** Polls `condition` every 5 ms; rejects after `ms` (nothing here sleeps longer than needed). */
export async function waitFor(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
