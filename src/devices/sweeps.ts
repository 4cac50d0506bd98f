/** Cluster-wide sweeps of the command lifecycle and of retention (run by the hub's scheduler on one node at a time). */
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { CommandLifecycle } from './lifecycle.js';
import type { RuntimeConfig } from './runtime-config.js';

/** Rows deleted per retention step; the sweep repeats until a step deletes fewer. */
const PRUNE_BATCH = 5_000;
const DAY_MS = 86_400_000;

interface SweepDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly config: RuntimeConfig;
  readonly log: Logger;
  readonly lifecycle: CommandLifecycle;
}

/**
 * Expired pending commands fail; sent commands without a result after the ack timeout fail with
 * "no result from device", except sync ops, which are re-queued up to N times [PUSH-v2 §7.5].
 */
export async function sweepCommands({ store, clock, config, lifecycle }: SweepDeps): Promise<void> {
  const now = clock.now();
  await lifecycle.expire();
  const cutoff = new Date(now.getTime() - config.ackTimeoutS * 1000).toISOString();
  for (const c of await store.commands.sentBefore(cutoff, 500)) {
    // Remote enrolment waits for a person: its own, longer timeout [COMMANDS §4.16].
    if (c.command === 'enroll-biometric' && c.sent_at && now.getTime() - Date.parse(c.sent_at) < 600_000) continue;
    // A composite is sent while its members are; they settle it (lifecycle.settleGroup).
    if (c.group_id === c.id) continue;
    if (c.origin === 'sync' && c.attempts < config.syncRetries) {
      await lifecycle.requeue(c);
      continue;
    }
    for (const child of await store.commands.children(c.id)) {
      await store.commands.finish(child.id, { status: 'failed', error_message: 'no result from device' }, now.toISOString());
    }
    await lifecycle.finish(c, { status: 'failed', error_message: 'no result from device' });
  }
}

/**
 * [API-CONTRACT §7] BIOGATE_RETENTION_DAYS: attendance older than the cutoff and commands finished
 * before it are deleted, in bounded steps so the store is never locked for long. Door and alarm
 * events follow attendance's retention (logged, not in the return value).
 */
export async function pruneRetention({
  store,
  clock,
  config,
  log,
}: SweepDeps): Promise<{ attendance: number; commands: number; records: number }> {
  const total = { attendance: 0, commands: 0, records: 0 };
  if (config.retentionDays <= 0) return total;
  const cutoff = new Date(clock.now().getTime() - config.retentionDays * DAY_MS).toISOString();
  const prune = async (port: { prune(before: string, limit: number): Promise<number> }) => {
    let deleted = 0;
    for (let n = PRUNE_BATCH; n === PRUNE_BATCH; deleted += n) n = await port.prune(cutoff, PRUNE_BATCH);
    return deleted;
  };
  total.attendance = await prune(store.attendance);
  total.commands = await prune(store.commands);
  total.records = await prune(store.deviceRecords);
  const doorEvents = await prune(store.doorEvents);
  if (total.attendance + total.commands + total.records + doorEvents > 0)
    log.info({ cutoff, ...total, doorEvents }, 'retention: old records deleted');
  return total;
}
