/**
 * Periodic work of the device runtime. Node-local work runs on every node; cluster-wide work runs on
 * one node at a time, whoever holds the job's lease `job:<name>`. The lease outlives one run (twice
 * the period, 30 s to 10 min), so the holder keeps it while alive and another node takes over once
 * it stops renewing. Timers are unref'd: they never keep the process alive. A run that fails is
 * logged and the next one runs on time; during a store outage that is a warning, not a bug.
 */
import type { Clock } from '../clock.js';
import { BioGateError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';

/** Periodic work that must run on one node at a time. */
export interface SingletonJob {
  readonly name: string;
  readonly everyMs: number;
  readonly run: () => Promise<unknown>;
}

export interface Scheduler {
  /** Runs `fn` every `ms` on this node. */
  every(ms: number, fn: () => Promise<unknown> | void): void;
  /** Runs the job every `everyMs` on the node holding its lease. */
  singleton(job: SingletonJob): void;
  stop(): void;
}

export function createScheduler(deps: {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly node: string;
}): Scheduler {
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, fn: () => Promise<unknown> | void) => {
    const t = setInterval(() => {
      Promise.resolve(fn()).catch((err: unknown) => {
        if (err instanceof BioGateError && err.code === 'STORE_UNAVAILABLE')
          deps.log.warn({ code: err.code }, 'device runtime timer skipped: store unavailable');
        else deps.log.error({ err }, 'device runtime timer failed');
      });
    }, ms);
    t.unref();
    timers.push(t);
  };
  return {
    every,
    singleton: ({ name, everyMs, run }) =>
      every(everyMs, async () => {
        const now = deps.clock.now().getTime();
        const ttl = Math.min(Math.max(2 * everyMs, 30_000), 600_000);
        const held = await deps.store.cluster.acquireLease(
          `job:${name}`,
          deps.node,
          new Date(now).toISOString(),
          new Date(now + ttl).toISOString(),
        );
        if (held) await run();
      }),
    stop: () => {
      for (const t of timers.splice(0)) clearInterval(t);
    },
  };
}
