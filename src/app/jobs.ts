/**
 * The periodic store jobs the Hub runs as singletons (one node runs each at a time): event pruning
 * behind webhook cursors, webhook delivery, eviction of unassigned terminals, the raw-record quota, the
 * retention of punch photos and of the audit log, alert rules, the location counts kept on MongoDB.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { ALERT_EVERY_MS, evaluateAlerts } from '../alerts/evaluate.js';
import { pruneAuditLog } from '../audit-log/retention.js';
import type { EventBus } from '../events/bus.js';
import { evictUnassigned } from '../devices/assignment.js';
import type { SingletonJob } from '../devices/scheduler.js';
import { createEventPrune } from '../events/prune.js';
import { expirePunchPhotos, trimToQuota } from '../locations/quotas.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { WebhookDispatcher } from '../webhooks/dispatcher.js';

export interface JobDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: Config;
  readonly webhooks: WebhookDispatcher;
  /** Where the alerts job announces the incidents it raises and clears. */
  readonly bus: EventBus;
}

export function backgroundJobs({ store, clock, log, config, webhooks, bus }: JobDeps): SingletonJob[] {
  const prune = createEventPrune({
    store,
    clock,
    log,
    retentionS: config.eventsRetentionS,
    keep: config.eventsKeep,
    holdMaxS: config.eventsHoldMaxS,
  });
  return [
    { name: 'events-prune', everyMs: 60_000, run: prune },
    webhooks.job,
    { name: 'unassigned-evict', everyMs: 3_600_000, run: () => evictUnassigned({ store, log }, clock.now()) },
    { name: 'records-quota', everyMs: 600_000, run: () => trimToQuota(store, config.quotaRecords) },
    { name: 'punch-photo-retention', everyMs: 3_600_000, run: () => expirePunchPhotos(store, clock.now()) },
    // Alert rules are evaluated on one node at a time (the lease); raising and clearing are compare-and-set besides.
    { name: 'alerts', everyMs: ALERT_EVERY_MS, run: () => evaluateAlerts({ store, bus, clock, log }) },
    { name: 'audit-retention', everyMs: 3_600_000, run: () => pruneAuditLog(store, clock.now(), config.auditRetentionDays) },
    // The shown counts where a crash can leave them off (MongoDB): a difference seen on two rounds is corrected.
    { name: 'location-counts', everyMs: 600_000, run: () => reconcileCounts(store, log) },
  ];
}

async function reconcileCounts(store: Store, log: Logger): Promise<void> {
  const fixed = await store.locations.reconcileCounts();
  if (fixed > 0) log.warn({ locations: fixed }, 'location counts were off (a write interrupted before its count): corrected');
}
