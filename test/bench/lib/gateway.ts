// BioGate as a separate process, the way an operator runs it (`biogate serve` with BIOGATE_* settings),
// so the load generator and the simulated terminals never share its CPU time or heap.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';

/** dist/src/cli.js, next to this file's dist/test/bench/lib/ */
export const CLI = fileURLToPath(new URL('../../../src/cli.js', import.meta.url));

export interface GatewayOptions {
  /** `sqlite` (a temporary file) or a `mongodb://` URL (a fresh database per gateway) */
  readonly store: string;
  /** BIOGATE_HTTP_ENGINE (uws | node); ignored by builds without a second engine */
  readonly engine: string;
  /** extra BIOGATE_* settings */
  readonly env?: Readonly<Record<string, string>>;
  /** runs against the store before the gateway starts (seeding), with the store URL */
  readonly before?: (storeUrl: string, locationId: number) => Promise<void>;
}

export interface Gateway {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly token: string;
  readonly locationId: number;
  readonly storeUrl: string;
  /** resident set size of the gateway process, bytes (/proc/<pid>/status VmRSS) */
  rss(): number;
  /** the V8 heap (used and reserved) and the memory V8 accounts outside it, bytes, as the gateway's /metrics reports them */
  heap(): Promise<HeapFigures>;
  stop(): Promise<void>;
}

export interface HeapFigures {
  readonly used: number;
  readonly total: number;
  readonly external: number;
}

/** prom-client's runtime gauges (nodejs_heap_size_used_bytes, …) from a /metrics text. */
function heapFromMetrics(text: string): HeapFigures {
  const gauge = (name: string): number => {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+(?:\\.\\d+)?(?:e\\+\\d+)?)$`, 'm').exec(text);
    if (!m) throw new Error(`no ${name} in /metrics`);
    return Number(m[1]);
  };
  return {
    used: gauge('nodejs_heap_size_used_bytes'),
    total: gauge('nodejs_heap_size_total_bytes'),
    external: gauge('nodejs_external_memory_bytes'),
  };
}

let databases = 0;

/** Set by `--cpu-prof DIR`: every gateway runs under `node --cpu-prof` and leaves its profile there. */
let cpuProfileDir: string | undefined;
export function profileGatewaysInto(dir: string | undefined): void {
  cpuProfileDir = dir;
}

/** Gateways still running: killed if the bench itself is stopped, so none is left behind. */
const live = new Set<ChildProcess>();
let reaperInstalled = false;
function installReaper(): void {
  if (reaperInstalled) return;
  reaperInstalled = true;
  process.once('exit', () => {
    for (const c of live) c.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const c of live) c.kill('SIGKILL');
      process.exit(130);
    });
  }
}

function storeUrlFor(store: string, dir: string): string {
  if (store === 'sqlite') return `sqlite:${join(dir, 'bench.db')}`;
  // A fresh database per gateway: scenarios must not see each other's records.
  const u = new URL(store);
  u.pathname = `/biogate_bench_${process.pid}_${Date.now().toString(36)}_${databases++}`;
  return u.href;
}

/**
 * The database made for one gateway goes with it: a run makes dozens, which a MongoDB would keep, and the in-memory
 * test server CI uses (deploy/test-mongo) would hold in its heap until it slowed down the scenarios after them.
 */
async function dropDatabase(storeUrl: string): Promise<void> {
  if (!storeUrl.startsWith('mongodb')) return;
  const client = new MongoClient(storeUrl, { serverSelectionTimeoutMS: 10_000 });
  try {
    await client.db().dropDatabase();
  } catch (err) {
    process.stderr.write(
      `bench: could not drop ${new URL(storeUrl).pathname.slice(1)}: ${err instanceof Error ? err.message : String(err)}\n`,
    );
  } finally {
    await client.close();
  }
}

export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!kb) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}

/** `biogate location create --json` against the store before the server starts: the bench's location and token. */
function createLocation(env: NodeJS.ProcessEnv): { locationId: number; token: string } {
  const r = spawnSync(process.execPath, [CLI, 'location', 'create', '--name', 'Bench', '--json'], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`biogate location create failed (${r.status}): ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { location: { id: number }; token: string };
  return { locationId: out.location.id, token: out.token };
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const dir = mkdtempSync(join(tmpdir(), 'biogate-bench-'));
  const storeUrl = storeUrlFor(options.store, dir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BIOGATE_STORE: storeUrl,
    BIOGATE_HOST: '127.0.0.1',
    BIOGATE_PORT: '0',
    BIOGATE_SHUTDOWN_DRAIN_S: '0',
    BIOGATE_BOOTSTRAP: 'off',
    // BIOGATE_BENCH_GATEWAY_LOG_LEVEL (default warn): with BIOGATE_BENCH_GATEWAY_LOG, what the kept log holds.
    BIOGATE_LOG_LEVEL: process.env['BIOGATE_BENCH_GATEWAY_LOG_LEVEL'] ?? 'warn',
    BIOGATE_LOG_FORMAT: 'json',
    BIOGATE_HTTP_ENGINE: options.engine,
    // A benchmark drives one location hard: no per-token rate limit, no cap on unassigned terminals.
    BIOGATE_RATE_LIMIT_RPS: '0',
    ...options.env,
  };
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  let child: ChildProcess | undefined;
  try {
    const { locationId, token } = createLocation(env);
    await options.before?.(storeUrl, locationId);
    const profiling = cpuProfileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`];
    const proc = spawn(process.execPath, [...profiling, CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    installReaper();
    live.add(proc);
    proc.once('exit', () => live.delete(proc));
    let stderr = '';
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
    });
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      proc.stdout?.setEncoding('utf8');
      proc.stdout?.on('data', (d: string) => {
        out += d;
        const m = /BioGate listening on https?:\/\/[^:]+:(\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      proc.once('exit', (code) => reject(new Error(`biogate serve exited with ${code} before listening: ${stderr}`)));
    });
    // BIOGATE_BENCH_GATEWAY_LOG=FILE keeps the gateway's log (JSON, BIOGATE_BENCH_GATEWAY_LOG_LEVEL and above) for a look afterwards.
    const keep = process.env['BIOGATE_BENCH_GATEWAY_LOG'];
    if (keep) proc.stdout?.pipe(createWriteStream(keep, { flags: 'a' }));
    else proc.stdout?.resume();
    const pid = proc.pid as number;
    let stopped = false;
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      pid,
      token,
      locationId,
      storeUrl,
      rss: () => rssOf(pid),
      async heap() {
        // /metrics needs the admin token when the environment sets one (API-CONTRACT §7).
        const admin = env['BIOGATE_ADMIN_TOKEN'];
        const r = await fetch(`http://127.0.0.1:${port}/metrics`, admin ? { headers: { authorization: `Bearer ${admin}` } } : {});
        if (!r.ok) throw new Error(`GET /metrics: ${r.status}`);
        return heapFromMetrics(await r.text());
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        const exited = new Promise<void>((resolve) => (proc.exitCode !== null ? resolve() : proc.once('exit', () => resolve())));
        proc.kill('SIGTERM');
        // Killed if it has not exited in 20 s; the timer is cleared, or it would hold the bench open as long.
        const forced = setTimeout(() => proc.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(forced);
        cleanup();
        await dropDatabase(storeUrl);
      },
    };
  } catch (err) {
    child?.kill('SIGKILL');
    cleanup();
    await dropDatabase(storeUrl);
    throw err;
  }
}

/** Runs `fn` with a gateway and always stops it. */
export async function withGateway<T>(options: GatewayOptions, fn: (gw: Gateway) => Promise<T>): Promise<T> {
  const gw = await startGateway(options);
  try {
    return await fn(gw);
  } finally {
    await gw.stop();
  }
}
