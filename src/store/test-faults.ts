/**
 * A fault hook for tests, in the real adapter (not a mock): with BIOGATE_TEST_FAULTS set when the
 * store opens, each listed store method (`commands.enqueueSync`, comma-separated) throws while the
 * variable lists it, read on every call, so a test can switch a fault on and off around one step
 * (e.g. the sync ops of a user write, to show the outbox recovers them after a restart; the feed's
 * append after the data it describes, `cluster.appendEvents`; an audit entry, `auditLog.append`).
 * `commands.pending:hold` instead holds a mailbox read until the variable no longer lists it (`heldCalls` counts
 * the reads waiting), so a test can put writes between a poll's device read and its mailbox read.
 * Unset (production), the store is returned as it is.
 */
import type { Store } from './types.js';

export const TEST_FAULTS_ENV = 'BIOGATE_TEST_FAULTS';

export class InjectedFault extends Error {
  constructor(what: string) {
    super(`injected test fault: ${what}`);
    this.name = 'InjectedFault';
  }
}

const active = (what: string): boolean =>
  (process.env[TEST_FAULTS_ENV] ?? '')
    .split(',')
    .map((s) => s.trim())
    .includes(what);

let held = 0;
/** Store calls waiting on a `:hold` fault. */
export const heldCalls = (): number => held;

async function hold(what: string): Promise<void> {
  if (!active(what)) return;
  held++;
  try {
    while (active(what)) await new Promise((resolve) => setTimeout(resolve, 5));
  } finally {
    held--;
  }
}

export function withTestFaults(store: Store): Store {
  if (process.env[TEST_FAULTS_ENV] === undefined) return store;
  const { commands, cluster, auditLog } = store;
  const enqueueSync: typeof commands.enqueueSync = async (ops, now) => {
    if (active('commands.enqueueSync')) throw new InjectedFault('commands.enqueueSync');
    return commands.enqueueSync(ops, now);
  };
  const appendEvents: typeof cluster.appendEvents = async (events, settle) => {
    if (active('cluster.appendEvents')) throw new InjectedFault('cluster.appendEvents');
    return cluster.appendEvents(events, settle);
  };
  const append: typeof auditLog.append = async (entries) => {
    if (active('auditLog.append')) throw new InjectedFault('auditLog.append');
    return auditLog.append(entries);
  };
  const pending: typeof commands.pending = async (sn, limit) => {
    await hold('commands.pending:hold');
    return commands.pending(sn, limit);
  };
  // Ports are plain objects of closures: a copy with one method replaced is the same adapter.
  return {
    ...store,
    commands: { ...commands, enqueueSync, pending },
    cluster: { ...cluster, appendEvents },
    auditLog: { ...auditLog, append },
  };
}
