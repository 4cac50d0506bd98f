/** The webhooks port: outbound subscriptions of a location and their deliveries. */
import type { Iso, Page, Window } from './records.js';

/**
 * Which events of its types a subscription gets (issue #36 item 5): every key given must match, and an event
 * without that field (no terminal, no PIN, no event code) does not. Attendance uploads are cut to their matching
 * records.
 */
export interface WebhookFilter {
  readonly sn?: readonly string[];
  readonly area_id?: readonly number[];
  readonly pin?: readonly string[];
  readonly event_codes?: readonly number[];
}

/** The body a subscription sends (src/webhooks/formats.ts). */
export const WEBHOOK_FORMATS = ['standard', 'template', 'erpnext_checkin', 'odoo_attendance', 'slack', 'telegram'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** What a format needs besides the event: the `template` body, Telegram's `chat_id`, Odoo's kiosk `token` (a secret). */
export interface WebhookFormatOptions {
  readonly template?: unknown;
  readonly chat_id?: string;
  readonly token?: string;
}

/** The body settings of a subscription: stored with it, applied when its deliveries are made. */
export interface WebhookShape {
  readonly filter: WebhookFilter | null;
  readonly format: WebhookFormat;
  readonly format_options: WebhookFormatOptions | null;
  /** Extra request headers (an ERPNext or Odoo API key): stored in clear like the secret, never shown or logged. */
  readonly headers: Readonly<Record<string, string>>;
}

export const STANDARD_SHAPE: WebhookShape = { filter: null, format: 'standard', format_options: null, headers: {} };

/** An outbound webhook subscription of a location (src/webhooks/). */
export interface WebhookSubscription extends WebhookShape {
  readonly id: number;
  readonly location_id: number;
  readonly url: string;
  /** Feed event types it wants (src/events/types.ts FEED_EVENT_TYPES). */
  readonly events: readonly string[];
  readonly description: string | null;
  /** `whsec_<base64>`; stored in clear because it signs (never logged, shown once). */
  readonly secret: string;
  /** The secret before the last rotation, still signing (second signature) until previous_valid_until. */
  readonly previous_secret: string | null;
  readonly previous_valid_until: Iso | null;
  /** Most attendance records per `attendance.recorded` delivery (1: one POST per punch). */
  readonly attendance_batch: number;
  readonly enabled: boolean;
  readonly disabled_reason: string | null;
  /** The last feed seq of its location already turned into deliveries. */
  readonly cursor: number;
  /** Start of the current run of failed attempts (null: the last attempt succeeded). */
  readonly failing_since: Iso | null;
  /** Its lane sends nothing before this (a slow or unreachable receiver); null: not paused since its last delivery. */
  readonly paused_until: Iso | null;
  /** Why it was last paused; null once a delivery succeeds again. */
  readonly last_error: string | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export type WebhookPatch = Partial<
  Pick<
    WebhookSubscription,
    | 'url'
    | 'events'
    | 'description'
    | 'secret'
    | 'previous_secret'
    | 'previous_valid_until'
    | 'attendance_batch'
    | 'enabled'
    | 'disabled_reason'
    | 'failing_since'
    | 'paused_until'
    | 'last_error'
    | keyof WebhookShape
  >
>;

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  readonly id: number;
  readonly subscription_id: number;
  readonly location_id: number;
  /** The `webhook-id` header: the feed event id (with a `.n` suffix per attendance chunk); unique per subscription. */
  readonly event_id: string;
  /** Feed sequence number (0 for a test ping): the delivery order of attendance. */
  readonly event_seq: number;
  readonly type: string;
  /** The exact JSON body sent on every attempt. */
  readonly payload: string;
  readonly status: WebhookDeliveryStatus;
  readonly attempts: number;
  /** When it is due (pending); null once delivered or failed. */
  readonly next_attempt_at: Iso | null;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly duration_ms: number | null;
  readonly created_at: Iso;
  readonly delivered_at: Iso | null;
  /** When a redeliver (or a re-enable) last put it back in the queue; its 24 h retry window runs from then. */
  readonly requeued_at: Iso | null;
}

export type NewWebhookDelivery = Pick<
  WebhookDelivery,
  'subscription_id' | 'location_id' | 'event_id' | 'event_seq' | 'type' | 'payload' | 'created_at'
>;

export type WebhookAttempt = Pick<
  WebhookDelivery,
  'status' | 'attempts' | 'next_attempt_at' | 'last_status_code' | 'last_error' | 'duration_ms' | 'delivered_at'
>;

/** One attempt's outcome for `recordAttempts`: the delivery's id and what the attempt changes. */
export type AttemptOutcome = WebhookAttempt & { readonly id: number };

export interface WebhooksPort {
  create(
    input: Pick<WebhookSubscription, 'location_id' | 'url' | 'events' | 'description' | 'secret' | 'attendance_batch' | 'cursor'> &
      Partial<WebhookShape>,
    now: Iso,
  ): Promise<WebhookSubscription>;
  get(locationId: number, id: number): Promise<WebhookSubscription | undefined>;
  /** A location's subscriptions by id. */
  list(locationId: number): Promise<readonly WebhookSubscription[]>;
  count(locationId: number): Promise<number>;
  /** Enabled subscriptions of every location (the delivery job). */
  listEnabled(): Promise<readonly WebhookSubscription[]>;
  update(locationId: number, id: number, patch: WebhookPatch, now: Iso): Promise<WebhookSubscription | undefined>;
  /** Removes the subscription and its deliveries; false when there was none. */
  delete(locationId: number, id: number): Promise<boolean>;
  /** Compare-and-set of the cursor: true when this caller moved it from `from` to `to`. */
  advanceCursor(locationId: number, id: number, from: number, to: number): Promise<boolean>;
  /** Stores deliveries (status pending, due at created_at); an existing (subscription_id, event_id) is left alone. Returns how many were new. */
  addDeliveries(deliveries: readonly NewWebhookDelivery[]): Promise<number>;
  /** Pending deliveries of a subscription due at `now`, in (event_seq, id) order. */
  due(locationId: number, subscriptionId: number, now: Iso, limit: number): Promise<readonly WebhookDelivery[]>;
  /** The earliest pending delivery of a type, due or not, in (event_seq, id) order (attendance ordering). */
  firstPending(locationId: number, subscriptionId: number, type: string): Promise<WebhookDelivery | undefined>;
  /**
   * Writes the outcomes of attempts at deliveries of `locationId`, in one write (one transaction; one bulk write on
   * MongoDB). Each only while its delivery is still pending; ids of another location change nothing.
   */
  recordAttempts(locationId: number, outcomes: readonly AttemptOutcome[]): Promise<void>;
  /** A subscription's deliveries, newest first. */
  deliveries(locationId: number, subscriptionId: number, window: Window): Promise<Page<WebhookDelivery>>;
  /** Pending deliveries across the store and when the oldest was created (metrics). */
  pendingStats(): Promise<{ count: number; oldest: Iso | null }>;
  /**
   * Failed deliveries of a subscription created in [since, until) (until null: no end) become pending again, due at
   * `now`, attempts kept, requeued_at = now; at most `limit`, oldest first. Returns how many.
   */
  requeueFailed(locationId: number, subscriptionId: number, since: Iso, until: Iso | null, now: Iso, limit: number): Promise<number>;
  /** Deletes up to `limit` delivered or failed deliveries created before `before`. */
  pruneDeliveries(before: Iso, limit: number): Promise<number>;
}
