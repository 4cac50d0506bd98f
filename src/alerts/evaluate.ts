/**
 * One round of alert rules (issue #36 item 4): every enabled rule's condition is read (./kinds.ts) and compared with
 * its open incidents; a key newly in the condition is raised, an open one no longer in it is cleared, each announced
 * as `alert.raised` / `alert.cleared`. Run by the `alerts` singleton job, one node of the cluster at a time; raising
 * and clearing are compare-and-set in the store, so even two rounds at once announce each incident once.
 */
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../log.js';
import type { AlertIncident, AlertRule, Device } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { EVALUATE, type KindContext } from './kinds.js';

/** How often the job runs: a condition is seen within this of holding (plus the rule's own minutes). */
export const ALERT_EVERY_MS = 15_000;

export interface AlertDeps {
  readonly store: Store;
  readonly bus: EventBus;
  readonly clock: Clock;
  readonly log: Logger;
}

export async function evaluateAlerts({ store, bus, clock, log }: AlertDeps): Promise<{ raised: number; cleared: number }> {
  const now = clock.now();
  const rules = await store.alerts.listEnabled();
  const open = await store.alerts.open(rules.map((r) => r.id));
  const devices = new Map<number, Promise<readonly Device[]>>();
  let raised = 0;
  let cleared = 0;
  for (const rule of rules) {
    const ctx: KindContext = {
      store,
      now,
      devices: () => devices.get(rule.location_id) ?? setGet(devices, rule.location_id, store.devices.listAssigned(rule.location_id)),
    };
    let found;
    try {
      found = await EVALUATE[rule.kind](ctx, rule);
    } catch (err) {
      log.warn({ err, location: rule.location_id, rule: rule.id }, 'alert rule could not be evaluated');
      continue;
    }
    const mine = open.filter((i) => i.rule_id === rule.id);
    for (const [key, detail] of found) {
      if (mine.some((i) => i.key === key)) continue;
      const incident: AlertIncident = { rule_id: rule.id, location_id: rule.location_id, key, since: now.toISOString(), detail };
      if (await store.alerts.raise(incident)) {
        raised++;
        announce(bus, 'alert.raised', rule, incident, null);
      }
    }
    for (const incident of mine) {
      if (found.has(incident.key)) continue;
      if (await store.alerts.clear(rule.id, incident.key)) {
        cleared++;
        announce(bus, 'alert.cleared', rule, incident, now.toISOString());
      }
    }
  }
  return { raised, cleared };
}

function setGet<K, V>(map: Map<K, V>, key: K, value: V): V {
  map.set(key, value);
  return value;
}

function announce(
  bus: EventBus,
  name: 'alert.raised' | 'alert.cleared',
  rule: AlertRule,
  incident: AlertIncident,
  clearedAt: string | null,
): void {
  bus.emit(name, { location_id: rule.location_id, rule, incident, cleared_at: clearedAt });
}
