// Many simulated terminals (src/simulator, which speaks the protocol on its own) in this process,
// started in small steps so thousands of registrations do not arrive in one burst.
import { readFileSync } from 'node:fs';
import { createSimulatedDevice, type SimProtocol, type SimulatedDevice } from '../../../src/simulator/index.js';
import { sleep } from './stats.js';

export interface Fleet {
  readonly devices: readonly SimulatedDevice[];
  /** terminals whose last request succeeded with an established session (registered; a v3 terminal then
   *  holds its poll between commands). Not `polls > 0`: a held poll only completes after the hold (8 s). */
  online(): number;
  stop(): Promise<void>;
}

export async function startFleet(
  url: string,
  serials: readonly string[],
  protocolOf: (i: number) => SimProtocol,
  opts: {
    timeoutMs: number;
    pollDelayMs?: number;
    log?: (line: string) => void;
    /** Whole time allowed for starting and waiting: past it no more terminals are started and the
     *  fleet is what came online (the scenario reports how many), so a saturated machine cannot
     *  stretch a run without bound. Default: none. */
    budgetMs?: number;
  },
): Promise<Fleet> {
  const endBy = Date.now() + (opts.budgetMs ?? Number.POSITIVE_INFINITY);
  const devices = serials.map((sn, i) =>
    createSimulatedDevice({ url, sn, protocol: protocolOf(i), pollDelayMs: opts.pollDelayMs ?? 1, fast: true, requestTimeoutMs: 60_000, retryDelayMs: 1_000 }));
  const fleet: Fleet = {
    devices,
    online: () => devices.reduce((n, d) => n + (d.stats.online ? 1 : 0), 0),
    stop: async () => {
      await Promise.all(devices.map((d) => d.stop()));
    },
  };
  // Started in steps of 200, each given until 90 % of everything started so far is online (at most
  // `stepMs`), so thousands of registrations do not arrive in one burst. At scale some held polls drop
  // and retry (the terminal is offline for its retry delay), so the end is "all online" or, after
  // `timeoutMs`, the count reached: the figures report how many were online, they do not hide it.
  const step = 200;
  const stepMs = 30_000;
  let started = 0;
  for (let i = 0; i < devices.length && Date.now() < endBy; i += step) {
    for (const d of devices.slice(i, i + step)) d.start();
    started = Math.min(devices.length, i + step);
    const want = started * 0.9;
    const until = Math.min(endBy, Date.now() + stepMs);
    while (fleet.online() < want && Date.now() < until) await sleep(25);
    if (i > 0 && (i / step) % 10 === 0) opts.log?.(`    ${fleet.online()} of ${devices.length} terminals online`);
  }
  if (started < devices.length) opts.log?.(`    budget of ${((opts.budgetMs ?? 0) / 1000).toFixed(0)} s spent: ${started} of ${devices.length} terminals started`);
  const until = Math.min(endBy, Date.now() + opts.timeoutMs);
  while (fleet.online() < started && Date.now() < until) await sleep(25);
  if (fleet.online() === 0) {
    await fleet.stop();
    throw new Error(`none of ${devices.length} terminals came online`);
  }
  if (fleet.online() < devices.length) opts.log?.(`    only ${fleet.online()} of ${devices.length} terminals online; going on`);
  // The last ones registered now send their first poll.
  await sleep(500);
  return fleet;
}

/** RLIMIT_NOFILE of this process (the gateway inherits it): an upper bound on held connections. */
export function openFileLimit(): number {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return !m || m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1]);
}
