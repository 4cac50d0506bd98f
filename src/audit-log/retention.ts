/** The audit log's retention (BIOGATE_AUDIT_RETENTION_DAYS): a singleton job deletes what is older, in bounded batches. */
import type { Store } from '../store/types.js';

const DAY_MS = 86_400_000;
/** Entries deleted per store call; the job yields between calls. */
export const AUDIT_PRUNE_BATCH = 1_000;

/** Deletes every entry older than `days` before `now`; how many went. */
export async function pruneAuditLog(store: Store, now: Date, days: number): Promise<number> {
  const before = new Date(now.getTime() - days * DAY_MS).toISOString();
  let total = 0;
  for (;;) {
    const n = await store.auditLog.prune(before, AUDIT_PRUNE_BATCH);
    total += n;
    if (n < AUDIT_PRUNE_BATCH) return total;
  }
}
