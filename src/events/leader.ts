/**
 * Leadership for work that must happen once per cluster while it runs continuously (publishing the
 * feed to an external MQTT broker, say), as opposed to periodic jobs (Hub SingletonJob). The node
 * holding the store lease `name` leads; it renews every third of the lease, and a node that stops
 * renewing (dies, loses the store) is replaced once the lease runs out. `isLeader()` is answered from
 * memory; `onChange` tells the consumer to start or stop (and where to resume: the feed keeps events).
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';

export interface Leadership {
  isLeader(): boolean;
  /** Called with true when this node became leader, false when it stopped being one. */
  onChange(listener: (leader: boolean) => void): () => void;
  start(): Promise<void>;
  /** Tries for the lease now (another node said it let go), instead of at the next renewal. */
  renewNow(): Promise<void>;
  /** Gives the lease up and stops renewing; `released` is then called so the others can be told. */
  stop(): Promise<void>;
}

export function createLeadership(deps: {
  store: Store;
  clock: Clock;
  log: Logger;
  node: string;
  name: string;
  leaseMs?: number;
  /** After a leader let go of the lease (stop): tell the other nodes, so one takes over at once. */
  released?: () => Promise<void>;
}): Leadership {
  const leaseMs = deps.leaseMs ?? 15_000;
  const name = `leader:${deps.name}`;
  const listeners = new Set<(leader: boolean) => void>();
  let leader = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let started = false;

  const set = (value: boolean) => {
    if (value === leader) return;
    leader = value;
    deps.log.info({ role: deps.name, leader }, leader ? 'this node now leads' : 'this node no longer leads');
    for (const l of listeners) {
      try {
        l(value);
      } catch (err) {
        deps.log.error({ err, role: deps.name }, 'leadership listener failed');
      }
    }
  };

  const renew = async () => {
    if (stopped || !started) return;
    const now = deps.clock.now().getTime();
    try {
      set(await deps.store.cluster.acquireLease(name, deps.node, new Date(now).toISOString(), new Date(now + leaseMs).toISOString()));
    } catch (err) {
      // Cannot tell whether the lease still holds: step down rather than risk two leaders.
      deps.log.warn({ err, role: deps.name }, 'leadership lease could not be renewed');
      set(false);
    }
  };

  return {
    isLeader: () => leader,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      started = true;
      await renew();
      timer = setInterval(() => void renew(), Math.max(1_000, Math.floor(leaseMs / 3)));
      timer.unref();
    },
    renewNow: renew,
    async stop() {
      stopped = true;
      clearInterval(timer);
      const was = leader;
      set(false);
      if (!was) return;
      await deps.store.cluster.releaseLease(name, deps.node).catch(() => undefined);
      await deps
        .released?.()
        .catch((err: unknown) => deps.log.warn({ err, role: deps.name }, 'could not tell the other nodes that leadership is free'));
    },
  };
}
