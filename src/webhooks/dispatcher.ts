/**
 * The webhook delivery job: durable, at least once, one node at a time.
 *
 *   feed events (store) ─collect─► deliveries (store, pending) ─send─► receiver
 *        ▲ cursor per subscription                 │ attempts, back-off, 410, give-up
 *
 * `runOnce` is a SingletonJob (src/devices/hub.ts): it runs on the node holding the `job:webhooks`
 * lease, every second. For latency every node also follows the feed and, on an event, runs the job
 * at once if it holds that lease (another node's event reaches the holder through the change
 * stream). Collecting stores the deliveries *before* moving the subscription's cursor (compare-and-
 * set), and deliveries are unique per (subscription, event id): a crash in between stores nothing
 * twice, and a crash before an attempt is written leaves the delivery pending for the next run (or
 * node). A receiver may therefore see an event twice (at least once): it de-duplicates by webhook-id.
 *
 * Order: per subscription, deliveries go in feed order; `attendance.recorded` ones strictly so (the
 * next punch waits while an earlier one is being retried); other types do not wait for each other.
 *
 * The feed keeps events for BIOGATE_EVENTS_RETENTION_S / BIOGATE_EVENTS_KEEP: a subscription that is
 * disabled, or a gateway that is down, for longer than that misses what was pruned (logged).
 */
import type { Clock } from '../clock.js';
import type { EventFeed } from '../events/types.js';
import type { Logger } from '../log.js';
import { Counter, Gauge, type MetricsRegistry } from '../ops/metrics.js';
import type { Store } from '../store/types.js';
import type { WebhookDelivery, WebhookSubscription } from '../store/ports/index.js';
import { packageVersion } from '../version.js';
import type { DestinationPolicy } from './address-guard.js';
import { deliveriesFor } from './payload.js';
import { nextAttemptAt, parseRetryAfter, RETRY_WINDOW_MS } from './schedule.js';
import { createSender, type Sender } from './send.js';
import { signatureHeader } from './sign.js';

export const JOB_NAME = 'webhooks';
const JOB_EVERY_MS = 1_000;
/** Same lease as the Hub gives a SingletonJob of this period (min 30 s), so poke and job agree on the holder. */
const LEASE_MS = 30_000;
const EVENT_PAGE = 500;
const DUE_PAGE = 100;
/** Pages of due deliveries per subscription per run; the next run continues. */
const MAX_PAGES = 50;
/** Subscriptions served at once (each one sends in order, one request at a time). */
const PARALLEL_SUBSCRIPTIONS = 4;
/** A hole in a location's feed sequence (an event still being written on another node) is waited for this long, then skipped. */
const GAP_WAIT_MS = 5_000;
const POKE_DELAY_MS = 50;
/** How long a node trusts its list of locations that have enabled webhooks (feed events of others poke nothing). */
const WANTED_CACHE_MS = 5_000;
const PRUNE_EVERY_MS = 600_000;
/** Delivered and failed deliveries are kept this long for GET /api/webhooks/{id}/deliveries. */
export const DELIVERY_KEEP_MS = 7 * 86_400_000;
const PRUNE_BATCH = 5_000;
const ATTENDANCE = 'attendance.recorded';

export interface WebhookDispatcherDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly node: string;
  readonly policy: DestinationPolicy;
  readonly metrics?: MetricsRegistry;
  /** [0, 1) for the retry jitter. */
  readonly random?: () => number;
}

export interface WebhookDispatcher {
  /** The SingletonJob for the Hub. */
  readonly job: { readonly name: string; readonly everyMs: number; readonly run: () => Promise<void> };
  /** One pass: collect new events of every enabled subscription, then send what is due. Calls made during a pass wait for the next one. */
  runOnce(): Promise<void>;
  /** Runs a pass soon if this node holds the job lease (new events, a test ping). */
  poke(): void;
  /** Follows the feed (every node) to poke on events. */
  start(feed: EventFeed): void;
  stop(): Promise<void>;
}

export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const { store, clock, log } = deps;
  const random = deps.random ?? Math.random;
  const sender: Sender = createSender(deps.policy);
  const userAgent = `BioGate/${packageVersion()}`;
  const outcomes = deps.metrics?.register(
    new Counter(
      'biogate_webhook_deliveries_total',
      'Webhook delivery attempts by outcome (delivered, retrying, failed: gave up, gone: 410 disabled the subscription)',
    ),
  );
  deps.metrics?.register(
    new Gauge('biogate_webhook_queue_depth', 'Webhook deliveries waiting to be delivered (store-wide: aggregate with max)', async () => [
      { labels: {}, value: (await store.webhooks.pendingStats()).count },
    ]),
  );
  deps.metrics?.register(
    new Gauge(
      'biogate_webhook_oldest_pending_seconds',
      'Age of the oldest undelivered webhook delivery (store-wide: aggregate with max)',
      async () => {
        const { oldest } = await store.webhooks.pendingStats();
        return [{ labels: {}, value: oldest ? Math.max(0, (clock.now().getTime() - Date.parse(oldest)) / 1000) : 0 }];
      },
    ),
  );

  /** Per subscription: since when (process time) its next feed seq is missing. */
  const gaps = new Map<number, number>();
  /**
   * Per subscription: no attempts before this time (clock ms). Set when the receiver is unreachable
   * or overloaded (no answer, 429, 502–504): its other due deliveries wait with the one that failed
   * instead of each taking up to 15 s of the pass against a dead host. In memory: a restart forgets it.
   */
  const paused = new Map<number, number>();
  const PAUSING = new Set([429, 502, 503, 504]);
  let stopped = false;
  let lastPrune = 0;
  let current: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  let pokeTimer: NodeJS.Timeout | undefined;
  let feedSub: { close(): void } | undefined;

  const runOnce = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (queued) return queued;
    if (!current) {
      current = pass().finally(() => (current = null));
      return current;
    }
    queued = current
      .catch(() => undefined)
      .then(() => {
        queued = null;
        return runOnce();
      });
    return queued;
  };

  async function pass(): Promise<void> {
    const subs = await store.webhooks.listEnabled();
    let next = 0;
    const worker = async () => {
      while (!stopped && next < subs.length) {
        const sub = subs[next++] as WebhookSubscription;
        try {
          await collect(sub);
          await send(sub);
        } catch (err) {
          log.error({ err, webhook_id: sub.id, location_id: sub.location_id }, 'webhook: pass failed for a subscription');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_SUBSCRIPTIONS, subs.length) }, worker));
    const now = clock.now().getTime();
    if (!stopped && now - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = now;
      await store.webhooks.pruneDeliveries(new Date(now - DELIVERY_KEEP_MS).toISOString(), PRUNE_BATCH);
    }
  }

  /** Feed events after the cursor → stored deliveries, then the cursor moves (in that order: see the file comment). */
  async function collect(sub: WebhookSubscription): Promise<void> {
    let cursor = sub.cursor;
    for (;;) {
      const page = await store.cluster.eventsAfter(sub.location_id, cursor, EVENT_PAGE);
      if (page.length === 0) return;
      const first = page[0]?.seq as number;
      if (first !== cursor + 1) {
        const since = gaps.get(sub.id) ?? Date.now();
        gaps.set(sub.id, since);
        if (Date.now() - since < GAP_WAIT_MS) return;
        log.warn(
          { webhook_id: sub.id, location_id: sub.location_id, missing_from: cursor + 1, missing_to: first - 1 },
          'webhook: feed events are gone (pruned, or never written): not delivered',
        );
      }
      gaps.delete(sub.id);
      // Only the run without holes: a later seq may be visible before an earlier one is written (MongoDB).
      let last = first;
      for (const e of page) {
        if (e.seq > last + 1) break;
        last = e.seq;
      }
      const events = page.filter((e) => e.seq <= last);
      const now = clock.now().toISOString();
      await store.webhooks.addDeliveries(events.flatMap((e) => deliveriesFor(sub, e, now)));
      if (!(await store.webhooks.advanceCursor(sub.location_id, sub.id, cursor, last))) return; // moved by another pass: it owns this range
      cursor = last;
      if (page.length < EVENT_PAGE || last !== page.at(-1)?.seq) return;
    }
  }

  async function send(initial: WebhookSubscription): Promise<void> {
    let sub = initial;
    if ((paused.get(sub.id) ?? 0) > clock.now().getTime()) return;
    paused.delete(sub.id);
    for (let pages = 0; pages < MAX_PAGES && !stopped && sub.enabled; pages++) {
      const due = await store.webhooks.due(sub.location_id, sub.id, clock.now().toISOString(), DUE_PAGE);
      if (due.length === 0) return;
      const head = await store.webhooks.firstPending(sub.location_id, sub.id, ATTENDANCE);
      // attendance in feed order: none goes while an earlier one waits for its retry.
      let attendanceBlocked = head !== undefined && !due.some((d) => d.id === head.id);
      let progress = false;
      for (const d of due) {
        if (stopped || !sub.enabled) return;
        if (d.type === ATTENDANCE && attendanceBlocked) continue;
        const r = await attempt(sub, d);
        sub = r.sub;
        if (r.pauseUntil !== undefined) {
          paused.set(sub.id, r.pauseUntil);
          return;
        }
        if (r.delivered) progress = true;
        else if (d.type === ATTENDANCE) attendanceBlocked = true;
      }
      if (!progress || due.length < DUE_PAGE) return;
    }
  }

  async function attempt(
    sub: WebhookSubscription,
    d: WebhookDelivery,
  ): Promise<{ sub: WebhookSubscription; delivered: boolean; pauseUntil?: number }> {
    const at = clock.now();
    const secrets = [sub.secret];
    if (sub.previous_secret && sub.previous_valid_until && sub.previous_valid_until > at.toISOString()) secrets.push(sub.previous_secret);
    const headers = {
      'user-agent': userAgent,
      'webhook-id': d.event_id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatureHeader(secrets, d.event_id, at, d.payload),
    };
    const r = await sender.post(sub.url, headers, d.payload);
    // Stopping cut the request short: not the receiver's fault; the delivery stays as it was.
    if (stopped && r.status === null) return { sub, delivered: false };
    const after = clock.now();
    const afterIso = after.toISOString();
    const attempts = d.attempts + 1;
    const outcome = { attempts, last_status_code: r.status, last_error: r.error, duration_ms: r.durationMs };
    if (r.ok) {
      await store.webhooks.recordAttempt(d.location_id, d.id, {
        ...outcome,
        status: 'delivered',
        next_attempt_at: null,
        delivered_at: afterIso,
      });
      outcomes?.inc({ outcome: 'delivered' });
      const updated = sub.failing_since ? await store.webhooks.update(sub.location_id, sub.id, { failing_since: null }, afterIso) : sub;
      return { sub: updated ?? sub, delivered: true };
    }
    if (r.status === 410) {
      // 410 Gone: the receiver says this subscription is over.
      await store.webhooks.recordAttempt(d.location_id, d.id, { ...outcome, status: 'failed', next_attempt_at: null, delivered_at: null });
      outcomes?.inc({ outcome: 'gone' });
      return { sub: await disable(sub, `the receiver answered 410 Gone (${afterIso})`, afterIso), delivered: false };
    }
    const next = nextAttemptAt(new Date(d.created_at), after, attempts, parseRetryAfter(r.retryAfter, after), random);
    await store.webhooks.recordAttempt(d.location_id, d.id, {
      ...outcome,
      status: next ? 'pending' : 'failed',
      next_attempt_at: next?.toISOString() ?? null,
      delivered_at: null,
    });
    outcomes?.inc({ outcome: next ? 'retrying' : 'failed' });
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
      return {
        sub: await disable(sub, `every delivery attempt failed for 24 h since ${failingSince} (last: ${r.error ?? 'no answer'})`, afterIso),
        delivered: false,
      };
    }
    if (sub.failing_since === null)
      sub = (await store.webhooks.update(sub.location_id, sub.id, { failing_since: failingSince }, afterIso)) ?? sub;
    const pause = next !== null && (r.status === null || PAUSING.has(r.status));
    return pause ? { sub, delivered: false, pauseUntil: next.getTime() } : { sub, delivered: false };
  }

  async function disable(sub: WebhookSubscription, reason: string, now: string): Promise<WebhookSubscription> {
    log.warn({ webhook_id: sub.id, location_id: sub.location_id, reason }, 'webhook subscription disabled');
    return (
      (await store.webhooks.update(sub.location_id, sub.id, { enabled: false, disabled_reason: reason }, now)) ?? {
        ...sub,
        enabled: false,
        disabled_reason: reason,
      }
    );
  }

  let wantedCache: { at: number; ids: Promise<Set<number>> } | undefined;
  const wanted = (locationId: number): Promise<boolean> => {
    if (!wantedCache || Date.now() - wantedCache.at > WANTED_CACHE_MS) {
      const ids = store.webhooks.listEnabled().then((subs) => new Set(subs.map((x) => x.location_id)));
      ids.catch(() => (wantedCache = undefined));
      wantedCache = { at: Date.now(), ids };
    }
    return wantedCache.ids.then((ids) => ids.has(locationId));
  };

  const poke = (): void => {
    if (stopped || pokeTimer) return;
    pokeTimer = setTimeout(() => {
      pokeTimer = undefined;
      const now = clock.now().getTime();
      void store.cluster
        .acquireLease(`job:${JOB_NAME}`, deps.node, new Date(now).toISOString(), new Date(now + LEASE_MS).toISOString())
        .then((held) => (held ? runOnce() : undefined))
        .catch((err: unknown) => log.warn({ err }, 'webhook: poke failed; the periodic job delivers'));
    }, POKE_DELAY_MS);
    pokeTimer.unref();
  };

  return {
    job: { name: JOB_NAME, everyMs: JOB_EVERY_MS, run: runOnce },
    runOnce,
    poke,
    start(feed) {
      // Only events of locations with webhooks: a poke costs a lease write, and every node pokes.
      feedSub = feed.subscribe({ locationId: null }, (e) => {
        void wanted(e.location_id)
          .then((yes) => (yes ? poke() : undefined))
          .catch(() => undefined);
      });
    },
    async stop() {
      stopped = true;
      feedSub?.close();
      clearTimeout(pokeTimer);
      sender.close();
      await (queued ?? current)?.catch(() => undefined);
      await current?.catch(() => undefined);
    },
  };
}
