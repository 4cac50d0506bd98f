/**
 * Alert rules (issue #36 item 4) as GET /api/alerts shows them, with their open incidents, and an incident as the
 * feed's `alert.raised` / `alert.cleared` and webhooks carry it.
 */
import { Type } from 'typebox';
import { ALERT_KINDS, type AlertIncident, type AlertRule } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const AlertKindSchema = Type.Union(
  ALERT_KINDS.map((k) => Type.Literal(k)),
  { description: 'What the rule watches (README "Alert rules")' },
);

const Params = Type.Record(Type.String(), Type.Integer(), {
  description: "The kind's parameters (`minutes`, `count`, `percent`), defaults filled in",
});

export const AlertIncidentView = Type.Object(
  {
    key: Type.String({ description: 'What it is about: a serial, `serial/door`, a webhook id' }),
    since: IsoDateTime,
    detail: Type.Record(Type.String(), Type.Unknown(), { description: 'What the condition found when it was raised' }),
  },
  { title: 'AlertIncident', additionalProperties: false },
);

export const AlertRuleView = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    kind: AlertKindSchema,
    params: Params,
    webhook_id: Nullable(Type.Integer({ description: 'The webhook each raise and clear is delivered to; null: the feed only' })),
    enabled: Type.Boolean(),
    incidents: Type.Array(AlertIncidentView, { description: 'Open now' }),
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
  },
  { title: 'AlertRule', additionalProperties: false },
);

export function alertRuleView(rule: AlertRule, incidents: readonly AlertIncident[]) {
  return {
    id: rule.id,
    name: rule.name,
    kind: rule.kind,
    params: { ...rule.params },
    webhook_id: rule.webhook_id,
    enabled: rule.enabled,
    incidents: incidents.filter((i) => i.rule_id === rule.id).map((i) => ({ key: i.key, since: i.since, detail: { ...i.detail } })),
    created_at: rule.created_at,
    updated_at: rule.updated_at,
  };
}

export function alertEventView(rule: AlertRule, incident: AlertIncident, clearedAt: string | null) {
  return {
    rule: { id: rule.id, name: rule.name, kind: rule.kind, webhook_id: rule.webhook_id },
    key: incident.key,
    since: incident.since,
    cleared_at: clearedAt,
    detail: { ...incident.detail },
  };
}
