/**
 * The hub: serial number → DeviceActor, created on first request and dropped
 * when idle. It also runs the timers of the command lifecycle: presence, ack
 * timeouts, expiry, last_seen write-behind (each also callable directly, so
 * tests drive them with a fake clock instead of sleeping).
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { SyncQueue } from '../sync/queue.js';
import { DeviceActor, type PushRequest } from './actor.js';
import type { EventBus } from './event-bus.js';
import type { FirmwareCache } from './firmware.js';
import { Presence } from './presence.js';
import type { RuntimeConfig } from './runtime-config.js';
import type { DeviceReply } from '../../protocols/index.js';

export interface HubDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
  readonly sync: SyncQueue;
  readonly config: RuntimeConfig;
  readonly firmware: FirmwareCache;
  /** Counts an unknown upload table (metrics); the name is the device's, so it is bounded first. */
  readonly onUnknownTable?: (table: string) => void;
}

/** Rows deleted per retention step; the sweep repeats until a step deletes fewer. */
const PRUNE_BATCH = 5_000;
const DAY_MS = 86_400_000;

export class Hub {
  readonly presence: Presence;
  readonly #actors = new Map<string, DeviceActor>();
  readonly #deps: HubDeps;
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #unsubscribe: () => void;
  #windowSweptAt: Date | undefined;

  constructor(deps: HubDeps) {
    this.#deps = deps;
    this.presence = new Presence(deps.store, deps.bus, deps.log, deps.config.onlineThresholdS * 1000);
    this.#unsubscribe = deps.bus.on('mailbox.changed', ({ sn }) => this.#actors.get(sn)?.wake());
  }

  get size(): number {
    return this.#actors.size;
  }

  handle(sn: string, req: PushRequest): Promise<DeviceReply> {
    let actor = this.#actors.get(sn);
    if (!actor) {
      actor = new DeviceActor(sn, {
        ...this.#deps,
        presence: this.presence,
        onTemplatesChanged: async (locationId, pins, sourceSn) => {
          // [DESIGN "Sync"] a template enrolled on one device goes to the location's other devices.
          await this.#deps.sync.queueUsers(locationId, pins, 'user.upsert', { exceptSn: sourceSn });
        },
        onUnknownTable: (table) => this.#deps.onUnknownTable?.(/^[A-Za-z0-9_:.-]{1,32}$/.test(table) ? table : 'other'),
        onDeviceUsers: async (locationId, deviceSn, pins) => {
          const r = await this.#deps.sync.removeExtraUsers(locationId, deviceSn, pins);
          if (r.commands > 0) this.#deps.log.info({ sn: deviceSn, deletes: r.commands }, 'sync-users: removing users the location does not hold');
        },
      });
      this.#actors.set(sn, actor);
    }
    return actor.handle(req);
  }

  /** Starts the lifecycle timers (unref'd: they never keep the process alive). */
  start(): void {
    const every = (ms: number, fn: () => Promise<void> | void) => {
      const t = setInterval(() => {
        Promise.resolve(fn()).catch((err: unknown) => this.#deps.log.error({ err }, 'device runtime timer failed'));
      }, ms);
      t.unref();
      this.#timers.push(t);
    };
    every(2_000, () => this.sweepPresence());
    every(5_000, () => this.presence.flush());
    every(10_000, () => this.sweepCommands());
    every(60_000, () => this.evictIdle());
    every(30_000, async () => void (await this.sweepAccessWindows()));
    if (this.#deps.config.retentionDays > 0) every(3_600_000, async () => void (await this.pruneRetention()));
  }

  async stop(): Promise<void> {
    for (const t of this.#timers.splice(0)) clearInterval(t);
    this.#unsubscribe();
    for (const a of this.#actors.values()) a.wake();
    await this.presence.flush();
  }

  sweepPresence(): void {
    this.presence.sweep(this.#deps.clock.now().getTime());
  }

  /**
   * Expired pending commands fail; sent commands without a result after the ack timeout fail with
   * "no result from device", except sync ops, which are re-queued up to N times [PUSH-v2 §7.5].
   */
  async sweepCommands(): Promise<void> {
    const { store, clock, bus, config } = this.#deps;
    const now = clock.now();
    for (const c of await store.commands.expire(now.toISOString())) bus.emit('command.updated', { location_id: c.location_id, command: c });
    const cutoff = new Date(now.getTime() - config.ackTimeoutS * 1000).toISOString();
    for (const c of await store.commands.sentBefore(cutoff, 500)) {
      // Remote enrolment waits for a person: its own, longer timeout [COMMANDS §4.16].
      if (c.command === 'enroll-biometric' && c.sent_at && now.getTime() - Date.parse(c.sent_at) < 600_000) continue;
      if (c.origin === 'sync' && c.attempts < config.syncRetries) {
        const again = await store.commands.requeue(c.id, now.toISOString());
        if (again) bus.emit('mailbox.changed', { location_id: c.location_id, sn: c.sn });
        continue;
      }
      const done = await store.commands.finish(c.id, { status: 'failed', error_message: 'no result from device' }, now.toISOString());
      for (const child of await store.commands.children(c.id)) {
        await store.commands.finish(child.id, { status: 'failed', error_message: 'no result from device' }, now.toISOString());
      }
      if (done) bus.emit('command.updated', { location_id: done.location_id, command: done });
    }
  }

  /**
   * [API-CONTRACT §7] BIOGATE_RETENTION_DAYS: attendance older than the cutoff and commands finished
   * before it are deleted, in bounded steps so the store is never locked for long.
   */
  async pruneRetention(): Promise<{ attendance: number; commands: number }> {
    const { store, clock, config, log } = this.#deps;
    const total = { attendance: 0, commands: 0 };
    if (config.retentionDays <= 0) return total;
    const cutoff = new Date(clock.now().getTime() - config.retentionDays * DAY_MS).toISOString();
    for (let n = PRUNE_BATCH; n === PRUNE_BATCH; total.attendance += n) n = await store.attendance.prune(cutoff, PRUNE_BATCH);
    for (let n = PRUNE_BATCH; n === PRUNE_BATCH; total.commands += n) n = await store.commands.prune(cutoff, PRUNE_BATCH);
    if (total.attendance + total.commands > 0) log.info({ cutoff, ...total }, 'retention: old records deleted');
    return total;
  }

  /**
   * v2 access windows: users whose window opened or closed since the last sweep go to the devices
   * that cannot hold it [API-CONTRACT §6]. The first sweep after a start looks back a day, so edges
   * passed while the gateway was down are applied too (re-syncing a user is idempotent).
   */
  async sweepAccessWindows(): Promise<number> {
    const until = this.#deps.clock.now();
    const since = this.#windowSweptAt ?? new Date(until.getTime() - DAY_MS);
    const r = await this.#deps.sync.sweepAccessWindows(since, until);
    this.#windowSweptAt = until;
    return r.commands;
  }

  evictIdle(): void {
    const now = this.#deps.clock.now().getTime();
    for (const [sn, actor] of this.#actors) {
      if (actor.heldPolls === 0 && now - actor.lastActivity > this.#deps.config.idleEvictS * 1000) this.#actors.delete(sn);
    }
  }
}
