// A fleet of simulated terminals against one server, for load tests and benchmarks.

import { createSimulatedDevice } from './device.js';
import { createRng } from './rng.js';
import { formatProgress, summarize } from './summary.js';
import type { SimulationSummary } from './summary.js';
import type { SimFaults, SimProtocol, SimulatedDevice } from './types.js';

export interface SimulationOptions {
  url: string;
  devices: number;
  protocol: SimProtocol | 'mixed';
  /** serial numbers are the prefix plus a zero-padded number from 1 (`SIM0001`) */
  snPrefix: string;
  /** run time; without it the run lasts until `signal` aborts */
  durationS?: number;
  /** attendance punches per minute across the whole fleet, spread over random online devices */
  punchesPerMinute?: number;
  fast?: boolean;
  /** convergence faults of every terminal (SimulatedDeviceOptions refuseRate, loseRate, wipeAfterS, keypadUsers) */
  faults?: SimFaults;
  pollDelayMs?: number;
  requestTimeoutMs?: number;
  retryDelayMs?: number;
  seed?: number;
  /** receives a progress line every `progressIntervalMs` (default 2000) */
  progress?: (line: string) => void;
  progressIntervalMs?: number;
  signal?: AbortSignal;
}

export type { SimulationSummary };

/** The faults that were given (exactOptionalPropertyTypes: no undefined values). */
function definedFaults(f: SimFaults = {}): SimFaults {
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as SimFaults;
}

export const MAX_DEVICES = 10_000;

/** Start the devices, punch at the requested rate, report progress, stop them and summarise. */
export async function runSimulation(opts: SimulationOptions): Promise<SimulationSummary> {
  if (!Number.isInteger(opts.devices) || opts.devices < 1 || opts.devices > MAX_DEVICES) {
    throw new RangeError(`devices must be an integer from 1 to ${MAX_DEVICES}: ${opts.devices}`);
  }
  if (opts.durationS !== undefined && !(opts.durationS > 0)) throw new RangeError(`durationS must be positive: ${opts.durationS}`);
  const rate = opts.punchesPerMinute ?? 0;
  if (!(rate >= 0)) throw new RangeError(`punchesPerMinute must not be negative: ${rate}`);
  const seed = opts.seed ?? 1;
  const width = Math.max(4, String(opts.devices).length);
  const devices: SimulatedDevice[] = Array.from({ length: opts.devices }, (_, i) =>
    createSimulatedDevice({
      url: opts.url,
      sn: `${opts.snPrefix}${String(i + 1).padStart(width, '0')}`,
      protocol: opts.protocol === 'mixed' ? (i % 2 === 0 ? 'v2' : 'v3') : opts.protocol,
      seed: seed + i,
      ...(opts.fast === undefined ? {} : { fast: opts.fast }),
      ...(opts.pollDelayMs === undefined ? {} : { pollDelayMs: opts.pollDelayMs }),
      ...(opts.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: opts.requestTimeoutMs }),
      ...(opts.retryDelayMs === undefined ? {} : { retryDelayMs: opts.retryDelayMs }),
      ...definedFaults(opts.faults),
    }),
  );

  const started = Date.now();
  const timers: NodeJS.Timeout[] = [];
  const done = new Promise<void>((resolve) => {
    if (opts.signal?.aborted === true) resolve();
    opts.signal?.addEventListener('abort', () => resolve(), { once: true });
    if (opts.durationS !== undefined) timers.push(setTimeout(resolve, opts.durationS * 1000));
  });

  for (const d of devices) d.start();

  if (rate > 0) {
    const rng = createRng(seed);
    let punched = 0;
    timers.push(
      setInterval(
        () => {
          const due = Math.floor((rate * (Date.now() - started)) / 60_000) - punched;
          for (let i = 0; i < due; i++) {
            punched++;
            const device = devices[rng.int(devices.length)] as SimulatedDevice;
            if (!device.stats.online) continue;
            const pins = [...device.users().keys()];
            const pin = pins.length > 0 ? (pins[rng.int(pins.length)] as string) : String(1 + rng.int(1000));
            // failures are counted in the device's stats and the record is re-sent later
            device.punch(pin, new Date(), rng.int(2), 1).catch(() => false);
          }
        },
        Math.min(1000, Math.max(10, Math.floor(60_000 / rate))),
      ),
    );
  }
  const progress = opts.progress;
  if (progress !== undefined) {
    timers.push(setInterval(() => progress(formatProgress(summarize(devices, Date.now() - started))), opts.progressIntervalMs ?? 2000));
  }

  await done;
  for (const t of timers) clearTimeout(t);
  // online is what the fleet looked like at the end of the run, before stopping it
  const online = devices.filter((d) => d.stats.online).length;
  await Promise.all(devices.map((d) => d.stop()));
  return { ...summarize(devices, Date.now() - started), online };
}
