/**
 * Feed events → webhook deliveries. The body is built once, when the delivery is stored, and sent byte for
 * byte on every attempt (so each retry carries the same webhook-id and body, and receivers can de-duplicate).
 * In the `standard` format (formats.ts has the others) it is:
 *
 *   {"id": "<event id>", "type": "attendance.recorded", "location_id": 1, "created_at": "<when it happened>", "data": {…public API view…}}
 *
 * The subscription's `filter` (filter.ts) is applied first. `attendance.recorded` carries one terminal upload;
 * a subscription gets it cut into deliveries of at most `attendance_batch` records (1 by default: one POST per
 * punch; always 1 in the punch and chat formats). A cut delivery's id is the event id with `.1`, `.2`, …
 * appended; the cut depends only on the event, the filter and the batch size, so storing the same event twice
 * gives the same ids.
 */
import { randomUUID } from 'node:crypto';
import type { NewWebhookDelivery, StoredEvent, WebhookSubscription } from '../store/ports/index.js';
import { filtered, type AreaOf } from './filter.js';
import { ONE_RECORD_FORMATS, render, type Envelope } from './formats.js';

const ATTENDANCE = 'attendance.recorded';

/** The envelopes of one event for a subscription: one, or the attendance upload cut into batches. */
function envelopesOf(sub: WebhookSubscription, e: StoredEvent, data: unknown): Envelope[] {
  const head = { type: e.type, location_id: e.location_id, created_at: e.at };
  const upload = data as { records?: unknown[] } | null;
  const records = e.type === ATTENDANCE && Array.isArray(upload?.records) ? upload.records : null;
  const batch = ONE_RECORD_FORMATS.has(sub.format) ? 1 : sub.attendance_batch;
  if (records === null || records.length <= batch) return [{ id: e.id, ...head, data }];
  const out: Envelope[] = [];
  for (let i = 0; i * batch < records.length; i++) {
    out.push({ id: `${e.id}.${i + 1}`, ...head, data: { ...upload, records: records.slice(i * batch, (i + 1) * batch) } });
  }
  return out;
}

/** Whether a subscription takes an event: a type it lists, or an alert of a rule that names it (issue #36 item 4). */
function subscribed(sub: WebhookSubscription, e: StoredEvent): boolean {
  if (sub.events.includes(e.type)) return true;
  if (e.type !== 'alert.raised' && e.type !== 'alert.cleared') return false;
  return (e.data as { rule?: { webhook_id?: unknown } } | null)?.rule?.webhook_id === sub.id;
}

/**
 * The deliveries of one feed event for a subscription (none when it is not subscribed, filtered out, or not
 * sent in its format). `tooLarge` hears of a rendering over formats.ts MAX_RENDERED_BYTES, which is not stored.
 */
export function deliveriesFor(
  sub: WebhookSubscription,
  e: StoredEvent,
  now: string,
  areaOf: AreaOf = () => undefined,
  tooLarge: (eventId: string) => void = () => {},
): NewWebhookDelivery[] {
  if (!subscribed(sub, e)) return [];
  const data = filtered(sub.filter, e, areaOf);
  if (data === null) return [];
  const base = { subscription_id: sub.id, location_id: sub.location_id, event_seq: e.seq, type: e.type, created_at: now };
  const out: NewWebhookDelivery[] = [];
  for (const env of envelopesOf(sub, e, data)) {
    const payload = render(sub, env);
    if (payload === 'too large') tooLarge(env.id);
    else if (payload !== null) out.push({ ...base, event_id: env.id, payload });
  }
  return out;
}

/** A sample punch for POST /api/webhooks/{id}/test in a format other than `standard` (PIN 0 on terminal SAMPLE). */
function samplePunch(now: string) {
  return {
    sn: 'SAMPLE',
    records: [
      {
        id: 0,
        sn: 'SAMPLE',
        pin: '0',
        user_id: null,
        timestamp: now,
        local_time: now.slice(0, 19).replace('T', ' '),
        status: 0,
        status_label: 'check-in',
        verify: 1,
        verify_label: 'fingerprint',
        work_code: null,
        created_at: now,
        source: 'device',
        reason: null,
        created_by: null,
        voided_at: null,
        void_reason: null,
      },
    ],
  };
}

/**
 * POST /api/webhooks/{id}/test: a sample with the subscription's current settings, through the same queue,
 * signing and retries. `standard`: a `ping` event; any other format: a sample `attendance.recorded` punch
 * rendered as that format renders a real one (the filter does not apply; `template` renders it too).
 */
export function sampleFor(sub: WebhookSubscription, now: string): NewWebhookDelivery {
  const id = randomUUID();
  // Stored as a `ping` delivery whatever its body: outside the attendance order, so a failing sample holds no punch.
  const base = { subscription_id: sub.id, location_id: sub.location_id, event_id: id, event_seq: 0, type: 'ping', created_at: now };
  if (sub.format !== 'standard') {
    const payload = render(sub, { id, type: ATTENDANCE, location_id: sub.location_id, created_at: now, data: samplePunch(now) });
    if (payload !== null && payload !== 'too large') return { ...base, payload };
  }
  const ping = {
    id,
    type: 'ping',
    location_id: sub.location_id,
    created_at: now,
    data: { webhook_id: sub.id, message: 'BioGate webhook test' },
  };
  return { ...base, payload: JSON.stringify(ping) };
}
