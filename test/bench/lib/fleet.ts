// Many simulated terminals (src/simulator, which speaks the protocol on its own), started in small steps
// so thousands of registrations do not arrive in one burst. `startFleet` keeps them in this process
// (small fleets whose terminals a scenario inspects: fanout); `startFleetProcesses` spreads them over
// child processes (./fleet-worker.ts), so a fleet of thousands does not load the event loop that times
// the figures.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  createSimulatedDevice,
  type SimProtocol,
  type SimulatedDevice,
  type SimulatedDeviceOptions,
} from '../../../src/simulator/index.js';
import type { FleetReport, FleetRequest } from './fleet-worker.js';
import { sleep } from './stats.js';

/** What every fleet reports. */
export interface Terminals {
  readonly size: number;
  /** terminals whose last request succeeded with an established session (registered; a v3 terminal then
   *  holds its poll between commands). Not `polls > 0`: a held poll only completes after the hold (8 s). */
  online(): number;
  stop(): Promise<void>;
}

/** A fleet in this process: its terminals can be inspected. */
export interface Fleet extends Terminals {
  readonly devices: readonly SimulatedDevice[];
}

/** What the terminals of a remote fleet hold of some PINs, by their own user tables. */
export interface Census {
  /** terminals holding every one of the PINs */
  readonly holdingAll: number;
  /** terminals holding at least one of them */
  readonly holdingAny: number;
}

/** A fleet in child processes: counts only, the serials online and a census of their user tables when asked. */
export interface RemoteFleet extends Terminals {
  onlineSerials(): Promise<string[]>;
  census(pins: readonly string[]): Promise<Census>;
}

/** The simulator's convergence faults (`biogate simulate --refuse-rate …`), per terminal. */
export type Faults = Pick<SimulatedDeviceOptions, 'refuseRate' | 'loseRate' | 'wipeAfterS' | 'keypadUsers'>;

export interface FleetOptions {
  timeoutMs: number;
  pollDelayMs?: number;
  log?: (line: string) => void;
  /** faults of terminal `i` (default: none) */
  faultsOf?: (i: number) => Faults;
  /** Whole time allowed for starting and waiting: past it no more terminals are started and the
   *  fleet is what came online (the scenario reports how many), so a saturated machine cannot
   *  stretch a run without bound. Default: none. */
  budgetMs?: number;
}

/** One simulated terminal as every bench fleet runs it (here and in ./fleet-worker.ts). */
export const simulated = (url: string, sn: string, protocol: SimProtocol, pollDelayMs: number, faults: Faults = {}): SimulatedDevice =>
  createSimulatedDevice({ url, sn, protocol, pollDelayMs, fast: true, requestTimeoutMs: 60_000, retryDelayMs: 1_000, ...faults });

export async function startFleet(
  url: string,
  serials: readonly string[],
  protocolOf: (i: number) => SimProtocol,
  opts: FleetOptions,
): Promise<Fleet> {
  const devices = serials.map((sn, i) => simulated(url, sn, protocolOf(i), opts.pollDelayMs ?? 1, opts.faultsOf?.(i)));
  let started = 0;
  const fleet: Fleet = {
    devices,
    size: devices.length,
    online: () => devices.reduce((n, d) => n + (d.stats.online ? 1 : 0), 0),
    stop: async () => {
      await Promise.all(devices.map((d) => d.stop()));
    },
  };
  await stagedStart(
    fleet,
    (count) => {
      for (; started < count; started++) devices[started]?.start();
    },
    opts,
  );
  return fleet;
}

/** Terminals per child process: few enough that one process's event loop keeps up with their polls. */
const PER_PROCESS = 2_500;
/** dist/test/bench/lib/fleet-worker.js, next to this file */
const WORKER = fileURLToPath(new URL('./fleet-worker.js', import.meta.url));

export async function startFleetProcesses(
  url: string,
  serials: readonly string[],
  protocol: SimProtocol,
  opts: FleetOptions,
): Promise<RemoteFleet> {
  const slices: string[][] = [];
  for (let i = 0; i < serials.length; i += PER_PROCESS) slices.push(serials.slice(i, i + PER_PROCESS));
  const workers = slices.map((slice) => worker(url, slice, protocol, opts.pollDelayMs ?? 1));
  const fleet: RemoteFleet = {
    size: serials.length,
    online: () => workers.reduce((n, w) => n + w.online, 0),
    onlineSerials: async () => (await Promise.all(workers.map((w) => w.serials()))).flat(),
    census: async (pins) => {
      const parts = await Promise.all(workers.map((w) => w.census(pins)));
      return { holdingAll: parts.reduce((n, c) => n + c.holdingAll, 0), holdingAny: parts.reduce((n, c) => n + c.holdingAny, 0) };
    },
    stop: async () => {
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
  try {
    await stagedStart(
      fleet,
      (count) => {
        workers.forEach((w, k) => w.start(count - k * PER_PROCESS));
      },
      opts,
    );
  } catch (err) {
    await fleet.stop();
    throw err;
  }
  return fleet;
}

interface Worker {
  readonly online: number;
  start(count: number): void;
  serials(): Promise<string[]>;
  census(pins: readonly string[]): Promise<Census>;
  stop(): Promise<void>;
}

function worker(url: string, serials: readonly string[], protocol: SimProtocol, pollDelayMs: number): Worker {
  const child: ChildProcess = fork(WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let online = 0;
  let asked: ((s: string[]) => void)[] = [];
  let counted: ((c: Census) => void)[] = [];
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exit.then(() => {
    exited = true;
    online = 0;
    for (const resolve of asked) resolve([]);
    asked = [];
    for (const resolve of counted) resolve({ holdingAll: 0, holdingAny: 0 });
    counted = [];
  });
  child.on('message', (m: FleetReport) => {
    if (m.op === 'online') online = m.n;
    else if (m.op === 'serials') asked.shift()?.([...m.online]);
    else if (m.op === 'census') counted.shift()?.({ holdingAll: m.holdingAll, holdingAny: m.holdingAny });
  });
  const send = (m: FleetRequest): void => {
    if (!exited && child.connected) child.send(m);
  };
  send({ op: 'init', url, serials, protocol, pollDelayMs });
  let started = 0;
  return {
    get online() {
      return online;
    },
    start(count) {
      const want = Math.min(serials.length, Math.max(0, count));
      if (want > started) send({ op: 'start', count: (started = want) });
    },
    serials() {
      if (exited) return Promise.resolve([]);
      return new Promise<string[]>((resolve) => {
        asked.push(resolve);
        send({ op: 'serials' });
      });
    },
    census(pins) {
      if (exited) return Promise.resolve({ holdingAll: 0, holdingAny: 0 });
      return new Promise<Census>((resolve) => {
        counted.push(resolve);
        send({ op: 'census', pins });
      });
    },
    async stop() {
      send({ op: 'stop' });
      // Its terminals' requests are aborted at once; a worker that does not exit in 30 s is killed.
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/**
 * Started in steps of 200, each given until 90 % of everything started so far is online (at most
 * `stepMs`), so thousands of registrations do not arrive in one burst. At scale some held polls drop
 * and retry (the terminal is offline for its retry delay), so the end is "all online" or, after
 * `timeoutMs`, the count reached: the figures report how many were online, they do not hide it.
 */
async function stagedStart(fleet: Terminals, startUpTo: (count: number) => void, opts: FleetOptions): Promise<void> {
  const endBy = Date.now() + (opts.budgetMs ?? Number.POSITIVE_INFINITY);
  const step = 200;
  const stepMs = 30_000;
  let started = 0;
  for (let i = 0; i < fleet.size && Date.now() < endBy; i += step) {
    started = Math.min(fleet.size, i + step);
    startUpTo(started);
    const want = started * 0.9;
    const until = Math.min(endBy, Date.now() + stepMs);
    while (fleet.online() < want && Date.now() < until) await sleep(25);
    if (i > 0 && (i / step) % 10 === 0) opts.log?.(`    ${fleet.online()} of ${fleet.size} terminals online`);
  }
  if (started < fleet.size)
    opts.log?.(`    budget of ${((opts.budgetMs ?? 0) / 1000).toFixed(0)} s spent: ${started} of ${fleet.size} terminals started`);
  const until = Math.min(endBy, Date.now() + opts.timeoutMs);
  while (fleet.online() < started && Date.now() < until) await sleep(25);
  if (fleet.online() === 0) {
    await fleet.stop();
    throw new Error(`none of ${fleet.size} terminals came online`);
  }
  if (fleet.online() < fleet.size) opts.log?.(`    only ${fleet.online()} of ${fleet.size} terminals online; going on`);
  // The last ones registered now send their first poll.
  await sleep(500);
}

/** RLIMIT_NOFILE of this process (the gateway inherits it): an upper bound on held connections. */
export function openFileLimit(): number {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return !m || m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1]);
}
