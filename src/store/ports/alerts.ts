/**
 * Alert rules and their open incidents (issue #36 item 4). An incident is open while its condition holds for
 * one key of a rule (a terminal, a door, a webhook); opening and closing are compare-and-set, so however many
 * evaluators race, each incident is raised once and cleared once.
 */
import type { Iso } from './records.js';

export const ALERT_KINDS = [
  'device_offline',
  'door_forced_or_held',
  'alarm',
  'denied_burst',
  'storage_high',
  'sync_drift',
  'webhook_failing',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export interface AlertRuleFields {
  readonly name: string;
  readonly kind: AlertKind;
  /** The kind's parameters (src/alerts/kinds.ts): `minutes`, `count`, `percent`. */
  readonly params: Readonly<Record<string, number>>;
  /** The webhook subscription of the location each raise and clear is delivered to; null: the feed only. */
  readonly webhook_id: number | null;
  readonly enabled: boolean;
}

export interface AlertRule extends AlertRuleFields {
  readonly id: number;
  readonly location_id: number;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export interface AlertIncident {
  readonly rule_id: number;
  readonly location_id: number;
  /** What the incident is about: a serial, `serial/door`, a webhook id. */
  readonly key: string;
  readonly since: Iso;
  /** What the condition found when it was raised (the kind's words and numbers). */
  readonly detail: Readonly<Record<string, unknown>>;
}

export interface AlertsPort {
  list(locationId: number): Promise<readonly AlertRule[]>;
  get(locationId: number, id: number): Promise<AlertRule | undefined>;
  count(locationId: number): Promise<number>;
  create(locationId: number, fields: AlertRuleFields, now: Iso): Promise<AlertRule>;
  update(locationId: number, id: number, fields: AlertRuleFields, now: Iso): Promise<AlertRule | undefined>;
  /** Deletes the rule and its open incidents. */
  delete(locationId: number, id: number): Promise<boolean>;
  /** Every enabled rule of every location (the evaluator). */
  listEnabled(): Promise<readonly AlertRule[]>;
  /** The open incidents of the given rules. */
  open(ruleIds: readonly number[]): Promise<readonly AlertIncident[]>;
  /** Opens an incident unless one is open for (rule, key): true for exactly one caller. */
  raise(incident: AlertIncident): Promise<boolean>;
  /** Closes the open incident of (rule, key): true for exactly one caller. */
  clear(ruleId: number, key: string): Promise<boolean>;
}
