/**
 * Alert rules per location (issue #36 item 4): GET/POST /api/alerts, PUT/DELETE /api/alerts/{id}. A rule is
 * `{name, kind, params, webhook_id, enabled}`; each kind's params are checked and their defaults filled in
 * (src/alerts/kinds.ts). The rules are evaluated by the `alerts` job (src/alerts/evaluate.ts).
 */
import { Type, type Static } from 'typebox';
import { ALERT_KIND_TEXT, ALERT_PARAMS } from '../alerts/kinds.js';
import type { Clock } from '../clock.js';
import { BioGateError, invalid } from '../errors.js';
import type { AlertRuleFields } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { compiled, issuesFrom } from '../validation/schema.js';
import { AlertKindSchema, AlertRuleView, alertRuleView } from '../views/alert.js';
import { Nullable } from '../views/common.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { EmptyObject } from './schemas.js';

/** Rules per location (bounded, like everything else). */
export const MAX_ALERT_RULES = 100;

const AlertBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    kind: AlertKindSchema,
    params: Type.Optional(
      Type.Record(Type.String({ maxLength: 32 }), Type.Integer(), {
        maxProperties: 8,
        description: "The kind's parameters; defaults fill what is left out",
      }),
    ),
    webhook_id: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }))),
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
const Id = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const notFound = (id: number) => new BioGateError('ALERT_RULE_NOT_FOUND', `No alert rule ${id} in your location`);

const description =
  'Kinds: ' +
  Object.entries(ALERT_KIND_TEXT)
    .map(([k, v]) => `\`${k}\`: ${v}`)
    .join('; ') +
  '. A rule fires once per incident (`alert.raised`) and once when it clears (`alert.cleared`), on the feed (topic `alerts/<id>`) and to its webhook.';

/** The stored fields of a checked body: the kind's params with defaults, a webhook of the location. */
async function fieldsOf(store: Store, locationId: number, body: Static<typeof AlertBody>): Promise<AlertRuleFields> {
  const v = compiled(ALERT_PARAMS[body.kind]);
  const params = v.Default(structuredClone(body.params ?? {})) as Record<string, number>;
  const issues = issuesFrom(v, params, ['body', 'params']);
  if (issues.length > 0) throw new BioGateError('VALIDATION_FAILED', issues);
  const webhookId = body.webhook_id ?? null;
  if (webhookId !== null && !(await store.webhooks.get(locationId, webhookId)))
    throw invalid(['body', 'webhook_id'], `no webhook ${webhookId} in this location`, 'value_error');
  return { name: body.name, kind: body.kind, params, webhook_id: webhookId, enabled: body.enabled ?? true };
}

export function alertRoutes(store: Store, clock: Clock): ApiRoute[] {
  const tags = ['alerts'];
  const view = async (rule: Parameters<typeof alertRuleView>[0]) => alertRuleView(rule, await store.alerts.open([rule.id]));
  return [
    defineRoute({
      method: 'GET',
      path: '/api/alerts',
      auth: 'location',
      doc: {
        summary: "The location's alert rules, with their open incidents",
        description,
        tags,
        responses: { 200: Type.Array(AlertRuleView) },
      },
      handler: async ({ caller }) => {
        const rules = await store.alerts.list(caller.location.id);
        const open = await store.alerts.open(rules.map((r) => r.id));
        return json(
          200,
          rules.map((r) => alertRuleView(r, open)),
        );
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/alerts',
      auth: 'location',
      body: AlertBody,
      doc: { summary: 'Create an alert rule', description, tags, responses: { 201: AlertRuleView } },
      handler: async ({ caller, body }) => {
        const fields = await fieldsOf(store, caller.location.id, body);
        if ((await store.alerts.count(caller.location.id)) >= MAX_ALERT_RULES)
          throw invalid(['body'], `a location has at most ${MAX_ALERT_RULES} alert rules`, 'limit');
        return json(201, await view(await store.alerts.create(caller.location.id, fields, clock.now().toISOString())));
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/alerts/{id}',
      auth: 'location',
      params: Id,
      body: AlertBody,
      doc: {
        summary: 'Replace an alert rule',
        description:
          'A rule whose kind, params or enabled state changes starts afresh: its open incidents are dropped without `alert.cleared`.',
        tags,
        responses: { 200: AlertRuleView },
        errors: ['ALERT_RULE_NOT_FOUND'],
      },
      handler: async ({ caller, params, body }) => {
        const fields = await fieldsOf(store, caller.location.id, body);
        const rule = await store.alerts.update(caller.location.id, params.id, fields, clock.now().toISOString());
        if (!rule) throw notFound(params.id);
        return json(200, await view(rule));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/alerts/{id}',
      auth: 'location',
      params: Id,
      doc: { summary: 'Delete an alert rule', tags, responses: { 200: EmptyObject }, errors: ['ALERT_RULE_NOT_FOUND'] },
      handler: async ({ caller, params }) => {
        if (!(await store.alerts.delete(caller.location.id, params.id))) throw notFound(params.id);
        return json(200, {});
      },
    }),
  ];
}
