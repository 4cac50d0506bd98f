// `export`: GET /healthz latency while one GET /api/attendance.csv of 1,000,000 punches streams (issue
// #32: one export of 200,000 punches used to hold /healthz for 35 s). The punches are seeded through the
// store before the gateway starts; the export is read as fast as this process can take it, and its lines
// are counted (header + every punch). /healthz is probed from a worker thread (one request at a time,
// every 5 ms; the probes that start while the export runs count), so reading the CSV here does not delay
// the probe's own timing. Baseline: the same probe against the idle gateway for 3 s, same run.
// Target: p99 ≤ 50 ms during the export.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { openStore } from '../../../src/store/open.js';
import type { NewAttendance } from '../../../src/store/ports/index.js';
import type { Context, Scenario } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { withGateway } from '../lib/gateway.js';
import { quantile, sleep } from '../lib/stats.js';

async function seedPunches(storeUrl: string, locationId: number, punches: number): Promise<void> {
  const store = await openStore(storeUrl);
  try {
    const start = Date.UTC(2025, 0, 1);
    const createdAt = new Date(Date.now() - 3_600_000).toISOString(); // settled on MongoDB
    for (let from = 0; from < punches; from += 5000) {
      const batch = Array.from({ length: Math.min(5000, punches - from) }, (_, j): NewAttendance => {
        const i = from + j;
        const ts = new Date(start + i * 30_000).toISOString();
        return {
          location_id: locationId,
          sn: `EXP${String(i % 20).padStart(5, '0')}`,
          pin: String(1000 + (i % 10_000)),
          user_id: null,
          timestamp: ts,
          local_time: ts.slice(0, 19).replace('T', ' '),
          status: i % 2,
          verify: 1,
          work_code: null,
        };
      });
      await store.attendance.record(batch, createdAt);
    }
  } finally {
    await store.close();
  }
}

/**
 * The prober: GET /healthz one at a time every 5 ms until told to stop. It says `ready` after its first
 * answer (fetch's first request sets up its client), then posts [start (epoch ms), latency (ms)] pairs.
 */
const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
let running = true;
const samples = [];
parentPort.on('message', () => { running = false; });
(async () => {
  while (running) {
    const t0 = performance.now();
    const res = await fetch(workerData.url + '/healthz');
    await res.arrayBuffer();
    if (samples.length === 0) parentPort.postMessage('ready');
    samples.push([performance.timeOrigin + t0, performance.now() - t0]);
    await new Promise((r) => setTimeout(r, 5));
  }
  parentPort.postMessage(samples);
})();
`;

/** /healthz latencies (ms) of the probes that started while `job` ran. */
async function probeDuring(url: string, job: () => Promise<void>): Promise<number[]> {
  const worker = new Worker(PROBER, { eval: true, workerData: { url } });
  const messages: unknown[] = [];
  let wake: (() => void) | undefined;
  worker.on('message', (m: unknown) => {
    messages.push(m);
    wake?.();
  });
  const next = async (): Promise<unknown> => {
    while (messages.length === 0) {
      await new Promise<void>((resolve, reject) => {
        wake = resolve;
        worker.once('error', reject);
      });
    }
    return messages.shift();
  };
  try {
    if ((await next()) !== 'ready') throw new Error('prober: no first answer');
    const from = performance.timeOrigin + performance.now();
    await job();
    const to = performance.timeOrigin + performance.now();
    worker.postMessage('stop');
    const samples = (await next()) as [number, number][];
    return samples.filter(([start]) => start >= from && start <= to).map(([, ms]) => ms);
  } finally {
    await worker.terminate();
  }
}

export const exportScenario: Scenario = {
  name: 'export',
  description:
    'GET /healthz p99 while one GET /api/attendance.csv of 1,000,000 punches streams (seeded through the store), vs /healthz alone',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const punches = ctx.smoke ? 5_000 : 1_000_000;
    const label = punches.toLocaleString('en-US');
    return withGateway({ store: ctx.store, engine: ctx.engine, before: (url, loc) => seedPunches(url, loc, punches) }, async (gw) => {
      // A warm-up: a small export (the first day), so the figure is not the first request's compilation.
      const warm = await fetch(`${gw.url}/api/attendance.csv?to=2025-01-01`, { headers: { authorization: `Bearer ${gw.token}` } });
      if (warm.status !== 200) throw new Error(`warm-up export: HTTP ${warm.status}`);
      await warm.arrayBuffer();
      const idle = await probeDuring(gw.url, () => sleep(ctx.smoke ? 300 : 3000));
      let lines = 0;
      let bytes = 0;
      let exportMs = 0;
      const during = await probeDuring(gw.url, async () => {
        const t0 = performance.now();
        const res = await fetch(`${gw.url}/api/attendance.csv`, {
          headers: { authorization: `Bearer ${gw.token}` },
          signal: AbortSignal.timeout(1_800_000),
        });
        if (res.status !== 200 || !res.body) throw new Error(`GET /api/attendance.csv: HTTP ${res.status}`);
        for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
          bytes += chunk.byteLength;
          for (const b of chunk) if (b === 10) lines++;
        }
        exportMs = performance.now() - t0;
      });
      if (lines !== punches + 1) throw new Error(`the export held ${lines - 1} punches, not ${punches}`);
      const note =
        `${label} punches (${(bytes / 1e6).toFixed(0)} MB of CSV) exported in ${(exportMs / 1000).toFixed(1)} s; ` +
        `/healthz probed ${during.length} times during it (max ${Math.max(...during).toFixed(1)} ms), ${idle.length} times idle`;
      return [
        figure('export', `GET /healthz p99 during an export of ${label} punches`, quantile(during, 0.99), 'ms', {
          baseline: quantile(idle, 0.99),
          target: { on: 'value', goal: { atMost: 50 }, text: '≤ 50 ms' },
          note,
        }),
        figure('export', `CSV export of ${label} punches`, punches / (exportMs / 1000), 'records/s', { note }),
      ];
    });
  },
};
