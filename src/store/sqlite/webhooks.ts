/** Webhook subscriptions and deliveries on SQLite (WebhooksPort in ../ports/webhooks.ts). */
import type { AttemptOutcome, WebhookDelivery, WebhookFormat, WebhookSubscription, WebhooksPort } from '../ports/index.js';
import type { Db } from './db.js';

type Row = Record<string, unknown>;

const toSubscription = (r: Row): WebhookSubscription => ({
  id: r['id'] as number,
  location_id: r['location_id'] as number,
  url: r['url'] as string,
  events: JSON.parse(r['events'] as string) as string[],
  description: (r['description'] as string | null) ?? null,
  secret: r['secret'] as string,
  previous_secret: (r['previous_secret'] as string | null) ?? null,
  previous_valid_until: (r['previous_valid_until'] as string | null) ?? null,
  attendance_batch: r['attendance_batch'] as number,
  enabled: r['enabled'] === 1,
  disabled_reason: (r['disabled_reason'] as string | null) ?? null,
  cursor: r['cursor'] as number,
  failing_since: (r['failing_since'] as string | null) ?? null,
  paused_until: (r['paused_until'] as string | null) ?? null,
  last_error: (r['last_error'] as string | null) ?? null,
  created_at: r['created_at'] as string,
  updated_at: (r['updated_at'] as string | null) ?? null,
  filter: r['filter'] ? (JSON.parse(r['filter'] as string) as WebhookSubscription['filter']) : null,
  format: r['format'] as WebhookFormat,
  format_options: r['format_options'] ? (JSON.parse(r['format_options'] as string) as WebhookSubscription['format_options']) : null,
  headers: JSON.parse(r['headers'] as string) as Record<string, string>,
});

const toDelivery = (r: Row): WebhookDelivery => ({
  id: r['id'] as number,
  subscription_id: r['subscription_id'] as number,
  location_id: r['location_id'] as number,
  event_id: r['event_id'] as string,
  event_seq: r['event_seq'] as number,
  type: r['type'] as string,
  payload: r['payload'] as string,
  status: r['status'] as WebhookDelivery['status'],
  attempts: r['attempts'] as number,
  next_attempt_at: (r['next_attempt_at'] as string | null) ?? null,
  last_status_code: (r['last_status_code'] as number | null) ?? null,
  last_error: (r['last_error'] as string | null) ?? null,
  duration_ms: (r['duration_ms'] as number | null) ?? null,
  created_at: r['created_at'] as string,
  delivered_at: (r['delivered_at'] as string | null) ?? null,
  requeued_at: (r['requeued_at'] as string | null) ?? null,
});

const JSON_COLUMNS = new Set(['events', 'filter', 'format_options', 'headers']);
/** Patch keys → columns; `events`, `filter`, `format_options` and `headers` are JSON (null stays NULL), `enabled` 0/1. */
const encode = (key: string, value: unknown): unknown =>
  JSON_COLUMNS.has(key) && value !== null ? JSON.stringify(value) : key === 'enabled' ? (value ? 1 : 0) : value;
const PATCHABLE = new Set([
  'url',
  'events',
  'description',
  'secret',
  'previous_secret',
  'previous_valid_until',
  'attendance_batch',
  'enabled',
  'disabled_reason',
  'failing_since',
  'paused_until',
  'last_error',
  'filter',
  'format',
  'format_options',
  'headers',
]);

export function sqliteWebhooks(db: Db): WebhooksPort {
  const insertDelivery = db.prepare(
    `INSERT INTO webhook_deliveries (subscription_id, location_id, event_id, event_seq, type, payload, status, attempts, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT (subscription_id, event_id) DO NOTHING`,
  );
  const recordOne = db.prepare(
    `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_status_code = ?, last_error = ?, duration_ms = ?, delivered_at = ?
     WHERE location_id = ? AND id = ? AND status = 'pending'`,
  );
  const recordAll = db.transaction((locationId: number, outcomes: readonly AttemptOutcome[]) => {
    for (const a of outcomes)
      recordOne.run(
        a.status,
        a.attempts,
        a.next_attempt_at,
        a.last_status_code,
        a.last_error,
        a.duration_ms,
        a.delivered_at,
        locationId,
        a.id,
      );
  });
  const addAll = db.transaction((ds: readonly Parameters<WebhooksPort['addDeliveries']>[0][number][]) => {
    let added = 0;
    for (const d of ds)
      added += insertDelivery.run(
        d.subscription_id,
        d.location_id,
        d.event_id,
        d.event_seq,
        d.type,
        d.payload,
        d.created_at,
        d.created_at,
      ).changes;
    return added;
  });
  return {
    async create(input, now) {
      const r = db
        .prepare(
          `INSERT INTO webhooks (location_id, url, events, description, secret, attendance_batch, enabled, cursor, created_at,
             filter, format, format_options, headers)
           VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?) RETURNING *`,
        )
        .get(
          input.location_id,
          input.url,
          JSON.stringify(input.events),
          input.description,
          input.secret,
          input.attendance_batch,
          input.cursor,
          now,
          encode('filter', input.filter ?? null),
          input.format ?? 'standard',
          encode('format_options', input.format_options ?? null),
          encode('headers', input.headers ?? {}),
        ) as Row;
      return toSubscription(r);
    },
    async get(locationId, id) {
      const r = db.prepare('SELECT * FROM webhooks WHERE location_id = ? AND id = ?').get(locationId, id) as Row | undefined;
      return r && toSubscription(r);
    },
    async list(locationId) {
      return (db.prepare('SELECT * FROM webhooks WHERE location_id = ? ORDER BY id').all(locationId) as Row[]).map(toSubscription);
    },
    async count(locationId) {
      return (db.prepare('SELECT COUNT(*) AS n FROM webhooks WHERE location_id = ?').get(locationId) as { n: number }).n;
    },
    async listEnabled() {
      return (db.prepare('SELECT * FROM webhooks WHERE enabled = 1 ORDER BY id').all() as Row[]).map(toSubscription);
    },
    async update(locationId, id, patch, now) {
      const keys = Object.keys(patch).filter((k) => PATCHABLE.has(k) && (patch as Record<string, unknown>)[k] !== undefined);
      const sets = [...keys.map((k) => `${k} = ?`), 'updated_at = ?'];
      const args = [...keys.map((k) => encode(k, (patch as Record<string, unknown>)[k])), now];
      const r = db
        .prepare(`UPDATE webhooks SET ${sets.join(', ')} WHERE location_id = ? AND id = ? RETURNING *`)
        .get(...args, locationId, id) as Row | undefined;
      return r && toSubscription(r);
    },
    async delete(locationId, id) {
      return db
        .transaction(() => {
          const gone = db.prepare('DELETE FROM webhooks WHERE location_id = ? AND id = ?').run(locationId, id).changes === 1;
          if (gone) db.prepare('DELETE FROM webhook_deliveries WHERE subscription_id = ?').run(id);
          return gone;
        })
        .immediate();
    },
    async advanceCursor(locationId, id, from, to) {
      return (
        db.prepare('UPDATE webhooks SET cursor = ? WHERE location_id = ? AND id = ? AND cursor = ?').run(to, locationId, id, from)
          .changes === 1
      );
    },
    async addDeliveries(deliveries) {
      return deliveries.length === 0 ? 0 : addAll.immediate(deliveries);
    },
    async due(locationId, subscriptionId, now, limit) {
      return (
        db
          .prepare(
            `SELECT * FROM webhook_deliveries WHERE subscription_id = ? AND location_id = ? AND status = 'pending' AND next_attempt_at <= ?
             ORDER BY event_seq, id LIMIT ?`,
          )
          .all(subscriptionId, locationId, now, limit) as Row[]
      ).map(toDelivery);
    },
    async firstPending(locationId, subscriptionId, type) {
      const r = db
        .prepare(
          "SELECT * FROM webhook_deliveries WHERE subscription_id = ? AND location_id = ? AND status = 'pending' AND type = ? ORDER BY event_seq, id LIMIT 1",
        )
        .get(subscriptionId, locationId, type) as Row | undefined;
      return r && toDelivery(r);
    },
    async recordAttempts(locationId, outcomes) {
      if (outcomes.length > 0) recordAll.immediate(locationId, outcomes);
    },
    async deliveries(locationId, subscriptionId, window) {
      const total = (
        db
          .prepare('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE subscription_id = ? AND location_id = ?')
          .get(subscriptionId, locationId) as { n: number }
      ).n;
      const rows = db
        .prepare('SELECT * FROM webhook_deliveries WHERE subscription_id = ? AND location_id = ? ORDER BY id DESC LIMIT ? OFFSET ?')
        .all(subscriptionId, locationId, window.limit, window.offset) as Row[];
      return { items: rows.map(toDelivery), total };
    },
    async pendingStats() {
      const r = db.prepare("SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'").get() as {
        n: number;
        oldest: string | null;
      };
      return { count: r.n, oldest: r.oldest ?? null };
    },
    async requeueFailed(locationId, subscriptionId, since, until, now, limit) {
      return db
        .prepare(
          `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, requeued_at = ? WHERE id IN (
             SELECT id FROM webhook_deliveries WHERE subscription_id = ? AND location_id = ? AND status = 'failed' AND created_at >= ?
             AND (? IS NULL OR created_at < ?) ORDER BY id LIMIT ?)`,
        )
        .run(now, now, subscriptionId, locationId, since, until, until, limit).changes;
    },
    async pruneDeliveries(before, limit) {
      return db
        .prepare(
          "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ? LIMIT ?)",
        )
        .run(before, limit).changes;
    },
  };
}
