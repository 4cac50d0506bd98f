/**
 * A device's session as its actor knows it: the record read or written last, and what follows from
 * it, resolved when the session changes (a record read or updated, a registration, an override of the
 * version), never per request: the codec of its protocol generation [PUSH-v2 §10.3; PUSH-v3 §3] and
 * the language its names are written in [PUSH-v2 §2.6]. Every read and write of the device record by
 * the actor goes through here, so what is resolved always follows the record the request works with.
 */
import { charsetFor, codecOfDevice, effectiveVersion, type Charset, type Codec, type ProtocolVersion } from '../../protocols/index.js';
import type { Logger } from '../log.js';
import type { Device, DeviceSessionPatch, Location } from '../store/ports/index.js';
import type { ActorDeps, PushRequest } from './actor-types.js';
import { withFirmware } from './capabilities.js';
import { inLanguage } from './decode.js';
import { LogBudget } from './log-budget.js';
import { mergeOptions, optionLimitsFor } from './session.js';
import { newMarker } from '../events/outbox.js';

type SessionDeps = Pick<ActorDeps, 'store' | 'clock' | 'bus' | 'config'>;

export class DeviceSession {
  readonly #sn: string;
  readonly #deps: SessionDeps;
  readonly #log: () => Logger;
  /** Called after every update of the record: what the actor holds of it is stale. */
  readonly #changed: () => void;
  #version: ProtocolVersion | undefined;
  /** Warnings about dropped options: 3 a minute at most per serial. */
  readonly #optionsBudget = new LogBudget(3, 60_000);
  /** The codec of the generation the device speaks (its override, else what was detected, else v2). */
  codec: Codec = codecOfDevice(undefined);
  /** The device's `Language` option [PUSH-v2 §4.1], and the character set of its names. */
  language: string | undefined;
  charset: Charset = 'utf-8';
  /** The character set replies go out in: the device's, as its record said when its last request was read. */
  replyCharset: Charset = 'utf-8';

  constructor(sn: string, deps: SessionDeps, log: () => Logger, changed: () => void) {
    this.#sn = sn;
    this.#deps = deps;
    this.#log = log;
    this.#changed = changed;
  }

  /** The location of the device as last read or written (whose feed owes its device.updated). */
  #locationId: number | null = null;

  /** The device's location as last read or written; null when unassigned or never read. */
  get locationId(): number | null {
    return this.#locationId;
  }

  /** Resolves codec and language from `device` (the record as read or written now); returns it. */
  observe(device: Device | undefined): Device | undefined {
    this.#locationId = device?.location_id ?? null;
    const version = effectiveVersion(device);
    if (version !== this.#version) {
      this.#version = version;
      this.codec = codecOfDevice(device);
    }
    const language = device?.options?.['Language'];
    if (language !== this.language) {
      this.language = language;
      this.charset = charsetFor(language);
    }
    return device;
  }

  /** A request of `device` is answered: from now on replies go out in its character set. */
  speaks(device: Device | undefined): void {
    this.observe(device);
    this.replyCharset = this.charset;
  }

  /** The request of `device` in the device's language (devices/decode.ts); see `speaks`. */
  decoded(req: PushRequest, device: Device | undefined): PushRequest['decoded'] {
    this.speaks(device);
    return inLanguage(req.wire, req.decoded, this.language);
  }

  async read(): Promise<Device | undefined> {
    return this.observe(await this.#deps.store.devices.getBySerial(this.#sn));
  }

  /** Records an unknown serial as an unassigned device, within BIOGATE_MAX_UNASSIGNED. */
  async ensure(): Promise<Device | undefined> {
    const existing = await this.read();
    if (existing) return existing;
    if ((await this.#deps.store.devices.countUnassigned()) >= this.#deps.config.maxUnassigned) {
      this.#log().warn('unassigned device limit reached: not recording this serial');
      return undefined;
    }
    const recorded = this.observe(await this.#deps.store.devices.ensure(this.#sn, this.#now()));
    // First contact of a serial no location holds: the admin assigns it (GET /admin/devices/unassigned).
    if (recorded?.location_id === null) this.#log().info('unknown device registered: waiting to be assigned');
    return recorded;
  }

  /**
   * Persists a patch of the session and announces the device. `patch.options` are the values just
   * reported: merged over the stored ones within the terminal's limits (session.ts mergeOptions), so
   * the stored map never exceeds them however often it is uploaded; the announcement names only the
   * option keys that changed.
   */
  async update(patch: DeviceSessionPatch): Promise<Device | undefined> {
    let changedOptions: Readonly<Record<string, string>> = {};
    if (patch.options) {
      const stored = await this.read();
      const merged = mergeOptions(stored?.options, patch.options, optionLimitsFor(stored?.location_id));
      if (merged.dropped > 0) this.#warnDropped(merged.dropped, stored?.location_id ?? null);
      changedOptions = merged.changed;
      // [COMMANDS §2.6] new firmware: what was learned about the old one no longer holds.
      const current = patch.state !== undefined ? patch.state : (stored?.state ?? null);
      const state = withFirmware(current, merged.options);
      patch = { ...patch, options: merged.options, ...(state !== current || patch.state !== undefined ? { state } : {}) };
    }
    // Owed to the location's feed from this write on (src/events/outbox.ts); an unassigned device has no feed.
    const marked = this.#locationId === null ? undefined : { feedEvent: newMarker(), locationId: this.#locationId };
    const device = this.observe(await this.#deps.store.devices.updateSession(this.#sn, patch, this.#now(), marked));
    this.#changed();
    if (device)
      this.#deps.bus.emit('device.updated', {
        location_id: device.location_id,
        device,
        changed_options: changedOptions,
        ...(marked ? { feed_event: marked.feedEvent } : {}),
      });
    return device;
  }

  #warnDropped(dropped: number, locationId: number | null): void {
    const suppressed = this.#optionsBudget.take(this.#deps.clock.now().getTime());
    if (suppressed === undefined) return;
    const limits = optionLimitsFor(locationId);
    this.#log().warn(
      { dropped, suppressed, max_keys: limits.keys, max_value_bytes: limits.valueBytes, max_total_bytes: limits.totalBytes },
      'device options beyond their limits: excess dropped',
    );
  }

  /** The device's location while it is active; undefined for an unassigned device or a disabled location. */
  async location(device: Device | undefined): Promise<Location | undefined> {
    if (!device || device.location_id === null) return undefined;
    const location = await this.#deps.store.locations.get(device.location_id);
    return location?.is_active ? location : undefined;
  }

  /**
   * The time zone a terminal is told: its location's even while the location is disabled (a
   * disabled location's terminals keep their wall clock; `TimeZone=0` would shift their punches).
   */
  async timeZone(device: Device | undefined, location: Location | undefined): Promise<string> {
    if (location) return location.timezone;
    if (!device || device.location_id === null) return 'UTC';
    return (await this.#deps.store.locations.get(device.location_id))?.timezone ?? 'UTC';
  }

  #now(): string {
    return this.#deps.clock.now().toISOString();
  }
}
