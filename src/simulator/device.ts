// One simulated terminal: handshake, poll, execute, post results, upload data — over real HTTP.
// The device owns the loop, local input (punches, enrolments) and its memory; the session with the
// server is a PushSession.

import { sleep } from './abortable-sleep.js';
import { isValidPin } from './command-fields.js';
import { emptyStats } from './device-stats.js';
import { enrolledTemplate, enrolmentUploads } from './enrolment.js';
import type { EnrollRequest } from './execution.js';
import { createFailureInjector, type FailureInjector, type FaultSettings } from './failure-injection.js';
import { createDeviceMemory, DEFAULT_LIMITS } from './memory.js';
import type { DeviceMemory } from './memory.js';
import { algorithmVersion, createProfile } from './profile.js';
import type { DeviceProfile } from './profile.js';
import { PushSession } from './push-session.js';
import { createRng, seedFromText } from './rng.js';
import type { Rng } from './rng.js';
import type {
  CommandListener,
  DoorState,
  ExecutedCommand,
  SessionInfo,
  SimAttendance,
  SimAuthorization,
  SimPhoto,
  SimTemplate,
  SimUser,
  SimulatedDevice,
  SimulatedDeviceOptions,
  SimulatedDeviceStats,
} from './types.js';
import { formatDeviceTime, parseWallClock } from './wire-text.js';

export function createSimulatedDevice(opts: SimulatedDeviceOptions): SimulatedDevice {
  return new Device(opts);
}

class Device implements SimulatedDevice {
  readonly sn: string;
  readonly protocol: 'v2' | 'v3';
  readonly stats: SimulatedDeviceStats = emptyStats();
  readonly #opts: SimulatedDeviceOptions;
  readonly #profile: DeviceProfile;
  readonly #memory: DeviceMemory;
  readonly #rng: Rng;
  readonly #inject: FailureInjector;
  readonly #push: PushSession;
  readonly #now: () => Date;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #inFlight = new Set<Promise<unknown>>();
  #controller = new AbortController();
  #loop: Promise<void> | null = null;
  #stopping = false;
  #wipeScheduled = false;

  constructor(opts: SimulatedDeviceOptions) {
    const url = URL.canParse(opts.url) ? new URL(opts.url) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new TypeError(`url must be an http(s) URL: ${opts.url}`);
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(opts.sn)) throw new TypeError(`sn must be 1-32 letters, digits, - or _: ${opts.sn}`);
    if (opts.protocol !== 'v2' && opts.protocol !== 'v3') throw new TypeError(`protocol must be v2 or v3: ${String(opts.protocol)}`);
    this.sn = opts.sn;
    this.protocol = opts.protocol;
    this.#opts = opts;
    this.#profile = createProfile(opts);
    this.#memory = createDeviceMemory(this.#profile.lockCount, {
      maxUsers: opts.maxUsers ?? DEFAULT_LIMITS.maxUsers,
      maxTemplates: opts.maxTemplates ?? DEFAULT_LIMITS.maxTemplates,
      maxAttendance: opts.maxAttendance ?? DEFAULT_LIMITS.maxAttendance,
    });
    const seed = opts.seed ?? seedFromText(opts.sn);
    this.#rng = createRng(seed + 1);
    this.#now = opts.now ?? (() => new Date());
    this.#push = new PushSession({
      device: opts,
      profile: this.#profile,
      memory: this.#memory,
      stats: this.stats,
      inject: (this.#inject = createFailureInjector(
        opts.returnCodes ?? {},
        opts.failRate ?? 0,
        opts.protocol === 'v2' ? { fail: -1005, refuse: -3 } : { fail: -12, refuse: -12 },
        createRng(seed),
        { refuseRate: opts.refuseRate ?? 0, loseRate: opts.loseRate ?? 0 },
      )),
      now: this.#now,
      signal: () => this.#controller.signal,
      enrol: (request) => this.#scheduleEnrolment(request),
    });
    if (opts.onCommand !== undefined) this.#push.commands.onCommand(opts.onCommand);
    this.#addKeypadUsers(opts.keypadUsers ?? 0);
    opts.signal?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  // ---- public API ----

  start(): void {
    if (this.#loop !== null || this.#opts.signal?.aborted === true) return;
    this.#stopping = false;
    const wipeAfterS = this.#opts.wipeAfterS;
    if (wipeAfterS !== undefined && !this.#wipeScheduled) {
      this.#wipeScheduled = true;
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.wipe();
      }, wipeAfterS * 1000);
      this.#timers.add(timer);
    }
    this.#loop = this.#run().finally(() => {
      this.#loop = null;
    });
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#controller.abort();
    await this.#loop;
    await Promise.allSettled([...this.#inFlight]);
    this.#controller = new AbortController();
    this.stats.online = false;
  }

  async pause(): Promise<void> {
    // like a terminal unplugged between two polls: the exchange under way completes, nothing is cut off
    this.#stopping = true;
    await this.#loop;
    await Promise.allSettled([...this.#inFlight]);
  }

  handshake(): Promise<void> {
    return this.#track(this.#push.handshake());
  }

  pollOnce(): Promise<number> {
    return this.#track(this.#push.pollOnce());
  }

  punch(pin: string, when: Date | string, status = 0, verify = 1): Promise<boolean> {
    if (!isValidPin(pin)) return Promise.reject(new TypeError(`invalid PIN: ${pin}`));
    if (typeof when === 'string' && parseWallClock(when) === undefined) {
      return Promise.reject(new TypeError(`time must be YYYY-MM-DD HH:MM:SS: ${when}`));
    }
    const time = typeof when === 'string' ? when.replace('T', ' ') : formatDeviceTime(when, this.#push.utcOffset());
    const record = this.#memory.addAttendance(pin, time, status, verify);
    this.stats.punches++;
    const entry = this.#push.queue.enqueue(this.#push.queue.attendanceUpload([record]), record.index);
    // [PUSH-v2 §4.3] Realtime=0: the record waits for the next cycle
    const session = this.#push.state;
    if (!session.established || !session.realtime) return Promise.resolve(false);
    return this.#track(this.#push.queue.flush().then(() => entry.acked));
  }

  enroll(pin: string, fid: number, type = 1): Promise<boolean> {
    if (!isValidPin(pin)) return Promise.reject(new TypeError(`invalid PIN: ${pin}`));
    if (!Number.isInteger(fid) || fid < 0 || fid > 9) return Promise.reject(new TypeError(`fid must be 0-9: ${fid}`));
    if (algorithmVersion(this.#profile, type) === undefined) {
      return Promise.reject(new TypeError(`this device has no sensor for biometric type ${type}`));
    }
    return this.#track(this.#completeEnrolment({ pin, type, no: fid }));
  }

  users(): ReadonlyMap<string, SimUser> {
    return this.#memory.users;
  }

  templates(pin: string): readonly SimTemplate[] {
    return this.#memory.templatesOf(pin);
  }

  timezones(): ReadonlyMap<number, Readonly<Record<string, number>>> {
    return this.#memory.timezones();
  }

  holidays(): ReadonlyMap<string, Readonly<Record<string, string>>> {
    return this.#memory.holidays();
  }

  photos(pin: string): readonly SimPhoto[] {
    const bio = this.#memory.bioPhotos().filter((p) => p.pin === pin);
    const size = this.#memory.userPhotos.get(pin);
    const digest = this.#memory.userPhotoDigests.get(pin);
    const pic = size === undefined ? [] : [{ pin, size, ...(digest === undefined ? {} : { sha256: digest }) }];
    return [...bio, ...pic];
  }

  authorizations(pin: string): readonly SimAuthorization[] {
    return this.#memory.authorizations().filter((a) => a.pin === pin);
  }

  attendanceLog(): readonly SimAttendance[] {
    return this.#memory.attendance();
  }

  doors(): readonly DoorState[] {
    return this.#memory.doors();
  }

  deviceOptions(): ReadonlyMap<string, string> {
    return this.#memory.options;
  }

  executed(): readonly ExecutedCommand[] {
    return this.#push.commands.executed();
  }

  session(): SessionInfo {
    return this.#push.info();
  }

  onCommand(listener: CommandListener): () => void {
    return this.#push.commands.onCommand(listener);
  }

  setFaults(settings: FaultSettings): void {
    this.#inject.set(settings);
  }

  wipe(): void {
    // A factory reset: the roster and its biometrics are gone; the session and attendance log stay.
    this.#memory.deleteUsers(() => true);
    this.#memory.deleteTemplates(() => true);
    this.#memory.deleteAuthorizations(() => true);
    this.#memory.deleteUserPhotos(() => true);
    this.#memory.deleteBioPhotos(() => true);
    this.stats.wipes++;
    // A reset terminal starts again: its next poll reports the tables' counts, now empty.
    this.#push.reportInfo();
  }

  keypad(pin: string, change: Partial<Omit<SimUser, 'pin' | 'uid'>> | null): void {
    if (change === null) this.#memory.deleteUsers((u) => u.pin === pin);
    else this.#memory.putUser({ ...change, pin });
    this.#push.reportInfo();
  }

  keypadRights(pin: string, rows: readonly Omit<SimAuthorization, 'pin'>[]): void {
    this.#memory.deleteAuthorizations((a) => a.pin === pin);
    for (const row of rows) this.#memory.putAuthorization({ ...row, pin });
  }

  keypadTimezone(id: number, fields: Readonly<Record<string, number>>): void {
    this.#memory.putTimezone(id, fields);
  }

  keypadHolidays(fields: readonly Readonly<Record<string, string>>[]): void {
    this.#memory.clearHolidays();
    for (const f of fields) this.#memory.putHoliday(f['Holiday'] ?? '', f);
  }

  keypadOption(key: string, value: string): void {
    this.#memory.options.set(key, value);
  }

  /** Users enrolled at the keypad: PINs from 90001 up that the server never sent. */
  #addKeypadUsers(n: number): void {
    for (let i = 1; i <= n; i++) this.#memory.putUser({ pin: String(90_000 + i), name: `Keypad ${i}` });
  }

  // ---- loop ----

  async #run(): Promise<void> {
    while (!this.#stopping) {
      let delay: number;
      try {
        const n = await this.#push.pollOnce();
        delay = this.#opts.fast === true && n > 0 ? 0 : this.#push.pollDelayMs();
      } catch {
        // recorded in stats by the failing step
        delay = this.#push.retryDelayMs();
      }
      if (delay > 0) await sleep(delay, this.#controller.signal);
    }
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#inFlight.add(p);
    const forget = (): void => {
      this.#inFlight.delete(p);
    };
    p.then(forget, forget);
    return p;
  }

  // ---- enrolment ----

  #scheduleEnrolment(request: EnrollRequest): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#track(this.#completeEnrolment(request));
    }, this.#opts.enrollDelayMs ?? 300);
    this.#timers.add(timer);
  }

  /** The finished enrolment: store the template (and the user, for a local enrolment of a new PIN)
   *  and upload them. */
  async #completeEnrolment(request: EnrollRequest): Promise<boolean> {
    const { pin, type, no } = request;
    const newUser = !this.#memory.users.has(pin);
    if (newUser && this.#memory.putUser({ pin }) === 'full') return false;
    const template = enrolledTemplate(this.#profile, this.#rng, pin, type, no);
    if (this.#memory.putTemplate(template) === 'full') return false;
    this.stats.templatesEnrolled++;
    const owner = this.#memory.users.get(pin) as SimUser;
    let acked = true;
    const time = formatDeviceTime(this.#now(), this.#push.utcOffset());
    for (const u of enrolmentUploads(this.#profile, template, owner, newUser, time)) acked = (await this.#push.queue.upload(u)) && acked;
    return acked;
  }
}
