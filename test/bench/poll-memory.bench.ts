// Memory under sustained polling (nothing may grow without bound): a terminal's
// `GET /iclock/getrequest` served BENCH_POLLS times (default 50,000; 1,000,000 for the full check),
// printing the gateway's RSS and heap after warm-up and at the end. The HTTP layer never combines a
// request's abort signal with a process-lifetime one through AbortSignal.any: on Node 20 that keeps
// every combined signal alive (~60 bytes a request, hundreds of MB after a few million).
//
// Measured in the same run, as baselines:
//   - the same number of GET /healthz (the HTTP layer alone, no device actor);
//   - AbortSignal.any([request, process]) done BENCH_POLLS times (at most 200,000) in-process: the
//     leak the HTTP layer avoids, for scale.
// The load comes from a child process (keep-alive, 16 connections), so its memory is not counted.
//
// Run: npx tsc -p tsconfig.json && node --expose-gc dist/test/bench/poll-memory.bench.js
// Sizes: BENCH_POLLS (default 50000), BENCH_CONNECTIONS (default 16).
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bearer, fetchJson, jsonBody, startApp, type StartedApp } from '../helpers/app.js';

const env = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer`);
  return v;
};

// ------------------------------------------------------------------ the load (child process)

/** Sends `total` GETs of `path` over `connections` keep-alive connections; prints `progress <n>` every 5%. */
async function load(url: string, path: string, total: number, connections: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const { hostname, port } = new URL(url);
  let next = 0;
  let done = 0;
  const step = Math.max(1, Math.floor(total / 20));
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: hostname, port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < total) {
        next++;
        await one();
        if (++done % step === 0) process.stdout.write(`progress ${done}\n`);
      }
    }),
  );
  agent.destroy();
}

// ------------------------------------------------------------------ the runs (gateway process)

interface MemoryRun {
  readonly name: string;
  readonly requests: number;
  readonly perSecond: number;
  /** MiB after warm-up (20% of the requests) and at the end, after a GC when --expose-gc is given */
  readonly rssWarm: number;
  readonly rssEnd: number;
  readonly heapWarm: number;
  readonly heapEnd: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
const mib = (bytes: number) => bytes / 1024 / 1024;
function memory(): { rss: number; heap: number } {
  gc?.();
  const m = process.memoryUsage();
  return { rss: mib(m.rss), heap: mib(m.heapUsed) };
}

async function drive(name: string, url: string, path: string, total: number, connections: number): Promise<MemoryRun> {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(
    process.execPath,
    [...process.execArgv.filter((a) => a !== '--expose-gc'), self, 'load', url, path, String(total), String(connections)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let warm: { rss: number; heap: number } | undefined;
  let warmAt = 0;
  let warmTime = 0;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    for (const m of d.matchAll(/progress (\d+)/g)) {
      const n = Number(m[1]);
      if (!warm && n >= total * 0.2) {
        warm = memory();
        warmAt = n;
        warmTime = performance.now();
      }
    }
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${name}: the load process exited with ${code}`);
  const end = memory();
  const w = warm ?? end;
  const seconds = (performance.now() - warmTime) / 1000;
  return {
    name,
    requests: total,
    perSecond: (total - warmAt) / seconds,
    rssWarm: w.rss,
    rssEnd: end.rss,
    heapWarm: w.heap,
    heapEnd: end.heap,
  };
}

/** The old pattern, in-process: one combined signal per request against a process-lifetime one. */
function abortSignalAny(total: number): MemoryRun {
  const lifetime = new AbortController();
  const kept: AbortSignal[] = [];
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      const client = new AbortController();
      const combined = AbortSignal.any([client.signal, lifetime.signal]);
      if (i % 1_000_000 === -1) kept.push(combined); // never: nothing of ours keeps them
    }
  };
  const warmN = Math.floor(total * 0.2);
  run(warmN);
  const warm = memory();
  const t0 = performance.now();
  run(total - warmN);
  const seconds = (performance.now() - t0) / 1000;
  const end = memory();
  if (kept.length > 0) throw new Error('unreachable');
  return {
    name: 'AbortSignal.any([request, process]) per request (the old pattern, no HTTP)',
    requests: total,
    perSecond: (total - warmN) / seconds,
    rssWarm: warm.rss,
    rssEnd: end.rss,
    heapWarm: warm.heap,
    heapEnd: end.heap,
  };
}

async function withApp<T>(fn: (app: StartedApp) => Promise<T>): Promise<T> {
  const teardowns: (() => unknown)[] = [];
  try {
    return await fn(await startApp({ teardown: (f) => void teardowns.push(f) }, { config: { logLevel: 'silent' } }));
  } finally {
    for (const f of teardowns.reverse()) await f();
  }
}

export async function run(): Promise<MemoryRun[]> {
  const total = env('BENCH_POLLS', 50_000);
  const connections = env('BENCH_CONNECTIONS', 16);
  const results = await withApp(async (app) => {
    if ((await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn: 'POLLMEM01' }, bearer(app.token)))).res.status !== 201)
      throw new Error('assign failed');
    const healthz = await drive('GET /healthz (HTTP layer only)', app.url, '/healthz', total, connections);
    // A v2 terminal: getrequest answers at once (no held poll) [PUSH-v2 §7.1].
    const polls = await drive('GET /iclock/getrequest (device poll)', app.url, '/iclock/getrequest?SN=POLLMEM01', total, connections);
    return [healthz, polls];
  });
  // Capped: the old pattern keeps ~2 KB a request on Node 20, and proving that needs no gigabytes.
  results.push(abortSignalAny(Math.min(total, 200_000)));
  return results;
}

export function report(results: readonly MemoryRun[]): string {
  const f = (n: number) => n.toFixed(1);
  const lines = [`Memory after warm-up (20%) vs end${gc ? ' (after a forced GC)' : ' (run with --expose-gc for steadier figures)'}`];
  for (const r of results) {
    const rss = r.rssEnd - r.rssWarm;
    lines.push(`  ${r.name}: ${r.requests} requests, ${f(r.perSecond)}/s`);
    lines.push(
      `    RSS ${f(r.rssWarm)} → ${f(r.rssEnd)} MiB (${rss >= 0 ? '+' : ''}${f(rss)} MiB); heap ${f(r.heapWarm)} → ${f(r.heapEnd)} MiB (${r.heapEnd - r.heapWarm >= 0 ? '+' : ''}${f(r.heapEnd - r.heapWarm)} MiB); ${f(((r.heapEnd - r.heapWarm) * 1024 * 1024) / (r.requests * 0.8))} heap bytes/request`,
    );
  }
  const [base, polls] = results;
  if (base && polls)
    lines.push(
      `  ratio poll/healthz RSS growth: ${f(polls.rssEnd - polls.rssWarm)} / ${f(base.rssEnd - base.rssWarm)} MiB; target: flat within a few MB`,
    );
  return lines.join('\n');
}

const [role, ...args] = process.argv.slice(2);
if (role === 'load') {
  const [url, path, total, connections] = args;
  await load(url as string, path as string, Number(total), Number(connections));
} else if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(report(await run()));
}
