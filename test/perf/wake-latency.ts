// Issue #20: v3 held polls wake within a millisecond of a command being queued for their terminal.
// N simulated v3 terminals hold their getrequest on one node (SQLite); each sample queues a command
// for a random terminal (POST /api/commands) and times it until that terminal receives it. Prints
// p50/p90/p99/max and the share delivered within 100 ms. A measurement, never an assertion.
//
// Run: npx tsc -p tsconfig.json && node dist/test/perf/wake-latency.js
// Sizes: WAKE_TERMINALS (default 100), WAKE_SAMPLES (default 200), WAKE_CONCURRENCY (samples in flight, default 1).
import { performance } from 'node:perf_hooks';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fetchJson, jsonBody, startApp } from '../helpers/app.js';

const size = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
};

async function main(): Promise<void> {
  const terminals = size('WAKE_TERMINALS', 100);
  const samples = size('WAKE_SAMPLES', 200);
  const concurrency = size('WAKE_CONCURRENCY', 1);
  const teardowns: (() => unknown)[] = [];
  const app = await startApp({ teardown: (f) => void teardowns.push(f) }, { config: { logLevel: 'silent' } });
  const post = (path: string, body: unknown) => fetchJson(`${app.url}${path}`, jsonBody('POST', body, bearer(app.token)));
  const received = new Map<number, number>();
  const waiters = new Map<number, () => void>();
  const sims: SimulatedDevice[] = [];
  for (let i = 0; i < terminals; i++) {
    const sn = `WAKE${String(i).padStart(5, '0')}`;
    if ((await post('/api/devices', { sn, version: '3.0.0' })).res.status !== 201) throw new Error(`assign ${sn}`);
    const sim = createSimulatedDevice({ url: app.url, sn, protocol: 'v3', pollDelayMs: 1, fast: true, requestTimeoutMs: 60_000 });
    sim.onCommand((c) => {
      const id = Number(c.id);
      received.set(id, performance.now());
      waiters.get(id)?.();
    });
    sim.start();
    sims.push(sim);
  }
  for (let i = 0; i < 1200 && !sims.every((s) => s.stats.online); i++) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 1_000)); // every terminal into its held poll

  const times: number[] = [];
  /** How long the POST itself took (answered): what of the round trip is the API's own work. */
  const posts: number[] = [];
  const one = async (): Promise<void> => {
    const sn = `WAKE${String(Math.floor(Math.random() * terminals)).padStart(5, '0')}`;
    const start = performance.now();
    const { res, body } = await post('/api/commands', { sn, command: 'info' });
    posts.push(performance.now() - start);
    if (res.status !== 201) throw new Error(`queue: ${res.status}`);
    const id = (body as { id: number }).id;
    if (!received.has(id)) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`command ${id} not received within 30 s`)), 30_000);
        waiters.set(id, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    waiters.delete(id);
    times.push((received.get(id) ?? Number.NaN) - start);
    await new Promise((r) => setTimeout(r, 20)); // the terminal back in a held poll
  };
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (times.length < samples) await one();
    }),
  );
  const within100 = times.filter((t) => t <= 100).length / times.length;
  console.log(
    `# wake latency: ${terminals} v3 terminals holding polls, ${times.length} commands (${concurrency} in flight), POST → terminal received`,
  );
  console.log(
    `p50 ${quantile(times, 0.5).toFixed(1)} ms  p90 ${quantile(times, 0.9).toFixed(1)} ms  p99 ${quantile(times, 0.99).toFixed(1)} ms  max ${Math.max(...times).toFixed(1)} ms  within 100 ms: ${(within100 * 100).toFixed(1)} %`,
  );
  console.log(`the POST alone (answered): p50 ${quantile(posts, 0.5).toFixed(1)} ms  p99 ${quantile(posts, 0.99).toFixed(1)} ms`);
  console.log(`rss ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB (server and ${terminals} simulators in one process)`);
  await Promise.all(sims.map((s) => s.stop()));
  for (const f of teardowns.reverse()) await f();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
