/**
 * One subscription's lane: its own cursor, queue, order and time budget. The dispatcher (dispatcher.ts) wakes
 * lanes; nothing waits for all of them, so a slow receiver delays only its own subscription.
 *
 * A round: collect the feed events after the cursor into stored deliveries (then move the cursor, compare-and-
 * set), then send what is due, one request at a time, in feed order (`attendance.recorded` strictly: the next
 * punch waits while an earlier one is being retried), at most MAX_PAGES pages of DUE_PAGE.
 *
 * Budget: an attempt that takes SLOW_ATTEMPT_MS or more is a strike (answered or not); SLOW_STRIKES strikes in
 * a row pause the lane for a back-off (1 min, doubling to 1 h while it stays slow). No answer, a cut-off, 429 or
 * 502–504 pause it until the failed delivery's next attempt. A pause is stored on the subscription
 * (`paused_until`, `last_error`: the webhook view), logged (`webhook.paused`) and counted
 * (`biogate_webhook_paused_total{reason}`); collecting goes on meanwhile, so the feed is not held for it.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Counter } from '../ops/metrics.js';
import type { Store } from '../store/types.js';
import type { AttemptOutcome, WebhookDelivery, WebhookSubscription } from '../store/ports/index.js';
import { needsAreas, type AreaOf } from './filter.js';
import { deliveriesFor } from './payload.js';
import { nextAttemptAt, parseRetryAfter, RETRY_WINDOW_MS } from './schedule.js';
import type { Sender } from './send.js';
import { signatureHeader } from './sign.js';
import type { SocketPool } from './sockets.js';

const EVENT_PAGE = 500;
const DUE_PAGE = 100;
/** Pages of due deliveries per round; the next wake continues. */
const MAX_PAGES = 50;
/** Delivered outcomes are written at least this often while a page is being sent (see `flush`). */
const FLUSH_MS = 250;
/** A hole in a location's feed sequence (an event still being written on another node) is waited for this long, then skipped. */
const GAP_WAIT_MS = 5_000;
export const SLOW_ATTEMPT_MS = 5_000;
export const SLOW_STRIKES = 3;
const SLOW_PAUSE_MS = 60_000;
const SLOW_PAUSE_MAX_MS = 3_600_000;
const ATTENDANCE = 'attendance.recorded';
const PAUSING = new Set([429, 502, 503, 504]);

export interface LaneContext {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly sender: Sender;
  readonly pool: SocketPool;
  readonly userAgent: string;
  readonly random: () => number;
  readonly outcomes: Counter | undefined;
  readonly pauses: Counter | undefined;
  readonly stopped: () => boolean;
}

export interface Lane {
  /**
   * Runs a round that starts after this call (one at a time; wakes during a round make one more). `latest`: the
   * subscription as listed at `readAt` (performance.now()), taken at the round's start unless this lane wrote since.
   */
  wake(latest: WebhookSubscription, readAt: number): Promise<void>;
  /** True while a round runs or is queued. */
  busy(): boolean;
  /** Resolves when no round runs or is queued. */
  idle(): Promise<void>;
}

export function createLane(ctx: LaneContext, initial: WebhookSubscription): Lane {
  const { store, clock, log } = ctx;
  let sub = initial;
  let gapSince: number | undefined;
  let strikes = 0;
  let slowPauses = 0;
  let current: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  let listed: { sub: WebhookSubscription; at: number } | undefined;
  /** performance.now() of this lane's last write of its subscription (its copy is newer than a listing read before). */
  let wroteAt = -1;
  const write = async (patch: Parameters<Store['webhooks']['update']>[2], now: string): Promise<WebhookSubscription | undefined> => {
    const written = await store.webhooks.update(sub.location_id, sub.id, patch, now);
    wroteAt = performance.now();
    return written;
  };

  const round = async (): Promise<void> => {
    if (ctx.stopped()) return;
    if (listed) {
      // The cursor only moves on (a listing may predate this lane's last compare-and-set).
      if (listed.at >= wroteAt) sub = { ...listed.sub, cursor: Math.max(listed.sub.cursor, sub.cursor) };
      listed = undefined;
    }
    try {
      await collect();
      // Read again after collecting: the secrets that sign are at least as new as every event collected (a
      // listing read before a rotation would sign the events that follow it with the old secret alone).
      const fresh = await store.webhooks.get(sub.location_id, sub.id);
      if (fresh) sub = { ...fresh, cursor: Math.max(fresh.cursor, sub.cursor) };
      await send();
    } catch (err) {
      log.error({ err, webhook_id: sub.id, location_id: sub.location_id }, 'webhook: lane round failed');
    }
  };

  const wake = (latest: WebhookSubscription, readAt: number): Promise<void> => {
    if (!listed || readAt >= listed.at) listed = { sub: latest, at: readAt };
    if (queued) return queued;
    if (!current) {
      current = round().finally(() => (current = null));
      return current;
    }
    queued = current.then(() => {
      queued = null;
      current = round().finally(() => (current = null));
      return current;
    });
    return queued;
  };

  /** Feed events after the cursor → stored deliveries, then the cursor moves (in that order: dispatcher.ts). */
  async function collect(): Promise<void> {
    let cursor = sub.cursor;
    for (;;) {
      const page = await store.cluster.eventsAfter(sub.location_id, cursor, EVENT_PAGE);
      if (page.length === 0) return;
      const first = page[0]?.seq as number;
      if (first !== cursor + 1) {
        gapSince ??= Date.now();
        if (Date.now() - gapSince < GAP_WAIT_MS) return;
        log.warn(
          { webhook_id: sub.id, location_id: sub.location_id, missing_from: cursor + 1, missing_to: first - 1 },
          'webhook: feed events are gone (pruned, or never written): not delivered',
        );
      }
      gapSince = undefined;
      // Only the run without holes: a later seq may be visible before an earlier one is written (MongoDB).
      let last = first;
      for (const e of page) {
        if (e.seq > last + 1) break;
        last = e.seq;
      }
      const events = page.filter((e) => e.seq <= last);
      const now = clock.now().toISOString();
      const areaOf = await areasOf();
      const tooLarge = (eventId: string) =>
        log.warn({ webhook_id: sub.id, location_id: sub.location_id, event_id: eventId }, 'webhook: rendered body over 1 MiB: not sent');
      await store.webhooks.addDeliveries(events.flatMap((e) => deliveriesFor(sub, e, now, areaOf, tooLarge)));
      if (!(await store.webhooks.advanceCursor(sub.location_id, sub.id, cursor, last))) return; // moved by another node: it owns this range
      cursor = last;
      sub = { ...sub, cursor };
      if (page.length < EVENT_PAGE || last !== page.at(-1)?.seq) return;
    }
  }

  /** The location's terminals' areas, read when the filter names areas (once per page of events). */
  async function areasOf(): Promise<AreaOf> {
    if (!needsAreas(sub.filter)) return () => undefined;
    const areas = new Map((await store.devices.listAssignedBrief(sub.location_id)).map((d) => [d.serial_number, d.area_id]));
    return (sn) => areas.get(sn);
  }

  /**
   * Outcomes of delivered attempts not yet written: written together (one store write) before the next page is read,
   * when the lane stops sending, or once the oldest is FLUSH_MS old. A crash in between leaves those deliveries
   * pending, to be sent again: at least once, as for a crash between a request and its write.
   */
  let delivered: AttemptOutcome[] = [];
  let deliveredSince = 0;
  async function flush(): Promise<void> {
    if (delivered.length === 0) return;
    const outcomes = delivered;
    delivered = [];
    await store.webhooks.recordAttempts(sub.location_id, outcomes);
  }

  async function send(): Promise<void> {
    if (sub.paused_until && sub.paused_until > clock.now().toISOString()) return;
    try {
      await sendPages();
    } finally {
      await flush();
    }
  }

  async function sendPages(): Promise<void> {
    for (let pages = 0; pages < MAX_PAGES && !ctx.stopped() && sub.enabled; pages++) {
      await flush();
      const due = await store.webhooks.due(sub.location_id, sub.id, clock.now().toISOString(), DUE_PAGE);
      if (due.length === 0) return;
      const head = await store.webhooks.firstPending(sub.location_id, sub.id, ATTENDANCE);
      // attendance in feed order: none goes while an earlier one waits for its retry.
      let attendanceBlocked = head !== undefined && !due.some((d) => d.id === head.id);
      let progress = false;
      for (const d of due) {
        if (ctx.stopped() || !sub.enabled) return;
        if (d.type === ATTENDANCE && attendanceBlocked) continue;
        const r = await attempt(d);
        if (r === 'stopped' || r === 'paused') return;
        if (r === 'delivered') progress = true;
        else if (d.type === ATTENDANCE) attendanceBlocked = true;
        if (delivered.length > 0 && performance.now() - deliveredSince >= FLUSH_MS) await flush();
      }
      if (!progress || due.length < DUE_PAGE) return;
    }
  }

  async function attempt(d: WebhookDelivery): Promise<'delivered' | 'failed' | 'paused' | 'stopped'> {
    const at = clock.now();
    const secrets = [sub.secret];
    if (sub.previous_secret && sub.previous_valid_until && sub.previous_valid_until > at.toISOString()) secrets.push(sub.previous_secret);
    // The subscription's extra headers first: the API refuses names of the ones below, which always win.
    const headers = {
      ...sub.headers,
      'user-agent': ctx.userAgent,
      'webhook-id': d.event_id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatureHeader(secrets, d.event_id, at, d.payload),
    };
    const url = sub.url;
    const r = await ctx.pool.run((signal) => ctx.sender.post(url, headers, d.payload, signal));
    // The budget is judged on the injected clock as well as the request's own timing (tests move the clock).
    const tookMs = r === null ? 0 : Math.max(r.durationMs, clock.now().getTime() - at.getTime());
    // Stopping cut the request short (or it never started): not the receiver's fault; the delivery stays as it was.
    if (r === null || (ctx.stopped() && r.status === null)) return 'stopped';
    const after = clock.now();
    const afterIso = after.toISOString();
    const attempts = d.attempts + 1;
    const outcome = { attempts, last_status_code: r.status, last_error: r.error, duration_ms: r.durationMs };
    const slow = tookMs >= SLOW_ATTEMPT_MS || r.error?.startsWith('cut off') === true;
    strikes = slow ? strikes + 1 : 0;
    if (!slow) slowPauses = 0;
    if (r.ok) {
      if (delivered.length === 0) deliveredSince = performance.now();
      delivered.push({ id: d.id, ...outcome, status: 'delivered', next_attempt_at: null, delivered_at: afterIso });
      ctx.outcomes?.inc({ outcome: 'delivered' });
      if (sub.failing_since || sub.paused_until || sub.last_error) {
        sub = (await write({ failing_since: null, paused_until: null, last_error: null }, afterIso)) ?? sub;
      }
      if (strikes >= SLOW_STRIKES) return pauseSlow(after, tookMs);
      return 'delivered';
    }
    if (r.status === 410) {
      // 410 Gone: the receiver says this subscription is over.
      await store.webhooks.recordAttempts(d.location_id, [
        { id: d.id, ...outcome, status: 'failed', next_attempt_at: null, delivered_at: null },
      ]);
      ctx.outcomes?.inc({ outcome: 'gone' });
      await disable(`the receiver answered 410 Gone (${afterIso})`, afterIso);
      return 'failed';
    }
    const retryFrom = new Date(d.requeued_at ?? d.created_at);
    const next = nextAttemptAt(retryFrom, after, attempts, parseRetryAfter(r.retryAfter, after), ctx.random);
    await store.webhooks.recordAttempts(d.location_id, [
      { id: d.id, ...outcome, status: next ? 'pending' : 'failed', next_attempt_at: next?.toISOString() ?? null, delivered_at: null },
    ]);
    ctx.outcomes?.inc({ outcome: next ? 'retrying' : 'failed' });
    log.info(
      {
        webhook_id: sub.id,
        location_id: sub.location_id,
        delivery_id: d.id,
        attempts,
        status: r.status,
        error: r.error,
        next_attempt_at: next?.toISOString() ?? null,
      },
      'webhook: delivery attempt failed',
    );
    const failingSince = sub.failing_since ?? afterIso;
    if (after.getTime() - Date.parse(failingSince) >= RETRY_WINDOW_MS) {
      await disable(`every delivery attempt failed for 24 h since ${failingSince} (last: ${r.error ?? 'no answer'})`, afterIso);
      return 'failed';
    }
    if (sub.failing_since === null) sub = (await write({ failing_since: failingSince }, afterIso)) ?? sub;
    if (next !== null && (r.status === null || PAUSING.has(r.status))) {
      await pause(next, 'unreachable', r.error ?? `HTTP ${r.status}`, after);
      return 'paused';
    }
    if (strikes >= SLOW_STRIKES) return pauseSlow(after, tookMs);
    return 'failed';
  }

  async function pauseSlow(now: Date, lastMs: number): Promise<'paused'> {
    const ms = Math.min(SLOW_PAUSE_MS * 2 ** slowPauses, SLOW_PAUSE_MAX_MS);
    slowPauses++;
    strikes = 0;
    const error = `slow: ${SLOW_STRIKES} deliveries in a row took ${SLOW_ATTEMPT_MS / 1000} s or more (last ${(lastMs / 1000).toFixed(1)} s)`;
    await pause(new Date(now.getTime() + ms), 'slow', error, now);
    return 'paused';
  }

  async function pause(until: Date, reason: 'slow' | 'unreachable', error: string, now: Date): Promise<void> {
    const paused_until = until.toISOString();
    sub = (await write({ paused_until, last_error: error }, now.toISOString())) ?? {
      ...sub,
      paused_until,
      last_error: error,
    };
    ctx.pauses?.inc({ reason });
    log.warn({ webhook_id: sub.id, location_id: sub.location_id, reason, paused_until, error }, 'webhook.paused');
  }

  async function disable(reason: string, now: string): Promise<void> {
    log.warn({ webhook_id: sub.id, location_id: sub.location_id, reason }, 'webhook subscription disabled');
    sub = (await write({ enabled: false, disabled_reason: reason }, now)) ?? {
      ...sub,
      enabled: false,
      disabled_reason: reason,
    };
  }

  return {
    wake,
    busy: () => current !== null || queued !== null,
    idle: async () => {
      while (queued ?? current) await (queued ?? current);
    },
  };
}
