// The earlier in-process benches, reachable as scenarios: `codec` (decoder vs a bare split loop, in
// this process, part of the default run) and the longer ones, each run as its own process with its own
// output (`sync-fanout`, `event-loop`, `poll-memory`, `cluster-wake`; by name only: `fanout` and
// `poll` cover the first two's ground from outside the process).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { run as codecRun } from '../codec-decode.bench.js';
import type { Context, Scenario } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';

const codec: Scenario = {
  name: 'codec',
  description: 'v2 decoder (ATTLOG, BIODATA) in-process vs a bare split loop over the same bytes',
  inDefault: true,
  run(ctx: Context): Promise<Figure[]> {
    return Promise.resolve(
      codecRun(ctx.smoke ? { rounds: 1, minMs: 20, warmupCalls: 2 } : {}).map((c) =>
        figure('codec', `${c.title} (baseline: bare split loop)`, c.candidate.unitsPerSecond, 'records/s', {
          baseline: c.baseline.unitsPerSecond,
        }),
      ),
    );
  },
};

function spawned(name: string, file: string, description: string, nodeArgs: readonly string[] = []): Scenario {
  return {
    name,
    description,
    inDefault: false,
    async run(ctx: Context): Promise<Figure[]> {
      const t0 = performance.now();
      const code = await new Promise<number | null>((resolve) => {
        const p = spawn(process.execPath, [...nodeArgs, fileURLToPath(new URL(`../${file}`, import.meta.url))], {
          stdio: ['ignore', 'inherit', 'inherit'],
          env: {
            ...process.env,
            ...(ctx.smoke ? { BENCH_USERS: '200', BENCH_POLLS: '2000', BENCH_WAKE_SAMPLES: '10', BENCH_UPLOAD_MB: '1' } : {}),
          },
        });
        p.once('exit', resolve);
      });
      if (code !== 0) throw new Error(`${file} exited with ${code}`);
      return [figure(name, `${file} completed (its own figures are printed above)`, (performance.now() - t0) / 1000, 's')];
    },
  };
}

export const microScenarios: readonly Scenario[] = [
  codec,
  spawned('sync-fanout', 'sync-fanout.bench.js', 'in-process sync fan-out vs 2 terminals and the bare queueing floor'),
  spawned('event-loop', 'event-loop.bench.js', '/healthz latency during an 8 MiB upload and a 10,000-user import'),
  spawned('poll-memory', 'poll-memory.bench.js', 'memory under 50,000 polls vs /healthz', ['--expose-gc']),
  spawned('cluster-wake', 'cluster-wake.bench.js', 'cross-node command wake-up through the MongoDB change stream'),
];
