/**
 * One actor per device (DESIGN.md "Actor"): it owns the session, the codec,
 * and the mailbox, and processes one message at a time. Its state lives in the
 * store, so the hub may drop it when idle and a restart loses nothing.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  charsetFor, codecFor, detectVersion, inAttendanceWindow, registryCodeFrom, sessionIdFrom,
  type Charset, type Codec, type DecodeResult, type DeviceEvent, type DeviceReply, type QueuedLine, type RecordSource, type WireRequest,
} from '../../protocols/index.js';
import type { PresetId } from '../../protocols/catalog.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Device, DeviceSessionPatch, Location, Store } from '../store/types.js';
import { withFirmware } from './capabilities.js';
import type { EventBus } from '../events/bus.js';
import { FirmwareError, type FirmwareCache } from './firmware.js';
import type { CommandLifecycle } from './lifecycle.js';
import { EMPTY_BATCH, takeBatch, type Batch } from './outbox.js';
import { LogBudget, SAMPLES_PER_REQUEST, truncateBytes } from './log-budget.js';
import type { Presence } from './presence.js';
import { progressOf } from './progress.js';
import { addProgress, applyResult, finishCommand, type ResultContext } from './results.js';
import type { RuntimeConfig } from './runtime-config.js';
import { sanitizeOptions } from './session.js';
import type { DeviceGuard } from './guard.js';
import { checkTrust, type TrustVerdict } from './trust.js';
import { afterMove } from '../sync/device-move.js';
import { fromAttlog, punchFromAccess, punchFromRtlog, recordPunches, recordTemplates, type Punch } from './uploads.js';
import { doorEventBusPayload, doorEventsFromRtlog, doorEventsFromRtstate } from './door-events.js';

export { sanitizeOptions } from './session.js';

export interface ActorDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
  readonly presence: Presence;
  readonly config: RuntimeConfig;
  readonly firmware: FirmwareCache;
  /** Template changes fan out to the location's other devices (sync). */
  readonly onTemplatesChanged: (locationId: number, pins: readonly number[], sourceSn: string) => Promise<void>;
  /** Counts uploads of tables BioGate does not know (acknowledged so the device does not resend them). */
  readonly onUnknownTable: (table: string) => void;
  /** A sync-users audit found these users on the device (the location removes the ones it does not hold). */
  readonly onDeviceUsers: (locationId: number, sn: string, pins: readonly number[], groupId: number | null) => Promise<void>;
  readonly lifecycle: CommandLifecycle;
  /** Counts a result for a command this device was not sent. */
  readonly onStrayResult: () => void;
  /** Comm key throttle and refusal metrics, shared by every actor (devices/guard.ts). */
  readonly guard: DeviceGuard;
  /** This node's name: the owner written into the device's lease (issue #14). */
  readonly node: string;
  /** A terminal another node served until now came here: that node must let go (the feed tells it). */
  readonly onTakeover: (sn: string, previous: string) => void;
  /**
   * Whether the event feed announces every change to this node now (it follows the other nodes and
   * processes): then idle polls trust what the actor holds for longer, and held polls do not look
   * at the store on a timer (RuntimeConfig.pollTrust; issue #20).
   */
  readonly feedTrusted: () => boolean;
}

/** A reply, and what to do once it is known whether the terminal received it (see Batch); `charset`
 *  other than UTF-8 when the body must be sent in the device's character set [COMMANDS §3.10]. */
export type ActorReply = DeviceReply & { readonly onSettled?: (delivered: boolean) => void; readonly charset?: Charset };

/** Longest raw record stored (characters); a longer one is counted but not kept (issue #18). */
export const MAX_RAW_RECORD_CHARS = 64 * 1024;

const hasHighBytes = (body: Uint8Array): boolean => {
  for (const byte of body) if (byte >= 0x80) return true;
  return false;
};

export interface PushRequest {
  readonly wire: WireRequest;
  readonly decoded: DecodeResult;
  readonly remoteAddress: string;
  /** The terminal's side of the exchange: whether it went away, and a signal (made on first use) to wait on. */
  readonly client: { readonly gone: boolean; readonly signal: AbortSignal };
}

const reply = (status: number, body: string): DeviceReply => ({ status, contentType: 'text/plain', body });

/*
 * An idle poll trusts what the actor last read of its device and location, and that its mailbox was
 * empty, without asking the store (issue #20: five store reads per idle poll). Events drop the
 * snapshot or the "nothing pending" at once (the hub: `device.updated`, `location.changed`,
 * `mailbox.changed`, locally or through the feed from other nodes and the CLI; `doubt()` when the
 * feed may have missed something). For how long it is trusted without any (RuntimeConfig.pollTrust)
 * bounds what a change nobody announced costs: a second while the feed cannot be trusted, longer while
 * it can. Wall clock (like the held poll's deadline), so a test's fake clock does not freeze it.
 */

/** Why a held poll's wait ended. */
type Wake = 'work' | 'recheck' | 'timeout';

/** The actor's view of its device and location, as read from the store, trusted until `until`. */
interface Snapshot {
  readonly device: Device;
  readonly location: Location | undefined;
  readonly until: number;
}

export class DeviceActor {
  readonly sn: string;
  lastActivity = 0;
  heldPolls = 0;
  /** Requests of this serial in progress: a busy actor is never dropped (a second actor for the same serial would break "one message at a time"). */
  busy = 0;
  readonly #deps: ActorDeps;
  /** The actor's child logger, made on first use: most actors never log (issue #20, memory per terminal). */
  #childLog: Logger | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #wakers = new Set<(why: Wake) => void>();
  /**
   * Counts wake-ups. A poll notes it before it looks at the mailbox and waits only if it has not
   * moved since: work queued between the look and the wait (no waiter registered yet) is not missed
   * until the next periodic re-check (issue #20: that gap made commands wait seconds).
   */
  #wakeGeneration = 0;
  /** Log lines caused by what this serial sends: 5 a minute at most. */
  readonly #logBudget = new LogBudget(5, 60_000);
  readonly #ctx: ResultContext;
  /** The character set of the device's language, as its record said at its last request [PUSH-v2 §2.6]. */
  #charset: Charset = 'utf-8';
  /** Until when this node's lease on the device runs, as far as this node knows (0: not ours). */
  #leaseUntil = 0;
  /** Device and location for idle polls (see `#trustMs`); undefined: read the store. */
  #snapshot: Snapshot | undefined;
  /** Bumped by every `forget`: a store read that started before it must not become the snapshot. */
  #snapshotGeneration = 0;
  /**
   * The "pending hint": the store's mailbox was empty as of this wake generation, until `#drainedUntil`.
   * Any wake (new work queued here or announced by the feed) moves the generation on, so the next
   * poll reads the store again; -1: unknown.
   */
  #drainedAt = -1;
  #drainedUntil = 0;

  constructor(sn: string, deps: ActorDeps) {
    this.sn = sn;
    this.#deps = deps;
    const actor = this; // eslint-disable-line @typescript-eslint/no-this-alias -- the context's logger getter needs the actor
    this.#ctx = {
      sn, store: deps.store, clock: deps.clock, bus: deps.bus, config: deps.config,
      get log() {
        return actor.#log;
      },
      lifecycle: deps.lifecycle, onStrayResult: deps.onStrayResult,
      device: () => this.#device(),
      updateDevice: (patch) => this.#updateSession(patch),
      onDeviceUsers: deps.onDeviceUsers,
    };
  }

  get #log(): Logger {
    return (this.#childLog ??= this.#deps.log.child({ sn: this.sn }));
  }

  /** Processes one device request and returns the reply the firmware expects. */
  async handle(req: PushRequest): Promise<ActorReply> {
    this.lastActivity = this.#deps.clock.now().getTime();
    this.busy++;
    try {
      const r = req.decoded.endpoint === 'getrequest' ? await this.#poll(req) : await this.#serial(() => this.#process(req));
      return this.#inCharset(r);
    } finally {
      this.busy--;
    }
  }

  /** [COMMANDS §3.10] names go out in the device's character set (GB2312 for language 83). */
  #inCharset(r: ActorReply): ActorReply {
    return this.#charset === 'utf-8' ? r : { ...r, charset: this.#charset };
  }

  /**
   * [issue #20] An idle poll answered from the actor's state in the turn it arrived, without a store
   * read or a promise: the terminal is assigned, nothing is pending, the snapshot and the pending hint
   * are trusted (`#trustMs`), the lease needs no renewal and its dialect's polls are not held. It does
   * what the full path does for such a poll (the trust check, presence, the empty reply) and nothing
   * else; anything else (other events in the poll, a registration token to bind, a lease
   * to renew, work queued, another request of this serial in progress) is undefined: `handle` then.
   */
  answerIdle(req: PushRequest): ActorReply | undefined {
    const decoded = req.decoded;
    // A poll decodes to one heartbeat (its INFO, if any, is not kept: the full path ignores it too).
    if (this.busy > 0 || decoded.endpoint !== 'getrequest' || decoded.rejected > 0 || decoded.events.length !== 1 || decoded.events[0]?.type !== 'heartbeat') return undefined;
    const s = this.#snapshot;
    const now = performance.now();
    if (!s?.location || now >= s.until || this.#drainedAt !== this.#wakeGeneration || now >= this.#drainedUntil) return undefined;
    const codec = this.#codecOf(s.device);
    if (this.#deps.config.longpollS[codec.version] > 0) return undefined;
    const nowMs = this.#deps.clock.now().getTime();
    if (this.#leaseUntil - nowMs <= (this.#deps.config.deviceLeaseS * 1000) / 2) return undefined;
    const verdict = checkTrust(s.device, req, this.#deps.guard.throttle, nowMs);
    if (verdict.ok && verdict.bind) return undefined;
    this.lastActivity = nowMs;
    // [API-CONTRACT §6] refused: no data in, none out, not even presence (the full path's answer too).
    if (!verdict.ok) return this.#refuse(verdict, req);
    this.#deps.presence.seen(this.sn, s.device.location_id, req.remoteAddress, nowMs);
    this.#inDeviceLanguage(req, s.device);
    return this.#inCharset(codec.replies.commands([]));
  }

  /**
   * Another node serves this terminal now (it reached that node with a newer request): held polls
   * here answer empty and claim nothing, since the terminal is no longer listening on them.
   */
  release(): void {
    this.#leaseUntil = 0;
    this.wake();
  }

  /**
   * The device or its location changed (or may have, as far as this node can tell): the next poll
   * reads both from the store.
   */
  forget(): void {
    this.#snapshot = undefined;
    this.#snapshotGeneration++;
    // A held poll looks again: its terminal may have been unassigned, or its location disabled.
    this.#notify('recheck');
  }

  /** Whether a location change may concern this actor: its snapshot is of that location, or it has none (a read may be under way). */
  servesLocation(locationId: number): boolean {
    return this.#snapshot === undefined || this.#snapshot.device.location_id === locationId;
  }

  /** New pending work: release held polls. */
  wake(): void {
    this.#wakeGeneration++;
    this.#notify('work');
  }

  /**
   * What this actor holds on the feed's word may be stale (the feed lost or regained the other
   * nodes, or another process wrote to the store): the next poll reads the store, and held polls
   * look at it now.
   */
  doubt(): void {
    this.#drainedAt = -1;
    this.forget();
  }

  #notify(why: Wake): void {
    if (this.#wakers.size === 0) return;
    const wakers = [...this.#wakers];
    this.#wakers.clear();
    for (const w of wakers) w(why);
  }

  /** How long an idle poll trusts the snapshot and the pending hint, and how often a held poll looks at the store (ms). */
  #trustMs(): number {
    const trust = this.#deps.config.pollTrust;
    return this.#deps.feedTrusted() ? trust.trustedMs : trust.untrustedMs;
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(fn, fn);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  // ------------------------------------------------------------------ session

  async #device(): Promise<Device | undefined> {
    return this.#deps.store.devices.getBySerial(this.sn);
  }

  /**
   * The result context for one reply: the device is read once for all of its results (each result
   * may teach a capability [COMMANDS §2.6]) and replaced by what this reply's own updates return.
   */
  #replyContext(): ResultContext {
    let device: Promise<Device | undefined> | undefined;
    return Object.assign(Object.create(this.#ctx) as ResultContext, {
      device: () => (device ??= this.#device()),
      updateDevice: async (patch: DeviceSessionPatch) => {
        const updated = await this.#updateSession(patch);
        device = Promise.resolve(updated);
        return updated;
      },
    });
  }

  /**
   * Device and location for a poll: the snapshot while it is trusted, else read (`ensure`: recording
   * an unknown serial, as any first request does) and kept if nothing was forgotten meanwhile.
   */
  async #current(ensure: boolean, fresh = false): Promise<{ device: Device | undefined; location: Location | undefined }> {
    const s = this.#snapshot;
    if (!fresh && s && performance.now() < s.until) return s;
    const generation = this.#snapshotGeneration;
    const device = ensure ? await this.#ensure() : await this.#device();
    const location = await this.#location(device);
    if (device && generation === this.#snapshotGeneration) this.#snapshot = { device, location, until: performance.now() + this.#trustMs() };
    return { device, location };
  }

  async #location(device: Device | undefined): Promise<Location | undefined> {
    if (!device || device.location_id === null) return undefined;
    const location = await this.#deps.store.locations.get(device.location_id);
    return location?.is_active ? location : undefined;
  }

  /**
   * The time zone a terminal is told: its location's even while the location is disabled (a
   * disabled location's terminals keep their wall clock; `TimeZone=0` would shift their punches).
   */
  async #timeZone(device: Device | undefined, location: Location | undefined): Promise<string> {
    if (location) return location.timezone;
    if (!device || device.location_id === null) return 'UTC';
    return (await this.#deps.store.locations.get(device.location_id))?.timezone ?? 'UTC';
  }

  /**
   * A device moved from another location still holds that location's users until their deletes
   * run: a load-users an integrator asked for does not list them (they are not this location's).
   * The sync-users audit (origin system) sees them all, so that it removes them.
   */
  async #notOtherLocations<R extends { readonly pin: string }>(device: Device | undefined, location: Location | undefined, cmdId: number, records: readonly R[]): Promise<readonly R[]> {
    if (!device?.state?.movedAt || !location || records.length === 0) return records;
    if ((await this.#deps.store.commands.getById(cmdId))?.origin === 'system') return records;
    const others = new Set((await this.#deps.store.commands.syncedPinsElsewhere(this.sn, location.id)).map(String));
    return records.filter((r) => !others.has(String(Number(r.pin))));
  }

  /**
   * [issue #14] The node serving the terminal's request owns it: the lease is taken (from whoever held
   * it: the terminal is where its newest request is) or renewed once half of it has run out.
   */
  async #own(device: Device | undefined): Promise<void> {
    if (!device) return;
    const now = this.#deps.clock.now().getTime();
    const leaseMs = this.#deps.config.deviceLeaseS * 1000;
    if (this.#leaseUntil - now > leaseMs / 2) return;
    const until = now + leaseMs;
    const before = await this.#deps.store.cluster.claimDevice(this.sn, this.#deps.node, new Date(until).toISOString());
    this.#leaseUntil = until;
    const previous = before?.owner_node;
    if (previous && previous !== this.#deps.node && before.lease_until !== null && Date.parse(before.lease_until) > now) {
      this.#log.info({ previous }, 'device moved here from another node');
      this.#deps.onTakeover(this.sn, previous);
    }
  }

  /** Whether this node still serves the terminal: checked in the store before a held poll claims anything. */
  async #stillOwned(): Promise<boolean> {
    if (this.#leaseUntil === 0) return false;
    const lease = await this.#deps.store.cluster.deviceLease(this.sn);
    if (lease && lease.owner_node !== null && lease.owner_node !== this.#deps.node) {
      this.#leaseUntil = 0;
      return false;
    }
    return true;
  }

  #codecOf(device: Device | undefined): Codec {
    return codecFor(device?.version_override ?? device?.version ?? '2.0.0');
  }

  /** Records an unknown serial as an unassigned device, within BIOGATE_MAX_UNASSIGNED. */
  async #ensure(): Promise<Device | undefined> {
    const existing = await this.#device();
    if (existing) return existing;
    if ((await this.#deps.store.devices.countUnassigned()) >= this.#deps.config.maxUnassigned) {
      this.#log.warn('unassigned device limit reached: not recording this serial');
      return undefined;
    }
    const recorded = await this.#deps.store.devices.ensure(this.sn, this.#now());
    // First contact of a serial no location holds [issue #19]: the admin assigns it (GET /admin/devices/unassigned).
    if (recorded?.location_id === null) this.#log.info('unknown device registered: waiting to be assigned');
    return recorded;
  }

  #now(): string {
    return this.#deps.clock.now().toISOString();
  }

  async #updateSession(patch: DeviceSessionPatch): Promise<Device | undefined> {
    if (patch.options) {
      // [COMMANDS §2.6] new firmware: what was learned about the old one no longer holds.
      const current = patch.state !== undefined ? patch.state : ((await this.#device())?.state ?? null);
      const state = withFirmware(current, patch.options);
      if (state !== current || patch.state !== undefined) patch = { ...patch, state };
    }
    const device = await this.#deps.store.devices.updateSession(this.sn, patch, this.#now());
    this.forget();
    if (device) this.#deps.bus.emit('device.updated', { location_id: device.location_id, device });
    return device;
  }

  // ------------------------------------------------------------------ requests

  async #process(req: PushRequest): Promise<DeviceReply> {
    // An idle poll is answered from the snapshot (issue #20); every other request reads the store.
    const known = req.decoded.endpoint === 'getrequest' ? await this.#current(true) : undefined;
    let device = known ? known.device : await this.#ensure();
    const verdict = checkTrust(device, req, this.#deps.guard.throttle, this.#deps.clock.now().getTime());
    // [API-CONTRACT §6] refused: no data in, none out, not even presence.
    if (!verdict.ok) return this.#refuse(verdict, req);
    if (verdict.bind) {
      // [PUSH-v3 §5] the terminal presented the token of its registration: from now on it must.
      device = await this.#updateSession({ token_bound_at: this.#now() });
      this.#log.info('registration token bound: requests without it are refused from now on');
    }
    await this.#own(device);
    this.#deps.presence.seen(this.sn, device?.location_id ?? null, req.remoteAddress, this.#deps.clock.now().getTime());
    const decoded = this.#inDeviceLanguage(req, device);
    if (decoded.rejected > 0) {
      // Device-sent text, possibly from an unauthenticated sender: truncated, few, rate-limited (issue #12).
      const suppressed = this.#logBudget.take(this.#deps.clock.now().getTime());
      if (suppressed !== undefined) {
        const samples = decoded.rejectedSamples.slice(0, SAMPLES_PER_REQUEST).map((l) => truncateBytes(l));
        this.#log.warn({ rejected: decoded.rejected, samples, endpoint: decoded.endpoint, suppressed }, 'device lines rejected');
      }
    }
    let location = known ? known.location : await this.#location(device);
    let codec = this.#codecOf(device);
    let accepted = 0;
    let hold = false;

    for (const event of decoded.events) {
      switch (event.type) {
        case 'handshake': {
          const version = detectVersion(req.wire, device?.version_override ?? undefined);
          const pushver = event.pushVersion;
          device = await this.#updateSession({
            version,
            ...(device?.registered_at ? {} : { registered_at: this.#now() }),
            options: sanitizeOptions({ ...(device?.options ?? {}), ...(pushver ? { PushVersion: pushver } : {}), ...(event.deviceType ? { DeviceType: event.deviceType } : {}), ...(event.language ? { Language: event.language } : {}) }),
          });
          codec = this.#codecOf(device);
          location = await this.#location(device);
          if (location) await this.#restarted(location);
          const registration = device?.registry_code && device.session_id ? { registryCode: device.registry_code, sessionId: device.session_id } : undefined;
          // [PUSH-v2 §4.7] a full attendance re-upload was requested (check-attendance fallback): once.
          const reupload = device?.state?.attlogReupload === true;
          if (reupload) device = await this.#updateSession({ state: { ...device?.state, attlogReupload: false } });
          return codec.replies.handshake({
            sn: this.sn, timeZone: await this.#timeZone(device, location), now: this.#deps.clock.now(),
            ...(registration ? { registration } : {}), ...(pushver === null ? { legacyStamps: true } : {}), ...(reupload ? { fullAttlogReupload: true } : {}),
          });
        }
        case 'registration': {
          const registry_code = device?.registry_code ?? registryCodeFrom(randomBytes(10));
          // [PUSH-v3 §3.6] terminals re-register on every connection but fetch the configuration (and its
          // SessionID, the input of their token [PUSH-v3 §5]) once: keep the session stable.
          const session_id = device?.session_id ?? sessionIdFrom(randomBytes(16));
          const version = device?.version_override ?? '3.0.0';
          device = await this.#updateSession({
            registry_code, session_id, version, ...(device?.registered_at ? {} : { registered_at: this.#now() }),
            options: { ...(device?.options ?? {}), ...sanitizeOptions(event.options.values) },
          });
          return codecFor(version).replies.registry(registry_code);
        }
        case 'configRequest': {
          const sessionId = device?.session_id ?? sessionIdFrom(randomBytes(16));
          if (!device?.session_id) device = await this.#updateSession({ session_id: sessionId });
          return codecFor('3.0.0').replies.config({ sessionId });
        }
        case 'options':
          device = await this.#updateSession({ options: { ...(device?.options ?? {}), ...sanitizeOptions(event.options.values) } });
          accepted++;
          break;
        case 'heartbeat':
          hold = true;
          break;
        case 'ping':
        case 'keyExchange':
        case 'serviceControl':
          break;
        case 'timeRequest':
          return codec.replies.time(this.#deps.clock.now(), await this.#timeZone(device, location), event.flavor);
        case 'attendance':
        case 'doorEvents':
        case 'accessRecords': {
          const punches: Punch[] =
            event.type === 'attendance' ? event.records.map(fromAttlog)
            : event.type === 'doorEvents' ? event.records.flatMap((r) => punchFromRtlog(r) ?? [])
            : event.records.flatMap((r) => punchFromAccess(r) ?? []);
          if (event.type === 'doorEvents' && device && location) {
            // [issue #15] kept before the terminal is answered; a re-sent line is stored and announced once.
            const stored = await this.#deps.store.doorEvents.append(doorEventsFromRtlog(this.sn, location, event.records), this.#now());
            for (const e of stored) this.#deps.bus.emit('door.event', doorEventBusPayload(e));
          }
          if (punches.length > 0 && (!device || !location)) {
            // [PUSH-v2 §2.2] a non-200 makes the device keep the records and resend: nothing is lost while unassigned.
            return reply(503, 'device not assigned');
          }
          if (device && location && punches.length > 0) {
            const answering = await this.#checkAttendanceFor(event.type === 'doorEvents' ? undefined : event.source, device);
            const window = answering?.window;
            // [COMMANDS §4.17] v3 answers the whole table: keep only rows inside the window.
            const inWindow = window ? punches.filter((p) => inAttendanceWindow(p.time.replace('T', ' '), window)) : punches;
            // A device moved from another location: punches stamped before the move are the old
            // location's, never the new one's; acknowledged so the terminal does not resend them.
            const kept = afterMove(inWindow, device.state?.movedAt, location.timezone);
            const r = await recordPunches(this.#deps.store, this.#deps.bus, device, location, kept, this.#now());
            accepted += r.accepted + (punches.length - kept.length);
            if (answering) {
              await addProgress(this.#ctx, answering.id, (p) => ({
                ...p, attendance: { received: (p.attendance?.received ?? 0) + kept.length, stored: (p.attendance?.stored ?? 0) + r.stored },
              }));
            }
          } else accepted += event.records.length;
          break;
        }
        case 'fingerprintTemplates':
        case 'faceTemplates':
        case 'fingerVeinTemplates':
        case 'bioTemplates': {
          if (!device || !location) return reply(503, 'device not assigned');
          const items =
            event.type === 'fingerprintTemplates' ? event.records.map((t) => ({ kind: 'fingerprint' as const, t }))
            : event.type === 'faceTemplates' ? event.records.map((t) => ({ kind: 'face' as const, t }))
            : event.type === 'fingerVeinTemplates' ? event.records.map((t) => ({ kind: 'vein' as const, t }))
            : event.records.map((t) => ({ kind: 'bio' as const, t }));
          const r = await recordTemplates(this.#deps.store, device, location, items, this.#now());
          accepted += r.accepted + r.skipped;
          if (r.changedPins.length > 0) await this.#deps.onTemplatesChanged(location.id, r.changedPins, this.sn);
          break;
        }
        case 'users': {
          // Users a device reports are recorded for the load-users command that asked, never created [API-CONTRACT §5].
          const cmdId = event.source.kind === 'query' ? Number(event.source.cmdId) : await this.#outstanding('load-users', device);
          if (cmdId !== undefined && Number.isSafeInteger(cmdId)) {
            const records = await this.#notOtherLocations(device, location, cmdId, event.records);
            await addProgress(this.#ctx, cmdId, (p) => ({ ...p, users: [...(p.users ?? []), ...records] }));
          }
          accepted += event.records.length;
          break;
        }
        case 'queryOptions': {
          const id = Number(event.cmdId);
          const options = sanitizeOptions(event.options.values);
          if (Number.isSafeInteger(id)) await addProgress(this.#ctx, id, (p) => ({ ...p, options }));
          device = await this.#updateSession({ options: { ...(device?.options ?? {}), ...options } });
          break;
        }
        case 'queryCount':
          break;
        case 'doorStates':
          if (device && location) {
            const stored = await this.#deps.store.doorEvents.append(doorEventsFromRtstate(this.sn, location, event.records), this.#now());
            for (const e of stored) this.#deps.bus.emit('door.event', doorEventBusPayload(e));
          }
          accepted += event.records.length;
          break;
        case 'userPhotos':
        case 'bioPhotos':
        case 'attendancePhotos':
        case 'operationLogs':
          // Acknowledged, not stored: BioGate keeps no photos or operation logs (README "Device protocol").
          accepted += event.records.length;
          this.#log.debug({ type: event.type, count: event.records.length }, 'upload acknowledged, not stored');
          break;
        case 'errorLogs':
          accepted += event.records.length;
          {
            // An ERRORLOG flood is one summary line: the count and the first few, truncated, rate-limited.
            const suppressed = this.#logBudget.take(this.#deps.clock.now().getTime());
            if (suppressed !== undefined) {
              const errors = event.records.slice(0, SAMPLES_PER_REQUEST).map((r) => truncateBytes(JSON.stringify(r)));
              this.#log.warn({ count: event.records.length, errors, suppressed }, 'device reported errors');
            }
          }
          break;
        case 'commandResults':
          // One commit for the reply's results (50 commands are some 300 small writes) [issue #20].
          await this.#deps.store.unitOfWork(async () => {
            const ctx = this.#replyContext();
            for (const result of event.results) await applyResult(ctx, codec, result);
          });
          break;
        case 'remoteUserLookup':
          return codec.replies.remoteUser([]);
        case 'fileRequest':
          return this.#file(event.url, device);
        case 'unknownRecords':
          accepted += event.lines.length;
          this.#deps.onUnknownTable(event.source.table);
          this.#log.info({ table: event.source.table, lines: event.lines.length }, 'unknown record tags acknowledged');
          break;
        case 'rawRecords': {
          // [issue #18] tables kept unparsed: stored raw per record, counted per record. An unassigned
          // device's are acknowledged and dropped as before (a 503 could stall a controller's
          // registration, which sends `DeviceAuthorize` this way [PUSH-v3 §7.4]).
          accepted += event.records.length;
          if (event.unknown) this.#deps.onUnknownTable(event.source.table);
          if (!device || !location) {
            this.#log.debug({ table: event.source.table, records: event.records.length }, 'records of an unassigned device acknowledged, not stored');
            break;
          }
          const records = event.records.filter((r) => r.length <= MAX_RAW_RECORD_CHARS);
          if (records.length < event.records.length) this.#log.warn({ table: event.source.table, dropped: event.records.length - records.length }, 'oversized raw records not stored');
          const source = event.source;
          await this.#deps.store.deviceRecords.append({
            location_id: location.id, sn: this.sn, table: source.table, source: source.kind, cmd_id: source.kind === 'query' ? source.cmdId : null, records,
          }, this.#now());
          break;
        }
        case 'unknownTable':
          accepted += 1;
          this.#deps.onUnknownTable(event.source.table);
          this.#log.info({ table: event.source.table, bytes: event.body.length }, 'unknown table acknowledged');
          break;
        default: {
          const never: never = event;
          throw new Error(`unhandled device event ${(never as DeviceEvent).type}`);
        }
      }
    }
    if (hold) return codec.replies.commands([]);
    return decoded.reply.kind === 'ok' || decoded.reply.kind === 'commands' ? codec.replies.ok() : codec.replies.upload(decoded.reply, accepted);
  }

  /**
   * [PUSH-v2 §2.6, issue #18] names in the device's character set: the push route decodes before it knows
   * the device, with UTF-8; a request of a device whose language has another character set (83: GB2312)
   * is decoded again with that language, only when its body holds non-ASCII bytes (cheap on the hot path).
   */
  #inDeviceLanguage(req: PushRequest, device: Device | undefined): DecodeResult {
    const language = device?.options?.['Language'];
    this.#charset = charsetFor(language);
    if (this.#charset === 'utf-8' || language === undefined || !hasHighBytes(req.wire.body)) return req.decoded;
    return codecFor('2.0.0').decode(req.wire, { language });
  }

  /**
   * A request that failed the trust check (devices/trust.ts). 403 for an address outside the allow-list;
   * 401 for a wrong or missing comm key or registration token, and while wrong keys are throttled (the
   * same answer, so a guesser cannot tell which attempts were checked). Any non-200 makes the terminal
   * keep its data and retry after ErrorDelay [PUSH-v2 §2.2, §4.3; PUSH-v3 §4.1]. Logged within the
   * serial's log budget, and always when a throttle window opens; the token and key are never logged.
   */
  #refuse(verdict: Exclude<TrustVerdict, { ok: true }>, req: PushRequest): DeviceReply {
    this.#deps.guard.refused(verdict.reason);
    const opened = verdict.reason === 'comm_key' && verdict.failures === this.#deps.guard.freeFailures + 1;
    const suppressed = this.#logBudget.take(this.#deps.clock.now().getTime());
    if (opened || suppressed !== undefined) {
      this.#log.warn(
        { reason: verdict.reason, address: req.remoteAddress, endpoint: req.decoded.endpoint, suppressed: suppressed ?? 0, ...(verdict.blockedMs ? { blocked_ms: verdict.blockedMs } : {}) },
        opened ? 'repeated wrong comm keys: this serial is throttled' : 'device request refused',
      );
    }
    return verdict.reason === 'network' ? reply(403, 'Forbidden') : reply(401, 'Unauthorized');
  }

  // ------------------------------------------------------------------ commands out

  async #poll(req: PushRequest): Promise<ActorReply> {
    let seen = this.#wakeGeneration;
    const first = await this.#serial(async () => {
      seen = this.#wakeGeneration;
      const r = await this.#process({ ...req, decoded: { ...req.decoded } });
      return r.status === 401 || r.status === 403 ? { denied: r, ...(await this.#noBatch()) } : { denied: undefined, ...(await this.#take(req.client)) };
    });
    if (first.denied) return first.denied;
    if (first.batch.lines.length > 0) return this.#send(first.codec, first.batch);
    const holdMs = this.#deps.config.longpollS[first.codec.version] * 1000;
    if (holdMs <= 0 || !first.assigned) return first.codec.replies.commands([]);
    // Hold the poll (DESIGN.md "Command delivery"): answer as soon as work arrives. A command queued
    // on another node (or by the CLI) wakes it through the feed; while the feed cannot be trusted to
    // say so, the store is looked at every `#trustMs()` as well (issue #20: at 10,000 held terminals
    // those looks were some 10,000 reads a second).
    const deadline = Date.now() + holdMs;
    this.heldPolls++;
    this.#deps.presence.hold(this.sn, 1);
    try {
      while (!req.client.gone && Date.now() < deadline) {
        const why: Wake = seen !== this.#wakeGeneration ? 'work' : await this.#waitForWork(Math.min(this.#trustMs(), deadline - Date.now()), req.client.signal);
        seen = this.#wakeGeneration;
        if (req.client.gone || (why === 'timeout' && Date.now() >= deadline)) break;
        // A newer request of the terminal reached another node: this poll is half-open, claim nothing.
        if (!(await this.#stillOwned())) break;
        // The device or its location changed (or may have): unassigned, or the location disabled, it
        // is answered now, as its next poll would be.
        if (why === 'recheck' && !(await this.#current(false)).location) break;
        // Woken: work was queued, go for it. A look on the timer or in doubt asks the store first
        // (cheaper); it also catches work no event announced here (the pending hint is dropped for it).
        if (why === 'work' || (await this.#pendingInStore())) {
          // The device may have gone while this waited its turn: claim nothing it would never receive.
          const next = await this.#serial(() => (this.#leaseUntil === 0 ? this.#noBatch() : this.#take(req.client)));
          if (next.batch.lines.length > 0) return this.#send(next.codec, next.batch);
        }
      }
    } finally {
      this.heldPolls--;
      this.#deps.presence.hold(this.sn, -1);
      this.lastActivity = this.#deps.clock.now().getTime();
    }
    return first.codec.replies.commands([]);
  }

  /** Resolves with why it ended: woken (new work, or released), a doubt, the timeout or an abort. */
  #waitForWork(ms: number, signal: AbortSignal): Promise<Wake> {
    return new Promise((resolve) => {
      const done = (why: Wake) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        this.#wakers.delete(done);
        resolve(why);
      };
      const aborted = () => done('timeout');
      const timer = setTimeout(aborted, Math.max(0, ms));
      signal.addEventListener('abort', aborted, { once: true });
      this.#wakers.add(done);
    });
  }

  async #noBatch(): Promise<{ codec: Codec; batch: Batch; assigned: boolean }> {
    return { codec: this.#codecOf(await this.#device()), batch: EMPTY_BATCH, assigned: false };
  }

  /** The held poll's periodic store check; work found there is taken even if the hint said empty. */
  async #pendingInStore(): Promise<boolean> {
    if ((await this.#deps.store.commands.countPending(this.sn)) === 0) return false;
    this.#drainedAt = -1;
    return true;
  }

  async #take(client: PushRequest['client']): Promise<{ codec: Codec; batch: Batch; assigned: boolean }> {
    // The terminal may have gone while this waited its turn: claim nothing it would never receive.
    if (client.gone) return this.#noBatch();
    // Noted before the store is read: a wake from here on makes the next poll read it again.
    const generation = this.#wakeGeneration;
    const s = this.#snapshot;
    const now = performance.now();
    // The pending hint: nothing was pending at this generation, nothing woke the actor since, and
    // the snapshot is trusted: an idle poll reads nothing from the store.
    if (s && now < s.until && this.#drainedAt === generation && now < this.#drainedUntil) {
      return { codec: this.#codecOf(s.device), batch: EMPTY_BATCH, assigned: s.location !== undefined };
    }
    // Commands are rendered with the device and location as stored now, never from the snapshot.
    const { device, location } = await this.#current(false, true);
    const codec = this.#codecOf(device);
    // Unassigned devices get a valid reply but no commands [API-CONTRACT §6].
    if (!device || !location) return { codec, batch: EMPTY_BATCH, assigned: false };
    const batch = await this.#deps.store.unitOfWork(() => takeBatch(this.#ctx, codec, device, location));
    if (batch.drained) {
      this.#drainedAt = generation;
      this.#drainedUntil = performance.now() + this.#trustMs();
    } else this.#drainedAt = -1;
    return { codec, batch, assigned: true };
  }

  /**
   * The reply carrying a batch. Its commands become `sent` for everyone once the reply was written
   * in full; when the terminal went away first they go back to pending for the next poll.
   */
  #send(codec: Codec, batch: Batch): ActorReply {
    // The put-back takes the actor's turn: the terminal's next poll (already on its way, perhaps)
    // claims after it and so gets these commands, rather than finding them still `sent`. Until then
    // the actor is busy (not answered idle, not dropped) and its pending hint is void.
    const putBack = () => {
      this.#log.info({ commands: batch.lines.map((l) => l.id) }, 'reply with commands not delivered: they stay queued');
      this.#drainedAt = -1;
      this.busy++;
      this.#serial(() => this.#deps.lifecycle.undelivered(batch.ids, batch.sentAt))
        .catch((err: unknown) => this.#log.error({ err }, 'putting back an undelivered command batch failed'))
        .finally(() => {
          this.busy--;
          this.wake();
        });
    };
    return {
      ...codec.replies.commands(batch.lines as QueuedLine[]),
      onSettled: (delivered) => {
        if (delivered) this.#deps.lifecycle.delivered(batch.announce);
        else putBack();
      },
    };
  }

  // ------------------------------------------------------------------ uploads answering commands

  /** The id of this device's oldest sent command of a preset (v2 uploads answering a query carry no id). */
  async #outstanding(preset: PresetId, device: Device | undefined): Promise<number | undefined> {
    const location = device?.location_id;
    return location === undefined || location === null ? undefined : (await this.#deps.store.commands.sentOf(location, this.sn, preset, 1))[0]?.id;
  }

  /**
   * The check-attendance an attendance upload answers: v3 names it (querydata cmdid), v2 rows arrive
   * as ordinary ATTLOG uploads while the query is outstanding [COMMANDS §4.17].
   */
  async #checkAttendanceFor(source: RecordSource | undefined, device: Device) {
    const id = source?.kind === 'query' ? Number(source.cmdId) : source?.table.toUpperCase() === 'ATTLOG' ? await this.#outstanding('check-attendance', device) : undefined;
    if (id === undefined || !Number.isSafeInteger(id)) return undefined;
    const command = await this.#deps.store.commands.getById(id);
    if (command?.sn !== device.serial_number || command.command !== 'check-attendance' || command.status !== 'sent') return undefined;
    return { id, window: progressOf(command).keep_window };
  }

  /** [COMMANDS §4.1] a device may restart before posting its result: a new handshake completes the reboot. */
  async #restarted(location: Location): Promise<void> {
    const sent = await this.#deps.store.commands.sentOf(location.id, this.sn, 'reboot', 10);
    for (const command of sent) await finishCommand(this.#ctx, command, { status: 'success', result: { note: 'device restarted' } });
  }

  // ------------------------------------------------------------------ firmware

  /**
   * [COMMANDS §4.22] `/iclock/file` serves only a file BioGate offered to this serial number: the url of
   * one of its sent firmware-upgrade commands [API-CONTRACT §6]. Method 1 content is base64 text.
   */
  async #file(url: string, device: Device | undefined): Promise<DeviceReply> {
    const location = await this.#location(device);
    if (!device || !location) return reply(404, 'not found');
    const offered = await this.#deps.store.commands.sentOf(location.id, this.sn, 'firmware-upgrade', 20);
    const command = offered.find((c) => c.params?.['url'] === url);
    if (!command) {
      this.#log.warn({ url }, 'file request for a url BioGate did not offer to this device refused');
      return reply(404, 'not found');
    }
    const params = command.params as { url: string; checksum: string; size: number };
    try {
      const file = await this.#deps.firmware.fetch(params);
      this.#log.info({ id: command.id, bytes: file.size }, 'firmware served');
      return reply(200, file.base64); // the cache's one encoded copy, shared by every device
    } catch (err) {
      if (!(err instanceof FirmwareError)) throw err;
      this.#log.warn({ id: command.id, err: err.message }, 'firmware download failed');
      await finishCommand(this.#ctx, command, { status: 'failed', error_message: err.message });
      return reply(404, 'not found');
    }
  }
}
