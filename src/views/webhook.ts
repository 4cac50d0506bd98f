/**
 * Webhook subscriptions and their deliveries → their public views (secrets and payloads never leave here).
 * A receiver's URL may carry a secret in its path or query (chat webhooks do): only a `full` token,
 * the scope that manages webhooks, sees it; others get scheme and host with the rest masked.
 */
import { Type } from 'typebox';
import type { WebhookDelivery, WebhookSubscription } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const WebhookView = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String({ description: 'The receiver URL; for tokens without the full scope only scheme and host, as `https://host/***`' }),
    events: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    attendance_batch: Type.Integer(),
    enabled: Type.Boolean(),
    disabled_reason: Nullable(
      Type.String({
        description: 'Why BioGate disabled it (410 from the receiver, 24 h of failures); null when enabled or disabled by a PATCH',
      }),
    ),
    previous_secret_valid_until: Nullable(IsoDateTime),
    paused_until: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'Nothing is sent before this: the receiver was slow (3 deliveries of 5 s or more in a row) or unreachable; null once a delivery succeeds again',
      }),
    ),
    last_error: Nullable(Type.String({ description: 'Why it was last paused; null once a delivery succeeds again' })),
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
    filter: Nullable(
      Type.Object(
        {
          sn: Type.Optional(Type.Array(Type.String())),
          area_id: Type.Optional(Type.Array(Type.Integer())),
          pin: Type.Optional(Type.Array(Type.String())),
          event_codes: Type.Optional(Type.Array(Type.Integer())),
        },
        { title: 'WebhookFilter', description: 'Which events of its types it gets; null: every one' },
      ),
    ),
    format: Type.String({ description: 'standard, template, erpnext_checkin, odoo_attendance, slack or telegram' }),
    template: Nullable(Type.Unknown({ description: 'The JSON template (format template); null for tokens without the full scope' })),
    format_options: Nullable(
      Type.Object(
        {
          chat_id: Type.Optional(Type.String({ description: 'telegram' })),
          token: Type.Optional(Type.Literal('***', { description: 'odoo_attendance: set, never shown' })),
        },
        { title: 'WebhookFormatOptions' },
      ),
    ),
    headers: Type.Record(Type.String(), Type.Literal('***'), {
      title: 'WebhookHeaders',
      description: 'The extra headers by name; values are never shown',
    }),
  },
  { title: 'Webhook' },
);
export const DeliveryView = Type.Object(
  {
    id: Type.Integer(),
    event_id: Type.String({ description: 'The webhook-id header' }),
    event_seq: Type.Integer(),
    type: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    next_attempt_at: Nullable(IsoDateTime),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    duration_ms: Nullable(Type.Integer()),
    created_at: IsoDateTime,
    delivered_at: Nullable(IsoDateTime),
    requeued_at: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When a redeliver or a re-enable put it back in the queue; its 24 h of retries run from then',
      }),
    ),
  },
  { title: 'WebhookDelivery' },
);

/** Who sees a webhook: `full` (full tokens, the admin, the CLI) sees the URL; `masked` (read, operator) its origin. */
export type WebhookAudience = 'full' | 'masked';

export const webhookAudienceOf = (scope: string): WebhookAudience => (scope === 'full' ? 'full' : 'masked');

/** `https://hooks.example.com/***`: scheme, host and port; path, query, fragment and credentials masked. */
export function maskedUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/***`;
  } catch {
    return '***';
  }
}

export function webhookView(w: WebhookSubscription, audience: WebhookAudience) {
  return {
    id: w.id,
    url: audience === 'full' ? w.url : maskedUrl(w.url),
    events: [...w.events],
    description: w.description,
    attendance_batch: w.attendance_batch,
    enabled: w.enabled,
    disabled_reason: w.disabled_reason,
    previous_secret_valid_until: w.previous_secret ? w.previous_valid_until : null,
    paused_until: w.paused_until,
    last_error: w.last_error,
    created_at: w.created_at,
    updated_at: w.updated_at,
    filter: w.filter,
    format: w.format,
    template: audience === 'full' ? (w.format_options?.template ?? null) : null,
    format_options: optionsView(w),
    headers: Object.fromEntries(Object.keys(w.headers).map((k) => [k, '***' as const])),
  };
}

function optionsView(w: WebhookSubscription): { chat_id?: string; token?: '***' } | null {
  const o = w.format_options;
  if (!o || (o.chat_id === undefined && o.token === undefined)) return null;
  return { ...(o.chat_id !== undefined ? { chat_id: o.chat_id } : {}), ...(o.token !== undefined ? { token: '***' as const } : {}) };
}

export function deliveryView(d: WebhookDelivery) {
  const { subscription_id: _s, location_id: _l, payload: _p, ...rest } = d;
  return rest;
}
