/**
 * Feed events → webhook deliveries. The body is built once, when the delivery is
 * stored, and sent byte for byte on every attempt (so each retry carries the same webhook-id and
 * body, and receivers can de-duplicate):
 *
 *   {"id": "<event id>", "type": "attendance.recorded", "location_id": 1, "created_at": "<when it happened>", "data": {…public API view…}}
 *
 * `attendance.recorded` carries one terminal upload; a subscription gets it cut into deliveries of
 * at most `attendance_batch` records (1 by default: one POST per punch). A cut delivery's id is the
 * event id with `.1`, `.2`, … appended; the cut depends only on the event and the batch size, so
 * storing the same event twice gives the same ids.
 */
import { randomUUID } from 'node:crypto';
import type { NewWebhookDelivery, StoredEvent, WebhookSubscription } from '../store/ports/index.js';

export interface WebhookBody {
  readonly id: string;
  readonly type: string;
  readonly location_id: number;
  readonly created_at: string;
  readonly data: unknown;
}

const bodyOf = (b: WebhookBody): string => JSON.stringify(b);

export function deliveriesFor(sub: WebhookSubscription, e: StoredEvent, now: string): NewWebhookDelivery[] {
  if (!sub.events.includes(e.type)) return [];
  const base = { subscription_id: sub.id, location_id: sub.location_id, event_seq: e.seq, type: e.type, created_at: now };
  const data = e.data as { sn?: string; records?: unknown[] } | null;
  const records = e.type === 'attendance.recorded' && Array.isArray(data?.records) ? data.records : null;
  if (records === null || records.length <= sub.attendance_batch) {
    return [
      { ...base, event_id: e.id, payload: bodyOf({ id: e.id, type: e.type, location_id: e.location_id, created_at: e.at, data: e.data }) },
    ];
  }
  const out: NewWebhookDelivery[] = [];
  for (let i = 0; i * sub.attendance_batch < records.length; i++) {
    const id = `${e.id}.${i + 1}`;
    const chunk = records.slice(i * sub.attendance_batch, (i + 1) * sub.attendance_batch);
    out.push({
      ...base,
      event_id: id,
      payload: bodyOf({ id, type: e.type, location_id: e.location_id, created_at: e.at, data: { ...data, records: chunk } }),
    });
  }
  return out;
}

/** POST /api/webhooks/{id}/test: a `ping` that goes through the same queue, signing and retries. */
export function pingFor(sub: WebhookSubscription, now: string): NewWebhookDelivery {
  const id = randomUUID();
  const payload = bodyOf({
    id,
    type: 'ping',
    location_id: sub.location_id,
    created_at: now,
    data: { webhook_id: sub.id, message: 'BioGate webhook test' },
  });
  return { subscription_id: sub.id, location_id: sub.location_id, event_id: id, event_seq: 0, type: 'ping', payload, created_at: now };
}
