/**
 * /api/webhooks: a location's outbound webhook subscriptions. Managing them needs a
 * token with the `full` scope (a webhook sends the location's data elsewhere); any token may list
 * them and read their deliveries. The signing secret is shown once, when created or rotated.
 *
 * Destinations: https:// only unless BIOGATE_WEBHOOK_ALLOW_HTTP=on; a URL whose host is, or
 * resolves to, a loopback, link-local or private address is refused here with 422 unless
 * BIOGATE_WEBHOOK_ALLOW_PRIVATE=on (and checked again at every connection: src/webhooks/send.ts).
 */
import { Type } from 'typebox';
import type { Caller } from '../auth/authenticate.js';
import type { Clock } from '../clock.js';
import { BioGateError, invalid } from '../errors.js';
import { FEED_EVENT_TYPES } from '../events/types.js';
import type { Store } from '../store/types.js';
import { resolvedProblem, urlProblem, type DestinationPolicy } from '../webhooks/address-guard.js';
import { MAX_WEBHOOKS_PER_LOCATION, subscribe } from '../webhooks/subscriptions.js';
import { DELIVERY_KEEP_MS } from '../webhooks/dispatcher.js';
import { sampleFor } from '../webhooks/payload.js';
import { shapeOf, ShapeFields } from './webhook-shape.js';
import { newSecret } from '../webhooks/sign.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { Nullable } from '../views/common.js';
import { DeliveryView, deliveryView, webhookAudienceOf, WebhookView, webhookView } from '../views/webhook.js';
import { EmptyObject, PageQuery, pageOf, pageWrapper } from './schemas.js';

const MAX_BATCH = 500;
/** How long the secret before a rotation keeps signing (second signature). */
const ROTATION_OVERLAP_MS = 86_400_000;

const EventName = Type.Union(FEED_EVENT_TYPES.map((t) => Type.Literal(t)));
const Url = Type.String({ minLength: 8, maxLength: 2048, description: 'https:// URL the events are POSTed to' });
const Events = Type.Array(EventName, {
  minItems: 1,
  maxItems: FEED_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'Feed event types to send',
});
const Description = Nullable(Type.String({ maxLength: 500 }));
const Batch = Type.Integer({
  minimum: 1,
  maximum: MAX_BATCH,
  description: 'Most attendance records per `attendance.recorded` delivery (1: one POST per punch)',
});

/** Most deliveries one redeliver (or re-enable) puts back in the queue; call again for more. */
export const MAX_REQUEUE = 10_000;
/** What a re-enable re-queues: every failed delivery still kept (GET …/deliveries keeps them 7 days). */
const REENABLE_REQUEUE_MS = DELIVERY_KEEP_MS;

const IdParam = Type.Object({ webhook_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const WithSecret = Type.Object(
  {
    ...WebhookView.properties,
    secret: Type.String({ description: '`whsec_<base64>`: shown once; verify the `webhook-signature` header with it (Standard Webhooks)' }),
  },
  { title: 'WebhookWithSecret' },
);

export interface WebhookRouteDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly policy: DestinationPolicy;
  /** Asks the delivery job to run now (a test ping). */
  readonly poke: () => void;
  /** A subscription was created or enabled here: this node's dispatcher looks its locations up again at once. */
  readonly changed: () => void;
}

function requireFull(caller: Caller): void {
  if (caller.token.scope !== 'full') throw new BioGateError('SCOPE_DENIED', 'Managing webhooks needs a token with the full scope');
}

const notFound = (id: number) => new BioGateError('WEBHOOK_NOT_FOUND', `No webhook ${id} in your location`);

/** An ISO time of the body as stored times are written (UTC, milliseconds), so they compare as strings. */
function isoTime(text: string, field: string): string {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw invalid(['body', field], 'must be an ISO 8601 date-time');
  return new Date(ms).toISOString();
}

async function checkUrl(url: string, policy: DestinationPolicy): Promise<void> {
  const problem = urlProblem(url, policy) ?? (await resolvedProblem(url, policy));
  if (problem) throw invalid(['body', 'url'], problem, 'url');
}

export function webhookRoutes(deps: WebhookRouteDeps): ApiRoute[] {
  const { store, clock, policy } = deps;
  const tags = ['webhooks'];
  const get = async (caller: Caller, id: number) =>
    (await store.webhooks.get(caller.location.id, id)) ??
    (() => {
      throw notFound(id);
    })();
  return [
    defineRoute({
      method: 'POST',
      path: '/api/webhooks',
      auth: 'location',
      body: Type.Object(
        { url: Url, events: Events, description: Type.Optional(Description), attendance_batch: Type.Optional(Batch), ...ShapeFields },
        { additionalProperties: false },
      ),
      doc: {
        summary: 'Subscribe a URL to events of this location; the signing secret is in this response only',
        description:
          'Each event is POSTed as `{id, type, location_id, created_at, data}` (format `standard`; or your `template`, or a preset body: `erpnext_checkin`, `odoo_attendance`, `slack`, `telegram`) with Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) on every format. `filter` narrows the events. Retried with back-off for 24 h; 410 disables the subscription.',
        tags,
        responses: { 201: WithSecret },
      },
      handler: async ({ caller, body }) => {
        requireFull(caller);
        const shape = shapeOf(body);
        await checkUrl(body.url, policy);
        if ((await store.webhooks.count(caller.location.id)) >= MAX_WEBHOOKS_PER_LOCATION) {
          throw invalid(['body'], `a location has at most ${MAX_WEBHOOKS_PER_LOCATION} webhooks`, 'limit');
        }
        const { subscription, secret } = await subscribe(
          store,
          caller.location.id,
          {
            url: body.url,
            events: body.events,
            description: body.description ?? null,
            attendance_batch: body.attendance_batch ?? 1,
            shape,
          },
          clock.now().toISOString(),
        );
        deps.changed();
        return json(201, { ...webhookView(subscription, 'full'), secret });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/webhooks',
      auth: 'location',
      doc: {
        summary: "The location's webhooks (secrets are never shown again)",
        tags,
        responses: { 200: Type.Object({ data: Type.Array(WebhookView) }, { title: 'WebhookList' }) },
      },
      handler: async ({ caller }) =>
        json(200, {
          data: (await store.webhooks.list(caller.location.id)).map((w) => webhookView(w, webhookAudienceOf(caller.token.scope))),
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/webhooks/{webhook_id}',
      auth: 'location',
      params: IdParam,
      doc: { summary: 'One webhook', tags, responses: { 200: WebhookView }, errors: ['WEBHOOK_NOT_FOUND'] },
      handler: async ({ caller, params }) =>
        json(200, webhookView(await get(caller, params.webhook_id), webhookAudienceOf(caller.token.scope))),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/webhooks/{webhook_id}',
      auth: 'location',
      params: IdParam,
      body: Type.Object(
        {
          url: Type.Optional(Url),
          events: Type.Optional(Events),
          description: Type.Optional(Description),
          attendance_batch: Type.Optional(Batch),
          enabled: Type.Optional(Type.Boolean()),
          ...ShapeFields,
        },
        { additionalProperties: false },
      ),
      doc: {
        summary: 'Change a webhook; `enabled: true` re-enables one BioGate disabled',
        description:
          'Re-enabled (`enabled: true` on a disabled one), it continues from where it stopped: events the feed still keeps (BIOGATE_EVENTS_RETENTION_S) are delivered, older ones are not; and its failed deliveries still kept (7 days, at most 10,000) are queued again, each with a new 24 h of retries. Any `enabled` clears `paused_until`.',
        tags,
        responses: { 200: WebhookView },
        errors: ['WEBHOOK_NOT_FOUND'],
      },
      handler: async ({ caller, params, body }) => {
        requireFull(caller);
        const before = await get(caller, params.webhook_id);
        const shape = shapeOf(body, before);
        if (body.url !== undefined) await checkUrl(body.url, policy);
        const now = clock.now();
        const patch = {
          ...shape,
          ...(body.url !== undefined ? { url: body.url } : {}),
          ...(body.events !== undefined ? { events: body.events } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.attendance_batch !== undefined ? { attendance_batch: body.attendance_batch } : {}),
          ...(body.enabled !== undefined ? { enabled: body.enabled, disabled_reason: null, failing_since: null, paused_until: null } : {}),
        };
        const reenabled = body.enabled === true && !before.enabled;
        // Re-enabled: what failed while it was broken goes again (the same as a redeliver over the kept week),
        // before any newer event. So it is pending again before the subscription is enabled: once enabled, any
        // node's delivery run (a poke already on its way) may collect and send the newer events at once.
        if (reenabled) {
          const since = new Date(now.getTime() - REENABLE_REQUEUE_MS).toISOString();
          await store.webhooks.requeueFailed(caller.location.id, before.id, since, null, now.toISOString(), MAX_REQUEUE);
        }
        const w = await store.webhooks.update(caller.location.id, params.webhook_id, patch, now.toISOString());
        if (!w) throw notFound(params.webhook_id);
        if (reenabled) {
          deps.changed();
          deps.poke();
        }
        return json(200, webhookView(w, 'full'));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/webhooks/{webhook_id}',
      auth: 'location',
      params: IdParam,
      doc: { summary: 'Delete a webhook and its pending deliveries', tags, responses: { 200: EmptyObject }, errors: ['WEBHOOK_NOT_FOUND'] },
      handler: async ({ caller, params }) => {
        requireFull(caller);
        if (!(await store.webhooks.delete(caller.location.id, params.webhook_id))) throw notFound(params.webhook_id);
        return json(200, {});
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/webhooks/{webhook_id}/test',
      auth: 'location',
      params: IdParam,
      doc: {
        summary: 'Queue a sample to the webhook with its current settings (same signing, queue and retries as real events)',
        description:
          'Format `standard`: a `ping` event. Any other format: a sample punch (PIN 0 on terminal SAMPLE) rendered as a real one would be; the filter does not apply. Listed among the deliveries as type `ping`.',
        tags,
        responses: { 202: DeliveryView },
        errors: ['WEBHOOK_NOT_FOUND'],
      },
      handler: async ({ caller, params }) => {
        requireFull(caller);
        const w = await get(caller, params.webhook_id);
        const ping = sampleFor(w, clock.now().toISOString());
        await store.webhooks.addDeliveries([ping]);
        deps.poke();
        const stored = (await store.webhooks.deliveries(caller.location.id, w.id, { offset: 0, limit: 20 })).items.find(
          (d) => d.event_id === ping.event_id,
        );
        return json(202, stored ? deliveryView(stored) : { event_id: ping.event_id });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/webhooks/{webhook_id}/redeliver',
      auth: 'location',
      params: IdParam,
      body: Type.Object(
        {
          since: Type.String({ format: 'date-time', description: 'Failed deliveries created at or after this time' }),
          until: Type.Optional(
            Type.String({ format: 'date-time', description: 'and before this time (default: now); not before since (422)' }),
          ),
        },
        { additionalProperties: false },
      ),
      doc: {
        summary: "Queue the webhook's failed deliveries again (created in [since, until)), each with a new 24 h of retries",
        description: `At most ${MAX_REQUEUE.toLocaleString('en-US')} a call, oldest first: call again while \`count\` is that. Sent once the webhook is enabled; the receiver sees the same \`webhook-id\` as before.`,
        tags,
        responses: { 202: Type.Object({ count: Type.Integer({ description: 'Deliveries queued again' }) }) },
        errors: ['WEBHOOK_NOT_FOUND'],
      },
      handler: async ({ caller, params, body }) => {
        requireFull(caller);
        const w = await get(caller, params.webhook_id);
        const since = isoTime(body.since, 'since');
        const until = body.until === undefined ? null : isoTime(body.until, 'until');
        // [since, until) with until = since is an empty window: 202 with count 0, like any window holding nothing.
        if (until !== null && until < since) throw invalid(['body', 'until'], 'must not be before since');
        const count = await store.webhooks.requeueFailed(caller.location.id, w.id, since, until, clock.now().toISOString(), MAX_REQUEUE);
        if (count > 0) deps.poke();
        return json(202, { count });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/webhooks/{webhook_id}/deliveries',
      auth: 'location',
      params: IdParam,
      query: Type.Object(PageQuery),
      doc: {
        summary: "A webhook's deliveries, newest first (kept 7 days)",
        tags,
        responses: { 200: pageOf(DeliveryView) },
        errors: ['WEBHOOK_NOT_FOUND'],
      },
      handler: async ({ caller, params, query }) => {
        await get(caller, params.webhook_id);
        const page = await store.webhooks.deliveries(caller.location.id, params.webhook_id, {
          offset: (query.page - 1) * query.limit,
          limit: query.limit,
        });
        return json(200, pageWrapper(page.items.map(deliveryView), page.total, query.page, query.limit));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/webhooks/{webhook_id}/rotate-secret',
      auth: 'location',
      params: IdParam,
      doc: {
        summary: 'Issue a new signing secret; the old one keeps signing (a second signature) for 24 h',
        tags,
        responses: { 200: WithSecret },
        errors: ['WEBHOOK_NOT_FOUND'],
      },
      handler: async ({ caller, params }) => {
        requireFull(caller);
        const w = await get(caller, params.webhook_id);
        const now = clock.now();
        const secret = newSecret();
        const updated = await store.webhooks.update(
          caller.location.id,
          w.id,
          { secret, previous_secret: w.secret, previous_valid_until: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString() },
          now.toISOString(),
        );
        if (!updated) throw notFound(w.id);
        return json(200, { ...webhookView(updated, 'full'), secret });
      },
    }),
  ];
}
