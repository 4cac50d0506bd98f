// Ad hoc load target (issue #20): starts BioGate on a temporary SQLite store, seeds it, prints one JSON
// line {url, token, sns} and serves until SIGTERM/SIGINT. Drive it with wrk or autocannon; profile it
// with `node --cpu-prof dist/test/perf/serve-for-load.js`. Not a test and never an assertion.
//
// Sizes: LOAD_DEVICES (assigned terminals, default 200), LOAD_USERS (default 10000), LOAD_VERSION (the
// terminals' protocol, default 2.0.0; 3.0.0 terminals have their polls held). On SIGUSR2 it prints its
// RSS and heap (MB) after a garbage collection when run with --expose-gc.
import { bearer, fetchJson, jsonBody, startApp } from '../helpers/app.js';

const size = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

async function main(): Promise<void> {
  const teardowns: (() => unknown)[] = [];
  const app = await startApp({ teardown: (f) => void teardowns.push(f) }, { config: { logLevel: 'silent' } });
  const sns: string[] = [];
  for (let i = 0; i < size('LOAD_DEVICES', 200); i++) {
    const sn = `LOAD${String(i).padStart(5, '0')}`;
    const version = process.env['LOAD_VERSION'];
    const r = await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn, ...(version ? { version } : {}) }, bearer(app.token)));
    if (r.res.status !== 201) throw new Error(`assign ${sn}: ${r.res.status}`);
    sns.push(sn);
  }
  const users = size('LOAD_USERS', 10_000);
  for (let from = 1; from <= users; from += 5_000) {
    const batch = Array.from({ length: Math.min(5_000, users - from + 1) }, (_, i) => ({
      pin: from + i,
      first_name: `U${from + i}`,
      last_name: 'Load',
    }));
    const r = await fetchJson(`${app.url}/api/users/import`, jsonBody('POST', batch, bearer(app.token)));
    if (r.res.status !== 200) throw new Error(`import: ${r.res.status}`);
  }
  process.stdout.write(`${JSON.stringify({ url: app.url, token: app.token, sns: sns.length })}\n`);
  const stop = async () => {
    for (const f of teardowns.reverse()) await f();
    process.exit(0);
  };
  process.on('SIGUSR2', () => {
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    process.stdout.write(`${JSON.stringify({ rss: m.rss / 1048576, heap: m.heapUsed / 1048576, actors: app.app.hub.size })}\n`);
  });
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

void main();
