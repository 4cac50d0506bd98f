// Sync fan-out (DESIGN.md "Sync"): a user import through the API reaching every simulated terminal of a
// location, timed until every terminal holds exactly the active roster and every op is acknowledged.
// The terminals run in a worker thread, so the gateway has the main thread to itself, and they poll
// again at once after posting results (DESIGN.md: benchmarks measure the gateway, not firmware pacing).
//
// Measured in the same run, as the baselines:
//   - the same import to 2 terminals (one v2, one v3): how delivery scales with the fleet;
//   - SyncQueue.queueUsers of the same ops straight into the store: the floor of queueing them.
//
// Run: npx tsc -p tsconfig.json && node dist/test/bench/sync-fanout.bench.js
// Sizes: BENCH_USERS (default 10000, at most 10000: one import), BENCH_DEVICES (default 20),
// BENCH_ROUNDS (default 1); BENCH_PROGRESS=1 prints convergence progress to stderr.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fetchJson, jsonBody, startApp, type StartedApp } from '../helpers/app.js';
import { comparison, measureRuns, report, type AsyncBenchCase, type Comparison } from './harness.js';

const env = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer`);
  return v;
};

interface DeviceSpec {
  readonly sn: string;
  readonly protocol: 'v2' | 'v3';
}
type ToFleet = { type: 'start'; url: string; devices: DeviceSpec[] } | { type: 'await'; pins: string[] } | { type: 'stop' };
type FromFleet =
  { type: 'ready' } | { type: 'progress'; held: number[] } | { type: 'converged'; wrong: string[]; errors: number } | { type: 'stopped' };

// ------------------------------------------------------------------ the fleet (worker thread)

function runFleet(): void {
  const port = parentPort;
  if (!port) return;
  let sims: SimulatedDevice[] = [];
  const post = (m: FromFleet) => port.postMessage(m);
  port.on('message', (m: ToFleet) => {
    switch (m.type) {
      case 'start': {
        sims = m.devices.map((d) =>
          createSimulatedDevice({
            url: m.url,
            sn: d.sn,
            protocol: d.protocol,
            pollDelayMs: 50,
            fast: true,
            requestTimeoutMs: 120_000,
            retryDelayMs: 200,
          }),
        );
        for (const s of sims) s.start();
        const check = setInterval(() => {
          if (sims.every((s) => s.stats.polls > 0)) {
            clearInterval(check);
            post({ type: 'ready' });
          }
        }, 5);
        break;
      }
      case 'await': {
        const want = new Set(m.pins);
        let last = 0;
        const check = setInterval(() => {
          if (!sims.every((s) => s.users().size >= want.size)) {
            if (Date.now() - last >= 1000) {
              last = Date.now();
              post({ type: 'progress', held: sims.map((s) => s.users().size) });
            }
            return;
          }
          clearInterval(check);
          const wrong = sims
            .filter((s) => s.users().size !== want.size || ![...s.users().keys()].every((p) => want.has(p)))
            .map((s) => s.sn);
          post({ type: 'converged', wrong, errors: sims.reduce((n, s) => n + s.stats.errors, 0) });
        }, 5);
        break;
      }
      case 'stop':
        void Promise.all(sims.map((s) => s.stop())).then(() => post({ type: 'stopped' }));
        break;
      default: {
        const never: never = m;
        throw new Error(`unknown message ${JSON.stringify(never)}`);
      }
    }
  });
}

class Fleet {
  readonly #worker = new Worker(new URL(import.meta.url), { workerData: { role: 'fleet' } });
  readonly #waiting = new Map<FromFleet['type'], (m: FromFleet) => void>();

  constructor(onProgress?: (held: number[]) => void) {
    this.#worker.on('message', (m: FromFleet) => {
      if (m.type === 'progress') onProgress?.(m.held);
      else this.#waiting.get(m.type)?.(m);
    });
  }

  #ask<T extends FromFleet['type']>(message: ToFleet, reply: T): Promise<Extract<FromFleet, { type: T }>> {
    return new Promise((resolve) => {
      this.#waiting.set(reply, (m) => resolve(m as Extract<FromFleet, { type: T }>));
      this.#worker.postMessage(message);
    });
  }

  start(url: string, devices: DeviceSpec[]) {
    return this.#ask({ type: 'start', url, devices }, 'ready');
  }

  converged(pins: string[]) {
    return this.#ask({ type: 'await', pins }, 'converged');
  }

  async close(): Promise<void> {
    await this.#ask({ type: 'stop' }, 'stopped');
    await this.#worker.terminate();
  }
}

// ------------------------------------------------------------------ the runs (main thread)

/** startApp wants a tap-like teardown; the bench runs them itself, last first. */
async function withApp<T>(fn: (app: StartedApp) => Promise<T>): Promise<T> {
  const teardowns: (() => unknown)[] = [];
  try {
    return await fn(await startApp({ teardown: (f) => void teardowns.push(f) }));
  } finally {
    for (const f of teardowns.reverse()) await f();
  }
}

const items = (users: number) =>
  Array.from({ length: users }, (_, i) => ({
    pin: 100_000 + i,
    first_name: `First${i}`,
    last_name: `Last${i}`,
    card_no: String(5_000_000 + i),
    ...(i % 10 === 0 ? { is_active: false } : {}),
  }));
const activePins = (users: number) =>
  items(users)
    .filter((u) => u.is_active !== false)
    .map((u) => String(u.pin));
const fleetOf = (n: number): DeviceSpec[] =>
  Array.from({ length: n }, (_, i) => ({
    sn: `BENCH${i % 2 === 0 ? 'V2' : 'V3'}${String(i).padStart(4, '0')}`,
    protocol: i % 2 === 0 ? 'v2' : 'v3',
  }));

export interface FanoutTiming {
  readonly importMs: number;
  /** import start → every device holds exactly the active roster */
  readonly convergedMs: number;
  /** import start → no command pending or unacknowledged */
  readonly settledMs: number;
  /** share of that time the gateway's event loop was busy (0–1) */
  readonly busy: number;
}

/** One import of `users` fanned out to `devices` simulated terminals on a fresh gateway. */
export async function fanout(users: number, devices: number, progress?: (line: string) => void): Promise<FanoutTiming> {
  return withApp(async (app) => {
    const call = (method: string, path: string, body?: unknown) =>
      fetchJson(`${app.url}${path}`, {
        ...(body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token))),
        signal: AbortSignal.timeout(600_000),
      });
    const specs = fleetOf(devices);
    for (const d of specs)
      if ((await call('POST', '/api/devices', { sn: d.sn })).res.status !== 201) throw new Error(`assigning ${d.sn} failed`);
    const started = performance.now();
    const fleet = new Fleet(
      progress &&
        ((held) =>
          progress(
            `  ${devices} devices, ${((performance.now() - started) / 1000).toFixed(0)} s: users held min ${Math.min(...held)} max ${Math.max(...held)}; event loop busy ${(performance.eventLoopUtilization().utilization * 100).toFixed(0)}% since start`,
          )),
    );
    try {
      await fleet.start(app.url, specs);
      const body = items(users);
      const pins = activePins(users);
      const elu = performance.eventLoopUtilization();
      const t0 = performance.now();
      const imported = await call('POST', '/api/users/import', body);
      const importMs = performance.now() - t0;
      if (imported.res.status !== 200 || (imported.body as { error_count: number }).error_count !== 0)
        throw new Error(`import failed: HTTP ${imported.res.status}`);
      const done = await fleet.converged(pins);
      const convergedMs = performance.now() - t0;
      if (done.wrong.length > 0) throw new Error(`devices without exactly the active roster: ${done.wrong.join(', ')}`);
      for (;;) {
        const open = await Promise.all(
          ['pending', 'sent'].map(async (s) => ((await call('GET', `/api/commands?status=${s}&limit=1`)).body as { total: number }).total),
        );
        if (open.every((n) => n === 0)) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      return { importMs, convergedMs, settledMs: performance.now() - t0, busy: performance.eventLoopUtilization(elu).utilization };
    } finally {
      await fleet.close();
    }
  });
}

/** The floor: SyncQueue.queueUsers of users × devices ops straight into the store (no HTTP, no delivery). */
async function enqueueOnly(users: number, devices: number): Promise<number> {
  return withApp(async (app) => {
    for (const d of fleetOf(devices)) await app.app.store.devices.assign(app.locationId, d.sn, { name: null }, new Date().toISOString());
    const pins = activePins(users).map(Number);
    const t0 = performance.now();
    const { commands } = await app.app.sync.queueUsers(app.locationId, pins, 'user.upsert');
    const ms = performance.now() - t0;
    if (commands !== pins.length * devices) throw new Error(`queued ${commands} ops, expected ${pins.length * devices}`);
    return ms;
  });
}

export async function run(): Promise<Comparison[]> {
  const users = Math.min(env('BENCH_USERS', 10_000), 10_000);
  const devices = env('BENCH_DEVICES', 20);
  const rounds = env('BENCH_ROUNDS', 1);
  const progress = process.env['BENCH_PROGRESS'] === '1' ? (line: string) => void process.stderr.write(`${line}\n`) : undefined;
  const active = activePins(users).length;
  const timings: FanoutTiming[] = [];
  const fleetCase: AsyncBenchCase = {
    name: `import → ${devices} devices, until acknowledged`,
    units: active * devices,
    run: async () => {
      const timing = await fanout(users, devices, progress);
      timings.push(timing);
      return timing.settledMs;
    },
  };
  const pairCase: AsyncBenchCase = {
    name: 'import → 2 devices, until acknowledged',
    units: active * 2,
    run: async () => (await fanout(users, 2, progress)).settledMs,
  };
  const enqueueCase: AsyncBenchCase = {
    name: 'SyncQueue.queueUsers into the store',
    units: active * devices,
    run: () => enqueueOnly(users, devices),
  };

  const pair = await measureRuns(pairCase, rounds);
  const fleet = await measureRuns(fleetCase, rounds);
  const enqueue = await measureRuns(enqueueCase, rounds);
  const last = timings.at(-1) as FanoutTiming;
  console.log(`Sync fan-out: import of ${users} users (${active} active) to ${devices} simulated devices (v2/v3 alternating)`);
  console.log(
    `  import request ${(last.importMs / 1000).toFixed(1)} s; every device holds the roster after ${(last.convergedMs / 1000).toFixed(1)} s; all acknowledged after ${(last.settledMs / 1000).toFixed(1)} s; gateway event loop busy ${(last.busy * 100).toFixed(0)}%`,
  );
  return [
    comparison(`fan-out to ${devices} devices vs to 2 devices (delivered user ops)`, pair, fleet),
    comparison(`fan-out to ${devices} devices vs queueing the same ops only`, enqueue, fleet),
  ];
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'fleet') runFleet();
else if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const result of await run()) console.log(report(result, 'user ops'));
}
