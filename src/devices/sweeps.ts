/** Cluster-wide sweeps of the command lifecycle and of retention (run by the hub's scheduler on one node at a time). */
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { Command } from '../store/ports/index.js';
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

/** Sent commands looked at per sweep page; pages continue while full (up to SWEEP_PAGES). */
const SWEEP_PAGE = 500;
const SWEEP_PAGES = 40;

/** A roster sync op (`sync-users` lane): owed until confirmed or the terminal is unassigned (issue #31). */
const isUserSyncOp = (c: Command) => c.origin === 'sync' && c.command === 'sync-users';

/**
 * Back-off of an owed sync op before its next send: the ack timeout, doubled per earlier send, at
 * most BIOGATE_SYNC_RETRY_MAX_S. Without a limit on the number of sends [PUSH-v2 §7.5].
 */
export function syncBackoffMs(config: Pick<RuntimeConfig, 'ackTimeoutS' | 'syncRetryMaxS'>, attempts: number): number {
  return Math.min(config.syncRetryMaxS, config.ackTimeoutS * 2 ** Math.min(attempts, 20)) * 1000;
}

/** The first re-send of a refused line waits this long; then twice as long per send (refusalBackoffMs). */
const REFUSAL_FIRST_RETRY_MS = 1_000;

/**
 * Back-off of a sync op the terminal refused (it answered: no ack timeout to wait out) before it is
 * sent again: a second, doubled per earlier send, at most BIOGATE_SYNC_RETRY_MAX_S. A refusal such as a
 * read/write error (−3) is often transient; one that is not is sent again ever more rarely.
 */
export function refusalBackoffMs(config: Pick<RuntimeConfig, 'syncRetryMaxS'>, attempts: number): number {
  return Math.min(config.syncRetryMaxS * 1000, REFUSAL_FIRST_RETRY_MS * 2 ** Math.min(attempts, 20));
}

/**
 * How often the command sweep runs: every 10 s, or every half ack timeout when that is shorter (at
 * least every 2 s), so a result that never came is acted on within half a timeout of its deadline
 * rather than up to 10 s after it (a short BIOGATE_ACK_TIMEOUT_S would otherwise be mostly the sweep's wait).
 */
export const commandSweepEveryMs = (ackTimeoutS: number): number => Math.max(2_000, Math.min(10_000, (ackTimeoutS * 1000) / 2));

/**
 * Expired pending commands fail (sync revocations carry no expiry: sync/queue.ts); sent commands
 * without a result after the ack timeout fail with "no result from device", except sync ops:
 * `sync-users` ops (unconfirmed, or refused by the terminal) are sent again once their back-off has
 * passed, without limit, while the terminal stays assigned to their location; other sync ops
 * (time-sync) are re-queued up to `syncRetries` times.
 */
export async function sweepCommands({ store, clock, config, lifecycle }: SweepDeps): Promise<void> {
  const now = clock.now();
  await lifecycle.expire();
  const cutoff = new Date(now.getTime() - config.ackTimeoutS * 1000).toISOString();
  const locations = new Map<string, number | null>();
  const locationOf = async (sn: string) => {
    if (!locations.has(sn)) locations.set(sn, (await store.devices.getBySerial(sn))?.location_id ?? null);
    return locations.get(sn);
  };
  const fail = async (c: Command, message: string) => {
    for (const child of await store.commands.children(c.id)) {
      await store.commands.finish(child.id, { status: 'failed', error_message: message }, now.toISOString());
    }
    await lifecycle.finish(c, { status: 'failed', error_message: message });
  };
  let after: Command | undefined;
  for (let page = 0; page < SWEEP_PAGES; page++) {
    const sent = await store.commands.sentBefore(cutoff, SWEEP_PAGE, after);
    for (const c of sent) {
      // Remote enrolment waits for a person: its own, longer timeout [COMMANDS §4.16].
      if (c.command === 'enroll-biometric' && c.sent_at && now.getTime() - Date.parse(c.sent_at) < 600_000) continue;
      // A composite is sent while its members are; they settle it (lifecycle.settleGroup).
      if (c.group_id === c.id) continue;
      if (isUserSyncOp(c)) {
        // Owed only to the location the terminal serves: unassigned or moved, the op ends.
        if (c.location_id === null || (await locationOf(c.sn)) !== c.location_id) await fail(c, 'device unassigned');
        else if (now.getTime() - Date.parse(c.sent_at ?? cutoff) >= syncBackoffMs(config, c.attempts)) await lifecycle.requeue(c);
        continue;
      }
      if (c.origin === 'sync' && c.attempts < config.syncRetries) {
        await lifecycle.requeue(c);
        continue;
      }
      await fail(c, 'no result from device');
    }
    if (sent.length < SWEEP_PAGE) break;
    after = sent[sent.length - 1];
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
