/**
 * One actor per device (DESIGN.md "Actor"): it owns the session, the codec,
 * and the mailbox, and processes one message at a time. Its state lives in the
 * store, so the hub may drop it when idle and a restart loses nothing.
 */
import { randomBytes } from 'node:crypto';
import {
  codecFor, detectVersion, registryCodeFrom, sessionIdFrom,
  type Codec, type CommandResult, type DecodeResult, type DeviceEvent, type DeviceReply, type QueuedLine, type UserRecord, type WireRequest,
} from '../../protocols/index.js';
import type { PresetId } from '../../protocols/catalog.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Command, Device, Location, Store } from '../store/types.js';
import type { EventBus } from './event-bus.js';
import type { Presence } from './presence.js';
import { render } from './render.js';
import type { RuntimeConfig } from './runtime-config.js';
import { fromAttlog, punchFromAccess, punchFromRtlog, recordPunches, recordTemplates, type Punch } from './uploads.js';

export interface ActorDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
  readonly presence: Presence;
  readonly config: RuntimeConfig;
  /** Template changes fan out to the location's other devices (sync). */
  readonly onTemplatesChanged: (locationId: number, pins: readonly number[], sourceSn: string) => Promise<void>;
}

export interface PushRequest {
  readonly wire: WireRequest;
  readonly decoded: DecodeResult;
  readonly remoteAddress: string;
  readonly signal: AbortSignal;
}

/** Option keys that carry secrets: never stored or returned [API-CONTRACT §6]. */
const SECRET_KEY = /comm?key|authkey|passw(or)?d|pwd|secret/i;
export function sanitizeOptions(values: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([k]) => !SECRET_KEY.test(k)));
}

const reply = (status: number, body: string): DeviceReply => ({ status, contentType: 'text/plain', body });

export class DeviceActor {
  readonly sn: string;
  lastActivity = 0;
  heldPolls = 0;
  readonly #deps: ActorDeps;
  readonly #log: Logger;
  #tail: Promise<unknown> = Promise.resolve();
  #wakers = new Set<() => void>();
  /** Results that arrive before their devicecmd line (v3 querydata, v2 user uploads), by command id. */
  readonly #gathered = new Map<number, { users: UserRecord[]; options?: Record<string, string> }>();
  /** Outcomes of the first line of multi-line commands, until every child line has a result. */
  readonly #headResults = new Map<number, CommandResult>();

  constructor(sn: string, deps: ActorDeps) {
    this.sn = sn;
    this.#deps = deps;
    this.#log = deps.log.child({ sn });
  }

  /** Processes one device request and returns the reply the firmware expects. */
  async handle(req: PushRequest): Promise<DeviceReply> {
    this.lastActivity = this.#deps.clock.now().getTime();
    if (req.decoded.endpoint === 'getrequest') return this.#poll(req);
    return this.#serial(() => this.#process(req));
  }

  /** New pending work: release held polls. */
  wake(): void {
    for (const w of this.#wakers) w();
    this.#wakers.clear();
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

  async #location(device: Device | undefined): Promise<Location | undefined> {
    if (!device || device.location_id === null) return undefined;
    const location = await this.#deps.store.locations.get(device.location_id);
    return location?.is_active ? location : undefined;
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
    return this.#deps.store.devices.ensure(this.sn, this.#now());
  }

  #now(): string {
    return this.#deps.clock.now().toISOString();
  }

  async #updateSession(patch: Parameters<Store['devices']['updateSession']>[1]): Promise<Device | undefined> {
    const device = await this.#deps.store.devices.updateSession(this.sn, patch, this.#now());
    if (device) this.#deps.bus.emit('device.updated', { location_id: device.location_id, device });
    return device;
  }

  // ------------------------------------------------------------------ requests

  async #process(req: PushRequest): Promise<DeviceReply> {
    let device = await this.#ensure();
    this.#deps.presence.seen(this.sn, device?.location_id ?? null, req.remoteAddress, this.#deps.clock.now().getTime());
    const { decoded } = req;
    if (decoded.rejected > 0) this.#log.warn({ rejected: decoded.rejected, samples: decoded.rejectedSamples, endpoint: decoded.endpoint }, 'device lines rejected');
    let location = await this.#location(device);
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
          const registration = device?.registry_code && device.session_id ? { registryCode: device.registry_code, sessionId: device.session_id } : undefined;
          return codec.replies.handshake({
            sn: this.sn, timeZone: location?.timezone ?? 'UTC', now: this.#deps.clock.now(),
            ...(registration ? { registration } : {}), ...(pushver === null ? { legacyStamps: true } : {}),
          });
        }
        case 'registration': {
          const registry_code = device?.registry_code ?? registryCodeFrom(randomBytes(10));
          const session_id = sessionIdFrom(randomBytes(16));
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
          return codec.replies.time(this.#deps.clock.now(), location?.timezone ?? 'UTC', event.flavor);
        case 'attendance':
        case 'doorEvents':
        case 'accessRecords': {
          const punches: Punch[] =
            event.type === 'attendance' ? event.records.map(fromAttlog)
            : event.type === 'doorEvents' ? event.records.flatMap((r) => punchFromRtlog(r) ?? [])
            : event.records.flatMap((r) => punchFromAccess(r) ?? []);
          if (event.type === 'doorEvents') {
            for (const r of event.records) {
              this.#deps.bus.emit('door.event', { location_id: location?.id ?? null, sn: this.sn, door: r.door, event: String(r.event), pin: r.pin === '0' ? null : r.pin, time: r.time });
            }
          }
          if (punches.length > 0 && (!device || !location)) {
            // [PUSH-v2 §2.2] a non-200 makes the device keep the records and resend: nothing is lost while unassigned.
            return reply(503, 'device not assigned');
          }
          if (device && location && punches.length > 0) {
            const r = await recordPunches(this.#deps.store, this.#deps.bus, device, location, punches, this.#now());
            accepted += r.accepted;
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
          const cmdId = event.source.kind === 'query' ? Number(event.source.cmdId) : await this.#outstanding('load-users');
          if (cmdId !== undefined && Number.isInteger(cmdId)) this.#gather(cmdId).users.push(...event.records);
          accepted += event.records.length;
          break;
        }
        case 'queryOptions': {
          const id = Number(event.cmdId);
          if (Number.isInteger(id)) this.#gather(id).options = sanitizeOptions(event.options.values);
          device = await this.#updateSession({ options: { ...(device?.options ?? {}), ...sanitizeOptions(event.options.values) } });
          break;
        }
        case 'queryCount':
          break;
        case 'doorStates':
          for (const r of event.records) {
            this.#deps.bus.emit('door.event', { location_id: location?.id ?? null, sn: this.sn, door: Number.parseInt(r.door, 10) || null, event: `state sensor=${r.sensor} relay=${r.relay} alarm=${r.alarm}`, pin: null, time: r.time });
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
          this.#log.warn({ errors: event.records.slice(0, 10) }, 'device reported errors');
          break;
        case 'commandResults':
          for (const result of event.results) await this.#result(result, codec);
          break;
        case 'remoteUserLookup':
          return codec.replies.remoteUser([]);
        case 'fileRequest':
          // [API-CONTRACT §6] only files BioGate offered to this serial are served; none are staged by this build.
          return reply(404, 'not found');
        case 'unknownRecords':
          accepted += event.lines.length;
          this.#log.info({ table: event.source.table, lines: event.lines.length }, 'unknown record tags acknowledged');
          break;
        case 'unknownTable':
          accepted += 1;
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

  // ------------------------------------------------------------------ commands out

  async #poll(req: PushRequest): Promise<DeviceReply> {
    const first = await this.#serial(async () => {
      await this.#process({ ...req, decoded: { ...req.decoded } });
      return this.#take();
    });
    if (first.lines.length > 0) return first.codec.replies.commands(first.lines);
    const holdMs = this.#deps.config.longpollS[first.codec.version] * 1000;
    if (holdMs <= 0 || !first.assigned) return first.codec.replies.commands([]);
    // Hold the poll (DESIGN.md "Command delivery"): answer as soon as work arrives, re-checking the store
    // so a command queued by another node is delivered too.
    const deadline = Date.now() + holdMs;
    this.heldPolls++;
    this.#deps.presence.hold(this.sn, 1);
    try {
      while (!req.signal.aborted && Date.now() < deadline) {
        await this.#waitForWork(Math.min(2000, deadline - Date.now()), req.signal);
        if (req.signal.aborted) break;
        if ((await this.#deps.store.commands.countPending(this.sn)) > 0) {
          const next = await this.#serial(() => this.#take());
          if (next.lines.length > 0) return next.codec.replies.commands(next.lines);
        }
      }
    } finally {
      this.heldPolls--;
      this.#deps.presence.hold(this.sn, -1);
      this.lastActivity = this.#deps.clock.now().getTime();
    }
    return first.codec.replies.commands([]);
  }

  #waitForWork(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
      this.#wakers.add(done);
    });
  }

  /** Takes the next batch: rendered at dispatch time, REBOOT/UPGRADE last, bounded by count and bytes [PUSH-v2 §7.3]. */
  async #take(): Promise<{ codec: Codec; lines: QueuedLine[]; assigned: boolean }> {
    const device = await this.#device();
    const codec = this.#codecOf(device);
    const location = await this.#location(device);
    // Unassigned devices get a valid reply but no commands [API-CONTRACT §6].
    if (!device || !location) return { codec, lines: [], assigned: false };
    const { store, config } = this.#deps;
    const pending = await store.commands.pending(this.sn, config.batchMaxCommands);
    const lines: QueuedLine[] = [];
    const wire = new Map<number, string>();
    let bytes = 0;
    for (const command of pending) {
      const r = await render(store, codec, command, device, location);
      if (!r.ok) {
        await this.#finish(command, { status: 'failed', error_message: r.reason });
        continue;
      }
      const size = r.rendered.lines.reduce((n, l) => n + l.length + 16, 0);
      if (lines.length > 0 && (bytes + size > config.batchMaxBytes || lines.length + r.rendered.lines.length > config.batchMaxCommands)) break;
      const ids = [command.id];
      for (let i = 1; i < r.rendered.lines.length; i++) {
        const child = await store.commands.create(
          { location_id: command.location_id, sn: this.sn, command: command.command, params: null, priority: command.priority, origin: command.origin, expires_at: null, parent_id: command.id },
          this.#now(),
        );
        ids.push(child.id);
      }
      r.rendered.lines.forEach((l, i) => {
        lines.push({ id: ids[i] as number, wire: l });
        wire.set(ids[i] as number, l);
      });
      bytes += size;
      if (r.rendered.lines.some((l) => codec.endsBatch(l))) break;
    }
    if (lines.length === 0) return { codec, lines, assigned: true };
    const won = new Set(await store.commands.claim([...wire.keys()], wire, this.#now()));
    const sent = lines.filter((l) => won.has(l.id as number));
    for (const command of pending) if (won.has(command.id)) this.#emitCommand(await store.commands.getById(command.id));
    return { codec, lines: sent, assigned: true };
  }

  // ------------------------------------------------------------------ results in

  #gather(id: number) {
    let g = this.#gathered.get(id);
    if (!g) {
      if (this.#gathered.size > 1000) this.#gathered.clear(); // bounded: results never claimed are dropped
      this.#gathered.set(id, (g = { users: [] }));
    }
    return g;
  }

  /** The id of this device's oldest sent command of a preset (v2 uploads answering a query carry no id). */
  async #outstanding(preset: PresetId): Promise<number | undefined> {
    const page = await this.#deps.store.commands.list(
      (await this.#device())?.location_id ?? -1, { sn: this.sn, status: 'sent', command: preset }, { offset: 0, limit: 1 },
    );
    return page.items[0]?.id;
  }

  /** [PUSH-v2 §8.4] results are matched by ID only; unknown ids are logged and ignored. */
  async #result(result: CommandResult, codec: Codec): Promise<void> {
    const id = Number(result.id);
    const command = Number.isSafeInteger(id) ? await this.#deps.store.commands.getById(id) : undefined;
    if (!command || command.sn !== this.sn) {
      this.#log.info({ id: result.id, returnCode: result.returnCode }, 'result for an unknown command id ignored');
      return;
    }
    const head = command.parent_id === null ? command : await this.#deps.store.commands.getById(command.parent_id);
    if (!head) return;
    if (command.parent_id !== null) {
      const outcome = codec.outcome(result.returnCode);
      await this.#deps.store.commands.finish(command.id, outcome.status === 'failed' ? { status: 'failed', error_message: outcome.message, response: result.raw } : { status: 'success', response: result.raw }, this.#now());
    } else {
      this.#headResults.set(command.id, result);
    }
    const headResult = this.#headResults.get(head.id);
    if (!headResult) return;
    const children = await this.#deps.store.commands.children(head.id);
    if (children.some((c) => c.status === 'sent' || c.status === 'pending')) return;
    this.#headResults.delete(head.id);
    await this.#complete(head, headResult, children, codec);
  }

  async #complete(head: Command, result: CommandResult, children: readonly Command[], codec: Codec): Promise<void> {
    const preset = head.origin === 'sync' ? undefined : (head.command as PresetId);
    const outcome = codec.outcome(result.returnCode, preset);
    if (outcome.status === 'pending') return;
    const failedChild = children.find((c) => c.status === 'failed');
    const responses = [result.raw, ...children.map((c) => c.response ?? '')].filter(Boolean).join('\n');
    const gathered = this.#gathered.get(head.id);
    this.#gathered.delete(head.id);
    let resultData: unknown = null;
    if (preset === 'info') {
      const options = result.options ? sanitizeOptions(result.options.values) : gathered?.options;
      if (options) {
        await this.#updateSession({ options: { ...((await this.#device())?.options ?? {}), ...options } });
        resultData = options;
      }
    } else if (preset === 'load-users') {
      resultData = await this.#loadUsersResult(head, gathered?.users ?? []);
    }
    if (outcome.status === 'failed') await this.#finish(head, { status: 'failed', error_message: outcome.message, response: responses, result: resultData });
    else if (failedChild) await this.#finish(head, { status: 'failed', error_message: `line ${failedChild.id}: ${failedChild.error_message ?? 'failed'}`, response: responses, result: resultData });
    else await this.#finish(head, { status: 'success', response: responses, result: resultData });
  }

  /** [API-CONTRACT §5] load-users → `{users, unknown_pins}`: what the device holds, and which PINs the location does not know. */
  async #loadUsersResult(head: Command, users: readonly UserRecord[]) {
    const wanted = head.params?.['pin'];
    const list = wanted == null ? users : users.filter((u) => u.pin === String(wanted));
    const numeric = list.map((u) => u.pin).filter((p) => /^\d{1,8}$/.test(p)).map(Number);
    const known = new Set((await this.#deps.store.users.getMany(head.location_id ?? -1, numeric)).map((u) => String(u.pin)));
    return {
      users: list.map((u) => ({ pin: u.pin, name: u.name, privilege: u.privilege, card_no: u.cardNo || null, group: u.group })),
      unknown_pins: list.map((u) => u.pin).filter((p) => !known.has(String(Number(p))) || !/^\d{1,8}$/.test(p)),
    };
  }

  async #finish(command: Command, outcome: Parameters<Store['commands']['finish']>[1]): Promise<void> {
    this.#emitCommand(await this.#deps.store.commands.finish(command.id, outcome, this.#now()));
  }

  #emitCommand(command: Command | undefined): void {
    if (command && command.parent_id === null) this.#deps.bus.emit('command.updated', { location_id: command.location_id, command });
  }
}

