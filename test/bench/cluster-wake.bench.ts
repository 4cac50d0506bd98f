// Cross-node command delivery: a command queued on any node wakes the owner's held poll through the
// feed, and the target is delivery within 100 ms (p99) of queueing on another node, with v3 long-poll.
// Two nodes on one MongoDB-compatible server with change streams (deploy/test-mongo);
// a simulated v3 terminal holds its getrequest on node B. Each sample: POST /api/commands, then the
// moment the terminal executes the command. Baseline: queued on B (the node holding the poll);
// candidate: queued on A (delivered through the change stream). Interleaved rounds, same run. A
// last line shows the same round trip on one node with SQLite, for scale.
//
// Run: npx tsc -p tsconfig.json && node dist/test/bench/cluster-wake.bench.js
// Sizes: BENCH_WAKE_SAMPLES (per side, default 100). Needs Java 17+ and Maven (the test server).
import { performance } from 'node:perf_hooks';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fetchJson, jsonBody, startApp, type StartedApp } from '../helpers/app.js';
import { startControlledMongo } from '../helpers/mongo-control.js';

const SAMPLES = Number(process.env['BENCH_WAKE_SAMPLES'] ?? 100);
const ROUND = 10;

const teardowns: (() => unknown)[] = [];
const td = { teardown: (fn: () => unknown) => void teardowns.push(fn) };

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
};

async function main(): Promise<void> {
  const mongo = await startControlledMongo(td);
  if (typeof mongo === 'string') {
    console.log(`# SKIP cluster-wake: ${mongo}`);
    return;
  }
  const storeUrl = `${mongo.server}/biogate_bench_wake`;
  const a: StartedApp = await startApp(td, { storeUrl, config: { nodeId: 'bench-a' } });
  const b: StartedApp = await startApp(td, { storeUrl, config: { nodeId: 'bench-b', bootstrap: 'off' } });
  for (let i = 0; i < 100 && !(a.app.feed.clustered && b.app.feed.clustered); i++) await new Promise((r) => setTimeout(r, 50));
  const post = (node: StartedApp, path: string, body: unknown) => fetchJson(`${node.url}${path}`, jsonBody('POST', body, bearer(a.token)));
  await post(a, '/api/devices', { sn: 'WAKEV3', version: '3.0.0' });
  const sim = createSimulatedDevice({ url: b.url, sn: 'WAKEV3', protocol: 'v3', pollDelayMs: 1, fast: true });
  const executedAt = new Map<number, number>();
  const waiters = new Map<number, () => void>();
  sim.onCommand((c) => {
    const id = Number(c.id);
    executedAt.set(id, performance.now());
    waiters.get(id)?.();
  });
  sim.start();
  for (let i = 0; i < 200 && !sim.stats.online; i++) await new Promise((r) => setTimeout(r, 50));

  const sample = async (via: StartedApp): Promise<number> => {
    // Let the terminal settle into a held poll (it answered the previous command's result).
    await new Promise((r) => setTimeout(r, 30));
    const start = performance.now();
    const { body } = await post(via, '/api/commands', { sn: 'WAKEV3', command: 'info' });
    const id = (body as { id: number }).id;
    if (!executedAt.has(id)) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`command ${id} not delivered within 10 s`)), 10_000);
        waiters.set(id, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    waiters.delete(id);
    return (executedAt.get(id) ?? Number.NaN) - start;
  };

  const same: number[] = [];
  const cross: number[] = [];
  for (let i = 0; i < 5; i++) await sample(b); // warm-up
  while (same.length < SAMPLES) {
    for (let i = 0; i < ROUND; i++) same.push(await sample(b));
    for (let i = 0; i < ROUND; i++) cross.push(await sample(a));
  }
  await sim.stop();

  // For scale: the same round trip on one node with the embedded store (SQLite).
  const solo: StartedApp = await startApp(td, { config: { nodeId: 'bench-solo' } });
  await fetchJson(`${solo.url}/api/devices`, jsonBody('POST', { sn: 'SOLOV3', version: '3.0.0' }, bearer(solo.token)));
  const soloSim = createSimulatedDevice({ url: solo.url, sn: 'SOLOV3', protocol: 'v3', pollDelayMs: 1, fast: true });
  soloSim.onCommand((c) => {
    const id = Number(c.id);
    executedAt.set(-id, performance.now());
    waiters.get(-id)?.();
  });
  soloSim.start();
  for (let i = 0; i < 200 && !soloSim.stats.online; i++) await new Promise((r) => setTimeout(r, 50));
  const sqlite: number[] = [];
  while (sqlite.length < SAMPLES) {
    await new Promise((r) => setTimeout(r, 30));
    const start = performance.now();
    const { body } = await fetchJson(`${solo.url}/api/commands`, jsonBody('POST', { sn: 'SOLOV3', command: 'info' }, bearer(solo.token)));
    const id = -(body as { id: number }).id;
    if (!executedAt.has(id)) await new Promise<void>((resolve) => waiters.set(id, resolve));
    sqlite.push((executedAt.get(id) ?? Number.NaN) - start);
  }
  await soloSim.stop();

  const row = (name: string, v: number[]) =>
    `${name.padEnd(34)} p50 ${quantile(v, 0.5).toFixed(1).padStart(7)} ms   p99 ${quantile(v, 0.99).toFixed(1).padStart(7)} ms   max ${Math.max(
      ...v,
    )
      .toFixed(1)
      .padStart(7)} ms`;
  console.log(`# cluster wake: ${SAMPLES} commands per side, v3 terminal holding its poll on node B`);
  console.log(row('baseline: queued on B (same node)', same));
  console.log(row('candidate: queued on A (other node)', cross));
  console.log(
    `ratio p99 candidate/baseline: ${(quantile(cross, 0.99) / quantile(same, 0.99)).toFixed(2)}   target: candidate p99 ≤ 100 ms → ${quantile(cross, 0.99) <= 100 ? 'met' : 'NOT met'}`,
  );
  console.log(row('one node, SQLite (for scale)', sqlite));
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const fn of teardowns.reverse()) await fn();
  });
