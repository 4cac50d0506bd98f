/**
 * The hub: serial number → DeviceActor, created on first request and dropped
 * when idle. It also runs the timers of the command lifecycle: presence, ack
 * timeouts, expiry, last_seen write-behind (each also callable directly, so
 * tests drive them with a fake clock instead of sleeping).
 */
import type { Clock } from '../clock.js';
import { BioGateError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { SyncQueue } from '../sync/queue.js';
import { sweepAccessWindowJob } from '../sync/access-window-job.js';
import { DeviceActor, type ActorDeps, type ActorReply, type PushRequest } from './actor.js';
import type { EventBus } from '../events/bus.js';
import type { FirmwareCache } from './firmware.js';
import type { DeviceGuard } from './guard.js';
import type { CommandLifecycle } from './lifecycle.js';
import { Presence } from './presence.js';
import type { RuntimeConfig } from './runtime-config.js';

export interface HubDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
  readonly sync: SyncQueue;
  readonly config: RuntimeConfig;
  readonly firmware: FirmwareCache;
  readonly lifecycle: CommandLifecycle;
  /** Counts an unknown upload table (metrics); the name is the device's, so it is bounded first. */
  readonly onUnknownTable?: (table: string) => void;
  /** Counts a result posted for a command the device was not sent (metrics). */
  readonly onStrayResult?: () => void;
  /** The trust check's comm key throttle and refusal metrics (devices/guard.ts). */
  readonly guard: DeviceGuard;
  /** BIOGATE_MAX_ACTORS: most actors in memory; the least recently active idle one makes room. */
  readonly maxActors?: number;
  /** This node's name (device and job leases, issue #14). */
  readonly node: string;
  /** A terminal moved here from `previous`: tell that node (through the event feed). */
  readonly onTakeover?: (sn: string, previous: string) => void;
  /** More periodic work that must run on one node at a time (the event feed's pruning, say). */
  readonly jobs?: readonly SingletonJob[];
  /** Whether the event feed announces every change to this node now (ActorDeps.feedTrusted); default: never. */
  readonly feedTrusted?: () => boolean;
}

export interface SingletonJob {
  readonly name: string;
  readonly everyMs: number;
  readonly run: () => Promise<unknown>;
}

const DEFAULT_MAX_ACTORS = 100_000;
/** Rows deleted per retention step; the sweep repeats until a step deletes fewer. */
const PRUNE_BATCH = 5_000;
const DAY_MS = 86_400_000;
/** Doubts (Hub.doubt) closer together than this are handled once, at the end of the interval. */
const DOUBT_EVERY_MS = 1_000;

export class Hub {
  readonly presence: Presence;
  /** In LRU order: the least recently active serial first. */
  readonly #actors = new Map<string, DeviceActor>();
  readonly #deps: HubDeps;
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #unsubscribe: (() => void)[];
  #actorDeps: ActorDeps | undefined;
  #lastDoubt = 0;
  #doubtTimer: NodeJS.Timeout | undefined;

  constructor(deps: HubDeps) {
    this.#deps = deps;
    this.presence = new Presence(deps.store, deps.bus, deps.log, deps.config.onlineThresholdS * 1000, deps.node);
    this.#unsubscribe = [
      deps.bus.on('mailbox.changed', ({ sn }) => this.#actors.get(sn)?.wake()),
      // The idle poll's snapshot of the device (issue #20) goes with any change to the record.
      deps.bus.on('device.updated', ({ device }) => this.#actors.get(device.serial_number)?.forget()),
    ];
  }

  /** The device changed on another node (through the event feed): its next poll reads the store. */
  deviceChanged(sn: string): void {
    this.#actors.get(sn)?.forget();
  }

  /**
   * A location was updated (disabled, time zone, comm key rule): its terminals' next polls read the store.
   * Actors with no snapshot are told too: one may be reading the old location right now (rare: location updates).
   */
  locationChanged(locationId: number): void {
    for (const actor of this.#actors.values()) if (actor.servesLocation(locationId)) actor.forget();
  }

  /**
   * What actors hold on the feed's word may be stale (the feed lost or regained the other nodes, or
   * another process wrote to the store): every actor reads the store at its next poll and held polls
   * look at it now. At most once a second (a CLI import commits many times), the last doubt always
   * honoured.
   */
  doubt(): void {
    if (this.#doubtTimer) return;
    const wait = this.#lastDoubt + DOUBT_EVERY_MS - Date.now();
    const run = () => {
      this.#doubtTimer = undefined;
      this.#lastDoubt = Date.now();
      for (const actor of this.#actors.values()) actor.doubt();
    };
    if (wait <= 0) return run();
    this.#doubtTimer = setTimeout(run, wait);
    this.#doubtTimer.unref();
  }

  get size(): number {
    return this.#actors.size;
  }

  handle(sn: string, req: PushRequest): Promise<ActorReply> | ActorReply {
    let actor = this.#actors.get(sn);
    if (actor) {
      // Least recently active first: re-inserting moves this serial to the end (LRU order).
      this.#actors.delete(sn);
      this.#actors.set(sn, actor);
      // [issue #20] an idle poll is answered from the actor's state, in this turn.
      const idle = actor.answerIdle(req);
      if (idle) return idle;
    } else {
      // Random serial numbers must not grow memory without bound (issue #12).
      if (this.#actors.size >= (this.#deps.maxActors ?? DEFAULT_MAX_ACTORS) && !this.#evictLeastRecent()) {
        this.#deps.log.warn({ sn, actors: this.#actors.size }, 'device actor limit reached and every actor is busy: request refused');
        // [PUSH-v2 §2.2] a non-200 makes the terminal keep its data and retry.
        return Promise.resolve({ status: 503, contentType: 'text/plain', body: 'busy' });
      }
      actor = new DeviceActor(sn, (this.#actorDeps ??= this.#makeActorDeps()));
      this.#actors.set(sn, actor);
    }
    return actor.handle(req);
  }

  /** Another node serves `sn` now: its held polls here end without claiming, and presence forgets it. */
  released(sn: string): void {
    this.#actors.get(sn)?.release();
    this.presence.forget(sn);
  }

  /** One set of dependencies for every actor (nothing in it is per device): less memory per terminal (issue #20). */
  #makeActorDeps(): ActorDeps {
    return {
      ...this.#deps,
      presence: this.presence,
      onTemplatesChanged: async (locationId, pins, sourceSn) => {
        // [DESIGN "Sync"] a template enrolled on one device goes to the location's other devices.
        await this.#deps.sync.queueUsers(locationId, pins, 'user.upsert', { exceptSn: sourceSn });
      },
      onUnknownTable: (table) => this.#deps.onUnknownTable?.(/^[A-Za-z0-9_:.-]{1,32}$/.test(table) ? table : 'other'),
      onStrayResult: () => this.#deps.onStrayResult?.(),
      onTakeover: (moved, previous) => this.#deps.onTakeover?.(moved, previous),
      feedTrusted: this.#deps.feedTrusted ?? (() => false),
      onDeviceUsers: async (locationId, deviceSn, pins, groupId) => {
        const r = await this.#deps.sync.removeExtraUsers(locationId, deviceSn, pins, { groupId });
        if (r.commands > 0) this.#deps.log.info({ sn: deviceSn, deletes: r.commands }, 'sync-users: removing users the location does not hold');
      },
    };
  }

  /** Drops the least recently active idle actor; false when every actor is busy. */
  #evictLeastRecent(): boolean {
    for (const [sn, actor] of this.#actors) {
      if (actor.heldPolls === 0 && actor.busy === 0) {
        this.#actors.delete(sn);
        return true;
      }
    }
    return false;
  }

  /** Starts the lifecycle timers (unref'd: they never keep the process alive). */
  start(): void {
    const every = (ms: number, fn: () => Promise<void> | void) => {
      const t = setInterval(() => {
        Promise.resolve(fn()).catch((err: unknown) => {
          // During a store outage every sweep fails until it is back: a warning, not a bug.
          if (err instanceof BioGateError && err.code === 'STORE_UNAVAILABLE') this.#deps.log.warn({ code: err.code }, 'device runtime timer skipped: store unavailable');
          else this.#deps.log.error({ err }, 'device runtime timer failed');
        });
      }, ms);
      t.unref();
      this.#timers.push(t);
    };
    // [issue #14] Cluster-wide work runs on one node at a time: whoever holds the job's lease. The
    // lease outlives one run (twice the period, 30 s to 10 min), so the holder keeps it while alive
    // and another node takes over once it stops renewing.
    const singleton = (name: string, ms: number, fn: () => Promise<unknown>) =>
      every(ms, async () => {
        const now = this.#deps.clock.now().getTime();
        const ttl = Math.min(Math.max(2 * ms, 30_000), 600_000);
        const held = await this.#deps.store.cluster.acquireLease(`job:${name}`, this.#deps.node, new Date(now).toISOString(), new Date(now + ttl).toISOString());
        if (held) await fn();
      });
    // Node-local: what this node's terminals did.
    every(2_000, () => this.sweepPresence());
    every(5_000, () => this.presence.flush());
    every(60_000, () => this.evictIdle());
    // Cluster-wide.
    singleton('commands', 10_000, () => this.sweepCommands());
    singleton('presence-orphans', 5_000, () => this.sweepOrphans());
    singleton('access-windows', 30_000, () => this.sweepAccessWindows());
    if (this.#deps.config.retentionDays > 0) singleton('retention', 3_600_000, () => this.pruneRetention());
    for (const job of this.#deps.jobs ?? []) singleton(job.name, job.everyMs, job.run);
  }

  async stop(): Promise<void> {
    for (const t of this.#timers.splice(0)) clearInterval(t);
    clearTimeout(this.#doubtTimer);
    for (const off of this.#unsubscribe) off();
    for (const a of this.#actors.values()) a.wake();
    await this.presence.flush();
  }

  sweepPresence(): Promise<void> {
    return this.presence.sweep(this.#deps.clock.now().getTime());
  }

  /** Devices left online by a node that is gone (see Presence.sweepOrphans). */
  sweepOrphans(): Promise<number> {
    return this.presence.sweepOrphans(this.#deps.clock.now().getTime());
  }

  /**
   * Expired pending commands fail; sent commands without a result after the ack timeout fail with
   * "no result from device", except sync ops, which are re-queued up to N times [PUSH-v2 §7.5].
   */
  async sweepCommands(): Promise<void> {
    const { store, clock, config, lifecycle } = this.#deps;
    const now = clock.now();
    await lifecycle.expire();
    const cutoff = new Date(now.getTime() - config.ackTimeoutS * 1000).toISOString();
    for (const c of await store.commands.sentBefore(cutoff, 500)) {
      // Remote enrolment waits for a person: its own, longer timeout [COMMANDS §4.16].
      if (c.command === 'enroll-biometric' && c.sent_at && now.getTime() - Date.parse(c.sent_at) < 600_000) continue;
      // A composite is sent while its members are; they settle it (lifecycle.settleGroup).
      if (c.group_id === c.id) continue;
      if (c.origin === 'sync' && c.attempts < config.syncRetries) {
        await lifecycle.requeue(c);
        continue;
      }
      for (const child of await store.commands.children(c.id)) {
        await store.commands.finish(child.id, { status: 'failed', error_message: 'no result from device' }, now.toISOString());
      }
      await lifecycle.finish(c, { status: 'failed', error_message: 'no result from device' });
    }
  }

  /**
   * [API-CONTRACT §7] BIOGATE_RETENTION_DAYS: attendance older than the cutoff and commands finished
   * before it are deleted, in bounded steps so the store is never locked for long.
   */
  async pruneRetention(): Promise<{ attendance: number; commands: number; records: number }> {
    const { store, clock, config, log } = this.#deps;
    const total = { attendance: 0, commands: 0, records: 0 };
    if (config.retentionDays <= 0) return total;
    const cutoff = new Date(clock.now().getTime() - config.retentionDays * DAY_MS).toISOString();
    const prune = async (port: { prune(before: string, limit: number): Promise<number> }) => {
      let deleted = 0;
      for (let n = PRUNE_BATCH; n === PRUNE_BATCH; deleted += n) n = await port.prune(cutoff, PRUNE_BATCH);
      return deleted;
    };
    total.attendance = await prune(store.attendance);
    total.commands = await prune(store.commands);
    total.records = await prune(store.deviceRecords);
    // Door and alarm events follow attendance's retention (issue #15); logged, not in the return value.
    const doorEvents = await prune(store.doorEvents);
    if (total.attendance + total.commands + total.records + doorEvents > 0) log.info({ cutoff, ...total, doorEvents }, 'retention: old records deleted');
    return total;
  }

  /**
   * v2 access windows: users whose window opened or closed since the last sweep go to the devices
   * that cannot hold it [API-CONTRACT §6]. The last swept instant is kept in the store, so a restart
   * or a second node neither skips nor repeats an edge (sync/access-window-job.ts).
   */
  async sweepAccessWindows(): Promise<number> {
    return sweepAccessWindowJob(this.#deps.store, this.#deps.sync, this.#deps.clock.now());
  }

  evictIdle(): void {
    const now = this.#deps.clock.now().getTime();
    for (const [sn, actor] of this.#actors) {
      if (actor.heldPolls === 0 && actor.busy === 0 && now - actor.lastActivity > this.#deps.config.idleEvictS * 1000) this.#actors.delete(sn);
    }
  }
}
