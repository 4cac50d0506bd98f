/**
 * The webhook delivery job: durable, at least once, one node at a time, one lane per subscription.
 *
 *   feed events (store) ─collect─► deliveries (store, pending) ─send─► receiver
 *        ▲ cursor per subscription                 │ attempts, back-off, 410, give-up, pause
 *
 * `kick` is a SingletonJob (src/devices/hub.ts): it runs on the node holding the `job:webhooks` lease, every
 * second, lists the enabled subscriptions and wakes each one's lane (lane.ts); it does not wait for them. Each
 * lane sends one request at a time, in order, with its own time budget; lanes share only the socket pool
 * (sockets.ts: BIOGATE_WEBHOOK_SOCKETS, which slow requests cannot fill). So there is no pass-wide barrier: a
 * receiver that takes 14 s per request delays its own subscription only. For latency every node also follows
 * the feed and, on an event, kicks at once if it holds that lease (another node's event reaches the holder
 * through the change stream). Collecting stores the deliveries *before* moving the subscription's cursor
 * (compare-and-set), and deliveries are unique per (subscription, event id): a crash in between stores
 * nothing twice, and a crash before an attempt is written leaves the delivery pending for the next run (or
 * node). A receiver may therefore see an event twice (at least once): it de-duplicates by webhook-id.
 *
 * The feed keeps events an enabled subscription has not collected (src/events/prune.ts) up to
 * BIOGATE_EVENTS_HOLD_MAX_S; a subscription that is disabled, or a gateway that is down, for longer than
 * BIOGATE_EVENTS_RETENTION_S / BIOGATE_EVENTS_KEEP misses what was pruned (logged).
 *
 * Finished deliveries are pruned after DELIVERY_KEEP_MS in batches of PRUNE_BATCH with a turn of the event loop
 * between them, every PRUNE_EVERY_MS, until none is due: as fast as they are written, without a long write.
 */
import { setImmediate as turn } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import type { EventFeed } from '../events/types.js';
import type { Logger } from '../log.js';
import { Counter, Gauge, type MetricsRegistry } from '../ops/metrics.js';
import type { Store } from '../store/types.js';
import { packageVersion } from '../version.js';
import type { DestinationPolicy } from './address-guard.js';
import { createLane, type Lane, type LaneContext } from './lane.js';
import { createSender } from './send.js';
import { createSocketPool } from './sockets.js';

export const JOB_NAME = 'webhooks';
const JOB_EVERY_MS = 1_000;
/** Same lease as the Hub gives a SingletonJob of this period (min 30 s), so poke and job agree on the holder. */
const LEASE_MS = 30_000;
/** Events within this long of each other make one kick (one listing, one wake of each lane). */
const POKE_DELAY_MS = 5;
/** A poke trusts a lease this node took until this long before it ends (the job renews it). */
const LEASE_TRUST_MARGIN_MS = 10_000;
/**
 * How long a node trusts its list of locations that have enabled webhooks (feed events of others poke nothing).
 * A location not in it is looked up again after WANTED_RECHECK_MS: a webhook created since, by the API on any node
 * or by the CLI, is poked for within that, not only by the job. A location in it stays trusted WANTED_CACHE_MS (a
 * webhook disabled since costs a poke or two, nothing else).
 */
const WANTED_CACHE_MS = 5_000;
const WANTED_RECHECK_MS = 250;
const PRUNE_EVERY_MS = 60_000;
/** Delivered and failed deliveries are kept this long for GET /api/webhooks/{id}/deliveries. */
export const DELIVERY_KEEP_MS = 7 * 86_400_000;
export const PRUNE_BATCH = 1_000;
export const DEFAULT_SOCKETS = 64;

export interface WebhookDispatcherDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly node: string;
  readonly policy: DestinationPolicy;
  readonly metrics?: MetricsRegistry;
  /** BIOGATE_WEBHOOK_SOCKETS (default DEFAULT_SOCKETS). */
  readonly sockets?: number;
  /** [0, 1) for the retry jitter. */
  readonly random?: () => number;
}

export interface WebhookDispatcher {
  /** The SingletonJob for the Hub (kick). */
  readonly job: { readonly name: string; readonly everyMs: number; readonly run: () => Promise<void> };
  /** Lists the enabled subscriptions and wakes their lanes; resolves once they are woken, not when they finish. */
  kick(): Promise<void>;
  /** Wakes every lane and waits until each has run a round that started after this call (tests, the CLI). */
  runOnce(): Promise<void>;
  /** Kicks soon if this node holds the job lease (new events, a test ping, a redeliver). */
  poke(): void;
  /** A subscription was created or enabled on this node: the next event looks the locations up again. */
  subscriptionsChanged(): void;
  /** Whether events of `locationId` poke (it has an enabled webhook, as this node last read it). */
  wants(locationId: number): Promise<boolean>;
  /** Follows the feed (every node) to poke on events. */
  start(feed: EventFeed): void;
  stop(): Promise<void>;
}

export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const { store, clock, log } = deps;
  const sockets = deps.sockets ?? DEFAULT_SOCKETS;
  const sender = createSender(deps.policy, 2 * sockets);
  const pool = createSocketPool(sockets);
  const outcomes = deps.metrics?.register(
    new Counter(
      'biogate_webhook_deliveries_total',
      'Webhook delivery attempts by outcome (delivered, retrying, failed: gave up, gone: 410 disabled the subscription)',
    ),
  );
  const pauses = deps.metrics?.register(
    new Counter(
      'biogate_webhook_paused_total',
      'Webhook subscriptions paused by reason (slow: over its time budget; unreachable: no answer, 429 or 502-504)',
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
  deps.metrics?.register(
    new Gauge('biogate_webhook_requests_in_flight', 'Webhook requests under way on this node (fresh: younger than 1 s; slow)', () => {
      const { fresh, slow } = pool.stats();
      return [
        { labels: { age: 'fresh' }, value: fresh },
        { labels: { age: 'slow' }, value: slow },
      ];
    }),
  );

  let stopped = false;
  const ctx: LaneContext = {
    store,
    clock,
    log,
    sender,
    pool,
    userAgent: `BioGate/${packageVersion()}`,
    random: deps.random ?? Math.random,
    outcomes,
    pauses,
    stopped: () => stopped,
  };
  const lanes = new Map<number, Lane>();
  let lastPrune = Number.NEGATIVE_INFINITY;
  let pruning: Promise<void> | null = null;
  let pokeTimer: NodeJS.Timeout | undefined;
  let feedSub: { close(): void } | undefined;

  /** Wakes the lane of every enabled subscription; drops idle lanes of subscriptions no longer enabled. */
  async function wakeAll(): Promise<Promise<void>[]> {
    if (stopped) return [];
    const readAt = performance.now();
    const subs = await store.webhooks.listEnabled();
    const enabled = new Set(subs.map((x) => x.id));
    for (const [id, lane] of lanes) if (!enabled.has(id) && !lane.busy()) lanes.delete(id);
    const rounds = subs.map((sub) => {
      let lane = lanes.get(sub.id);
      if (!lane) lanes.set(sub.id, (lane = createLane(ctx, sub)));
      return lane.wake(sub, readAt);
    });
    pruneWhenDue();
    return rounds;
  }

  /** Delivered and failed deliveries past DELIVERY_KEEP_MS, in bounded batches with a turn between, until none is due. */
  function pruneWhenDue(): void {
    const now = clock.now().getTime();
    if (pruning || now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    const before = new Date(now - DELIVERY_KEEP_MS).toISOString();
    pruning = (async () => {
      while (!stopped && (await store.webhooks.pruneDeliveries(before, PRUNE_BATCH)) === PRUNE_BATCH) await turn();
    })()
      .catch((err: unknown) => log.warn({ err }, 'webhook: pruning deliveries failed; the next run retries'))
      .finally(() => (pruning = null));
  }

  const kick = async (): Promise<void> => {
    // Lanes run on; a round never rejects (lane.ts logs its errors).
    void Promise.allSettled(await wakeAll());
  };
  const runOnce = async (): Promise<void> => {
    await Promise.all(await wakeAll());
  };

  let wantedCache: { at: number; ids: Promise<Set<number>> } | undefined;
  const listWanted = (now: number): Promise<Set<number>> => {
    const ids = store.webhooks.listEnabled().then((subs) => new Set(subs.map((x) => x.location_id)));
    const entry = { at: now, ids };
    ids.catch(() => {
      if (wantedCache === entry) wantedCache = undefined;
    });
    wantedCache = entry;
    return ids;
  };
  const wanted = async (locationId: number): Promise<boolean> => {
    const now = clock.now().getTime();
    const cached = wantedCache;
    if (!cached || now - cached.at > WANTED_CACHE_MS) return (await listWanted(now)).has(locationId);
    if ((await cached.ids).has(locationId)) return true;
    if (now - cached.at <= WANTED_RECHECK_MS) return false;
    // Only one look-up of a newer listing at a time: later callers share it.
    return ((wantedCache === cached ? await listWanted(now) : await wantedCache?.ids) ?? new Set<number>()).has(locationId);
  };

  /** The end of the job lease this node last took, for pokes (the lease is this node's until then). */
  let leaseHeldUntil = Number.NEGATIVE_INFINITY;
  const holdsLease = async (): Promise<boolean> => {
    const now = clock.now().getTime();
    if (now < leaseHeldUntil - LEASE_TRUST_MARGIN_MS) return true;
    const until = now + LEASE_MS;
    const held = await store.cluster.acquireLease(`job:${JOB_NAME}`, deps.node, new Date(now).toISOString(), new Date(until).toISOString());
    leaseHeldUntil = held ? until : Number.NEGATIVE_INFINITY;
    return held;
  };

  const poke = (): void => {
    if (stopped || pokeTimer) return;
    pokeTimer = setTimeout(() => {
      pokeTimer = undefined;
      void holdsLease()
        .then((held) => (held ? kick() : undefined))
        .catch((err: unknown) => log.warn({ err }, 'webhook: poke failed; the periodic job delivers'));
    }, POKE_DELAY_MS);
    pokeTimer.unref();
  };

  return {
    job: { name: JOB_NAME, everyMs: JOB_EVERY_MS, run: kick },
    kick,
    runOnce,
    poke,
    wants: wanted,
    subscriptionsChanged: () => void (wantedCache = undefined),
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
      pool.close();
      sender.close();
      // Each lane ends its round: a request under way was cut short by closing the sender.
      await Promise.all([...lanes.values()].map((lane) => lane.idle()));
      await pruning;
    },
  };
}
