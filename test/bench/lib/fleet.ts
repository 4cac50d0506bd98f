// Many simulated terminals (src/simulator, which speaks the protocol on its own) in this process,
// started in small steps so thousands of registrations do not arrive in one burst.
import { readFileSync } from 'node:fs';
import { createSimulatedDevice, type SimProtocol, type SimulatedDevice } from '../../../src/simulator/index.js';
import { sleep, waitFor } from './stats.js';

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
  opts: { timeoutMs: number; pollDelayMs?: number; log?: (line: string) => void },
): Promise<Fleet> {
  const devices = serials.map((sn, i) =>
    createSimulatedDevice({ url, sn, protocol: protocolOf(i), pollDelayMs: opts.pollDelayMs ?? 1, fast: true, requestTimeoutMs: 60_000, retryDelayMs: 1_000 }));
  const fleet: Fleet = {
    devices,
    online: () => devices.reduce((n, d) => n + (d.stats.online ? 1 : 0), 0),
    stop: async () => {
      await Promise.all(devices.map((d) => d.stop()));
    },
  };
  try {
    const step = 200;
    for (let i = 0; i < devices.length; i += step) {
      for (const d of devices.slice(i, i + step)) d.start();
      // Let a step's registrations through before the next (the gateway answers them in a few ms each).
      await waitFor(`terminals ${i}–${i + step} to come online`, () => fleet.online() >= Math.min(devices.length, i + step) * 0.9, opts.timeoutMs, 25);
      if (i > 0 && (i / step) % 10 === 0) opts.log?.(`    ${fleet.online()} of ${devices.length} terminals online`);
    }
    await waitFor(`all ${devices.length} terminals online`, () => fleet.online() === devices.length, opts.timeoutMs, 25);
    // The last ones registered now send their first poll.
    await sleep(500);
  } catch (err) {
    await fleet.stop();
    throw err;
  }
  return fleet;
}

/** RLIMIT_NOFILE of this process (the gateway inherits it): an upper bound on held connections. */
export function openFileLimit(): number {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return !m || m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1]);
}
