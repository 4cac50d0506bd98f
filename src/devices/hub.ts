/**
 * The hub: serial number → DeviceActor, created on first request and dropped
 * when idle. It also starts the timers of the command lifecycle (scheduler.ts):
 * presence, ack timeouts, expiry, last_seen write-behind, and the periodic jobs
 * it is given (each sweep also callable directly, so tests drive them with a
 * fake clock instead of sleeping).
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { Command } from '../store/ports/index.js';
import { DeviceActor } from './actor.js';
import type { ActorDeps, ActorReply, PushRequest } from './actor-types.js';
import type { EventBus } from '../events/bus.js';
import { SWEEP_AGE_MS, SWEEP_EVERY_MS } from '../events/outbox.js';
import type { FirmwareCache } from './firmware.js';
import type { DeviceGuard } from './guard.js';
import type { CommandLifecycle } from './lifecycle.js';
import { ExchangeLog, FLUSH_EVERY_MS as EXCHANGES_FLUSH_EVERY_MS } from './exchange-log.js';
import { Presence } from './presence.js';
import type { RuntimeConfig } from './runtime-config.js';
import { createScheduler, type Scheduler, type SingletonJob } from './scheduler.js';
import { commandSweepEveryMs, pruneRetention, sweepCommands } from './sweeps.js';

export type { SingletonJob } from './scheduler.js';

/** What the device runtime asks of user sync (sync/queue.ts SyncQueue has this shape). */
export interface UserSync {
  queueUsers(
    locationId: number,
    pins: readonly number[],
    op: 'user.upsert',
    options: { readonly exceptSn: string; readonly heldOnly: true },
  ): Promise<unknown>;
  queueAccessTables(locationId: number, sn: string): Promise<unknown>;
}

export interface HubDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
  readonly sync: UserSync;
  readonly config: RuntimeConfig;
  readonly firmware: FirmwareCache;
  readonly lifecycle: CommandLifecycle;
  /** Counts an unknown upload table (metrics); the name is the device's, so it is bounded first. */
  readonly onUnknownTable?: (table: string) => void;
  /** Counts a result posted for a command the device was not sent (metrics). */
  readonly onStrayResult?: () => void;
  /** The users a terminal reported for an audit or a sync-users query (sync/audit.ts compares and repairs). */
  readonly onDeviceUsers?: ActorDeps['onDeviceUsers'];
  readonly onAccessTables?: ActorDeps['onAccessTables'];
  /** A v2 heartbeat's counts (sync/audit.ts: an audit when they disagree with the roster). */
  readonly onReportedCounts?: ActorDeps['onReportedCounts'];
  /** A roster sync line refused by a terminal (sync/terminal-state.ts records it); default: nothing. */
  readonly onSyncRefused?: (sn: string, command: Command, code: number, message: string) => Promise<void>;
  /** The trust check's comm key throttle and refusal metrics (devices/guard.ts). */
  readonly guard: DeviceGuard;
  /** BIOGATE_MAX_ACTORS: most actors in memory; the least recently active idle one makes room. */
  readonly maxActors?: number;
  /** This node's name (device and job leases). */
  readonly node: string;
  /** A terminal moved here from `previous`: tell that node (through the event feed). */
  readonly onTakeover?: (sn: string, previous: string) => void;
  /** More periodic work that must run on one node at a time (the event feed's pruning, say). */
  readonly jobs?: readonly SingletonJob[];
  /** Whether the event feed announces every change to this node now (ActorDeps.feedTrusted); default: never. */
  readonly feedTrusted?: () => boolean;
  /**
   * v2 access windows: users whose window opened or closed since the last sweep go to the devices
   * that cannot hold it [API-CONTRACT §6] (sync/access-window-job.ts); returns the ops queued.
   */
  readonly sweepAccessWindows?: () => Promise<number>;
}

const DEFAULT_MAX_ACTORS = 100_000;
/** Doubts (Hub.doubt) closer together than this are handled once, at the end of the interval. */
const DOUBT_EVERY_MS = 1_000;

export class Hub {
  readonly presence: Presence;
  readonly exchanges: ExchangeLog;
  /** In LRU order: the least recently active serial first. */
  readonly #actors = new Map<string, DeviceActor>();
  readonly #deps: HubDeps;
  #scheduler: Scheduler | undefined;
  readonly #unsubscribe: (() => void)[];
  #actorDeps: ActorDeps | undefined;
  #lastDoubt = 0;
  #doubtTimer: NodeJS.Timeout | undefined;

  constructor(deps: HubDeps) {
    this.#deps = deps;
    this.presence = new Presence(deps.store, deps.bus, deps.log, deps.config.onlineThresholdS * 1000, deps.node);
    this.exchanges = new ExchangeLog(deps.store, deps.log, deps.node);
    this.#unsubscribe = [
      deps.bus.on('mailbox.changed', ({ sn }) => this.#actors.get(sn)?.wake()),
      // The idle poll's snapshot of the device goes with any change to the record.
      deps.bus.on('device.updated', ({ device }) => this.deviceChanged(device.serial_number, device.location_id)),
    ];
  }

  /**
   * The device changed, here or on another node or in the CLI (through the event feed): its next poll
   * reads the store, and a terminal online here that was assigned (or moved) is online to its new
   * location at once (Presence.located).
   */
  deviceChanged(sn: string, locationId?: number | null): void {
    this.#actors.get(sn)?.forget();
    if (locationId !== undefined) this.presence.located(sn, locationId, this.#deps.clock.now().getTime());
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
      // An idle poll is answered from the actor's state, in this turn.
      const idle = actor.answerIdle(req);
      if (idle) return idle;
    } else {
      // Random serial numbers must not grow memory without bound.
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

  /** One set of dependencies for every actor (nothing in it is per device): less memory per terminal. */
  #makeActorDeps(): ActorDeps {
    return {
      ...this.#deps,
      presence: this.presence,
      exchanges: this.exchanges,
      onTemplatesChanged: async (locationId, pins, sourceSn) => {
        // [DESIGN "Sync"] a template enrolled on one device goes to the location's other devices that hold its user.
        await this.#deps.sync.queueUsers(locationId, pins, 'user.upsert', { exceptSn: sourceSn, heldOnly: true });
      },
      onAccessTablesStored: async (locationId, sn) => {
        await this.#deps.sync.queueAccessTables(locationId, sn);
      },
      onUnknownTable: (table) => this.#deps.onUnknownTable?.(/^[A-Za-z0-9_:.-]{1,32}$/.test(table) ? table : 'other'),
      onStrayResult: () => this.#deps.onStrayResult?.(),
      onSyncRefused: async (sn, command, code, message) => this.#deps.onSyncRefused?.(sn, command, code, message),
      onTakeover: (moved, previous) => this.#deps.onTakeover?.(moved, previous),
      feedTrusted: this.#deps.feedTrusted ?? (() => false),
      onDeviceUsers: async (locationId, deviceSn, users, groupId) => this.#deps.onDeviceUsers?.(locationId, deviceSn, users, groupId),
      onAccessTables: async (locationId, deviceSn, held) => this.#deps.onAccessTables?.(locationId, deviceSn, held),
      onReportedCounts: async (device, counts) => this.#deps.onReportedCounts?.(device, counts),
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

  /** Starts the lifecycle timers and the jobs (scheduler.ts). */
  start(): void {
    const scheduler = (this.#scheduler = createScheduler(this.#deps));
    // Node-local: what this node's terminals did.
    scheduler.every(2_000, () => this.sweepPresence());
    scheduler.every(5_000, () => this.presence.flush());
    scheduler.every(EXCHANGES_FLUSH_EVERY_MS, () => this.exchanges.flush('due'));
    scheduler.every(60_000, () => this.evictIdle());
    // Cluster-wide.
    const jobs: SingletonJob[] = [
      { name: 'commands', everyMs: commandSweepEveryMs(this.#deps.config.ackTimeoutS), run: () => this.sweepCommands() },
      { name: 'presence-orphans', everyMs: 5_000, run: () => this.sweepOrphans() },
      // Presence changes whose event a crash or an outage kept from the feed (markers two minutes old).
      {
        name: 'presence-outbox',
        everyMs: SWEEP_EVERY_MS,
        run: () => this.presence.sweepUnannounced(new Date(this.#deps.clock.now().getTime() - SWEEP_AGE_MS).toISOString()),
      },
      { name: 'access-windows', everyMs: 30_000, run: () => this.sweepAccessWindows() },
      ...(this.#deps.config.retentionDays > 0 ? [{ name: 'retention', everyMs: 3_600_000, run: () => this.pruneRetention() }] : []),
      ...(this.#deps.jobs ?? []),
    ];
    for (const job of jobs) scheduler.singleton(job);
  }

  async stop(): Promise<void> {
    this.#scheduler?.stop();
    clearTimeout(this.#doubtTimer);
    for (const off of this.#unsubscribe) off();
    for (const a of this.#actors.values()) a.wake();
    await this.presence.flush();
    await this.exchanges.flush();
  }

  sweepPresence(): Promise<void> {
    return this.presence.sweep(this.#deps.clock.now().getTime());
  }

  /** Devices left online by a node that is gone (see Presence.sweepOrphans). */
  sweepOrphans(): Promise<number> {
    return this.presence.sweepOrphans(this.#deps.clock.now().getTime());
  }

  /** Expired and unanswered commands (sweeps.ts). */
  sweepCommands(): Promise<void> {
    return sweepCommands(this.#deps);
  }

  /** Old attendance, commands, records and door events (sweeps.ts). */
  pruneRetention(): Promise<{ attendance: number; commands: number; records: number }> {
    return pruneRetention(this.#deps);
  }

  /** HubDeps.sweepAccessWindows; 0 when none was given. */
  async sweepAccessWindows(): Promise<number> {
    return (await this.#deps.sweepAccessWindows?.()) ?? 0;
  }

  evictIdle(): void {
    const now = this.#deps.clock.now().getTime();
    for (const [sn, actor] of this.#actors) {
      if (actor.heldPolls === 0 && actor.busy === 0 && now - actor.lastActivity > this.#deps.config.idleEvictS * 1000)
        this.#actors.delete(sn);
    }
  }
}
