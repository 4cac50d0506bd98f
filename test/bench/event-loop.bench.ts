// Event-loop stalls (nothing may stall the event loop): GET /healthz latency while
//   (a) a terminal uploads an 8 MiB ATTLOG (~240,000 records), and
//   (b) a 10,000-user import runs for a location with 20 assigned devices (until its sync
//       fan-out has been queued),
// against the baseline of /healthz alone on the same gateway, measured in the same run.
// The prober runs in a worker thread (its own event loop): one request at a time, every 5 ms.
// Target: p99 ≤ 50 ms during (a) and (b).
//
// Run: npx tsc -p tsconfig.json && node dist/test/bench/event-loop.bench.js
// Sizes: BENCH_UPLOAD_MB (default 8), BENCH_USERS (default 10000), BENCH_DEVICES (default 20),
// BENCH_BASELINE_S (default 3).
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { bearer, fetchJson, jsonBody, startApp, type StartedApp } from '../helpers/app.js';

const env = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${name} must be a positive number`);
  return v;
};

type Job =
  | { kind: 'idle'; ms: number }
  | { kind: 'upload'; sn: string; mb: number }
  | { kind: 'import'; token: string; users: number; expectedOps: number };
type ToProber = { type: 'run'; url: string; job: Job };
interface Outcome {
  type: 'done';
  latencies: number[];
  jobMs: number;
  settledMs: number;
  detail: string;
}

// ------------------------------------------------------------------ prober + driver (worker thread)

const pad = (n: number): string => String(n).padStart(2, '0');

/** An ATTLOG body of about `mb` MiB, ~35 bytes a record [PUSH-v2 §6.2]. */
function attlog(mb: number): { body: Uint8Array; records: number } {
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < mb * 1024 * 1024 - 64; i++) {
    const s = i % 86_400;
    const line = `${1000 + (i % 500)}\t2026-02-${pad(1 + (Math.floor(i / 86_400) % 28))} ${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}\t${i % 2}\t1\t0\t0\t0`;
    lines.push(line);
    bytes += line.length + 1;
  }
  return { body: new TextEncoder().encode(`${lines.join('\n')}\n`), records: lines.length };
}

async function runJob(url: string, job: Job): Promise<{ jobMs: number; settledMs: number; detail: string }> {
  const t0 = performance.now();
  switch (job.kind) {
    case 'idle':
      await new Promise((r) => setTimeout(r, job.ms));
      return { jobMs: performance.now() - t0, settledMs: performance.now() - t0, detail: 'nothing else running' };
    case 'upload': {
      const { body, records } = attlog(job.mb);
      const start = performance.now();
      const res = await fetch(`${url}/iclock/cdata?SN=${job.sn}&table=ATTLOG&Stamp=9999`, {
        method: 'POST',
        body,
        signal: AbortSignal.timeout(600_000),
      });
      const text = await res.text();
      if (res.status !== 200 || text.trim() !== `OK: ${records}`) throw new Error(`upload answered ${res.status} ${text.slice(0, 80)}`);
      const ms = performance.now() - start;
      return { jobMs: ms, settledMs: ms, detail: `${records} records, ${(body.length / 1024 / 1024).toFixed(1)} MiB` };
    }
    case 'import': {
      const items = Array.from({ length: job.users }, (_, i) => ({
        pin: 200_000 + i,
        first_name: `First${i}`,
        last_name: `Last${i}`,
        card_no: String(6_000_000 + i),
      }));
      const start = performance.now();
      const res = await fetch(`${url}/api/users/import`, {
        ...jsonBody('POST', items, bearer(job.token)),
        signal: AbortSignal.timeout(600_000),
      });
      const answer = (await res.json()) as { error_count?: number };
      if (res.status !== 200 || answer.error_count !== 0) throw new Error(`import answered ${res.status}`);
      const jobMs = performance.now() - start;
      // The fan-out may continue in the background: keep probing until every sync op is queued.
      let queued = 0;
      for (const deadline = performance.now() + 300_000; performance.now() < deadline;) {
        const r = await fetchJson(`${url}/api/commands?status=pending&limit=1`, { headers: bearer(job.token) });
        queued = (r.body as { total: number }).total;
        if (queued >= job.expectedOps) break;
        await new Promise((r2) => setTimeout(r2, 250));
      }
      return { jobMs, settledMs: performance.now() - start, detail: `${job.users} users; ${queued} sync ops queued` };
    }
    default: {
      const never: never = job;
      throw new Error(`unknown job ${JSON.stringify(never)}`);
    }
  }
}

function prober(): void {
  const port = parentPort;
  if (!port) return;
  port.on('message', (m: ToProber) => {
    void (async () => {
      const latencies: number[] = [];
      let running = true;
      const probing = (async () => {
        while (running) {
          const t0 = performance.now();
          const res = await fetch(`${m.url}/healthz`);
          await res.arrayBuffer();
          latencies.push(performance.now() - t0);
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      await new Promise((r) => setTimeout(r, 300));
      const r = await runJob(m.url, m.job);
      await new Promise((r2) => setTimeout(r2, 300));
      running = false;
      await probing;
      const out: Outcome = { type: 'done', latencies, ...r };
      port.postMessage(out);
    })();
  });
}

// ------------------------------------------------------------------ the runs (main thread)

function probe(url: string, job: Job): Promise<Outcome> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { role: 'prober' } });
  return new Promise<Outcome>((resolve, reject) => {
    worker.once('message', (o: Outcome) => void worker.terminate().then(() => resolve(o)));
    worker.once('error', reject);
    worker.postMessage({ type: 'run', url, job } satisfies ToProber);
  });
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

export interface LatencySummary {
  readonly name: string;
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly jobMs: number;
  readonly settledMs: number;
  readonly detail: string;
}

function summary(name: string, o: Outcome): LatencySummary {
  const sorted = [...o.latencies].sort((a, b) => a - b);
  return {
    name,
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? NaN,
    jobMs: o.jobMs,
    settledMs: o.settledMs,
    detail: o.detail,
  };
}

async function withApp<T>(fn: (app: StartedApp) => Promise<T>): Promise<T> {
  const teardowns: (() => unknown)[] = [];
  try {
    return await fn(await startApp({ teardown: (f) => void teardowns.push(f) }, { config: { deviceBodyLimitMb: 64 } }));
  } finally {
    for (const f of teardowns.reverse()) await f();
  }
}

export async function run(): Promise<LatencySummary[]> {
  const uploadMb = env('BENCH_UPLOAD_MB', 8);
  const users = Math.min(env('BENCH_USERS', 10_000), 10_000);
  const devices = env('BENCH_DEVICES', 20);
  const baselineMs = env('BENCH_BASELINE_S', 3) * 1000;
  return withApp(async (app) => {
    const call = (method: string, path: string, body?: unknown) =>
      fetchJson(`${app.url}${path}`, jsonBody(method, body, bearer(app.token)));
    for (let i = 0; i < devices; i++)
      if ((await call('POST', '/api/devices', { sn: `LOOP${String(i).padStart(4, '0')}` })).res.status !== 201)
        throw new Error('assign failed');
    if ((await call('POST', '/api/devices', { sn: 'UPLOAD0001' })).res.status !== 201) throw new Error('assign failed');
    const results: LatencySummary[] = [];
    results.push(summary('baseline: /healthz alone', await probe(app.url, { kind: 'idle', ms: baselineMs })));
    results.push(
      summary(`during a ${uploadMb} MiB ATTLOG upload`, await probe(app.url, { kind: 'upload', sn: 'UPLOAD0001', mb: uploadMb })),
    );
    results.push(
      summary(
        `during a ${users}-user import, ${devices + 1} devices assigned`,
        await probe(app.url, { kind: 'import', token: app.token, users, expectedOps: users * (devices + 1) }),
      ),
    );
    return results;
  });
}

export function report(results: readonly LatencySummary[]): string {
  const base = results[0];
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const lines = ['GET /healthz latency, prober in a worker thread (one request at a time, every 5 ms)'];
  for (const r of results) {
    lines.push(
      `  ${r.name}: n=${r.n} p50 ${ms(r.p50)} p99 ${ms(r.p99)} max ${ms(r.max)}` +
        (r === base ? '' : `; request ${(r.jobMs / 1000).toFixed(1)} s, settled ${(r.settledMs / 1000).toFixed(1)} s (${r.detail})`),
    );
    if (base && r !== base)
      lines.push(`    ratio p99/baseline p99: ${(r.p99 / base.p99).toFixed(2)}; target p99 ≤ 50 ms: ${r.p99 <= 50 ? 'met' : 'MISSED'}`);
  }
  return lines.join('\n');
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'prober') prober();
else if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(report(await run()));
}
