// One simulated terminal: handshake, poll, execute, post results, upload data — over real HTTP.

import { isValidPin } from './command-fields.js';
import { createCommandExecutor } from './command-executor.js';
import type { CommandExecutor } from './command-executor.js';
import { parseCommandReply } from './command-reply.js';
import { enrolledTemplate, enrolmentUploads } from './enrolment.js';
import type { Effect, EnrollRequest, ExecutionContext } from './execution.js';
import { createFailureInjector } from './failure-injection.js';
import { createHttpTransport } from './http-transport.js';
import { charsetOfLanguage } from './wire-bytes.js';
import type { HttpReply, HttpTransport } from './http-transport.js';
import { createDeviceMemory, DEFAULT_LIMITS } from './memory.js';
import type { DeviceMemory } from './memory.js';
import { algorithmVersion, createProfile, infoHeartbeat } from './profile.js';
import type { DeviceProfile } from './profile.js';
import { attlogLine, rtlogLine } from './records.js';
import { createRng, seedFromText } from './rng.js';
import type { Rng } from './rng.js';
import { NO_SESSION } from './session.js';
import type { HandshakeOutcome, SessionState } from './session.js';
import { SimulatorError } from './sim-error.js';
import type {
  CommandListener,
  DoorState,
  ExecutedCommand,
  SessionInfo,
  SimAttendance,
  SimAuthorization,
  SimTemplate,
  SimUser,
  SimulatedDevice,
  SimulatedDeviceOptions,
  SimulatedDeviceStats,
} from './types.js';
import { mergeUploads, uploadRequest, uploadVerdict } from './uploads.js';
import type { RequestSpec, Upload, UploadVerdict } from './uploads.js';
import { v2Handshake } from './v2-session.js';
import { PUSH_CONTENT_TYPE, v3Handshake } from './v3-session.js';
import { formatDeviceTime, parseWallClock } from './wire-text.js';

/** uploads waiting for an acknowledgement; the oldest are dropped beyond this */
const MAX_QUEUE = 1000;
/** results waiting to be posted */
const MAX_RESULTS = 1000;
/** lines per merged upload request */
const MAX_LINES = 200;
/** executed() keeps the newest entries */
const MAX_EXECUTED = 10_000;
const MAX_WARNINGS = 50;
const DEFAULT_TIMEOUT_MS = 20_000;

interface QueuedUpload {
  readonly upload: Upload;
  /** attendance record carried by this upload (to mark it uploaded) */
  readonly attendanceIndex: number;
  acked: boolean;
}

const EFFECT_RANK: Readonly<Record<Effect, number>> = { none: 0, flush: 1, rehandshake: 2, restart: 3 };

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

const isAbort = (err: unknown): boolean => err instanceof SimulatorError && err.code === 'aborted';

function emptyStats(): SimulatedDeviceStats {
  return {
    handshakes: 0,
    handshakeFailures: 0,
    polls: 0,
    commandsReceived: 0,
    commandsByCode: {},
    commandsLost: 0,
    resultPosts: 0,
    uploadsSent: 0,
    uploadsAcknowledged: 0,
    uploadsFailed: 0,
    uploadsDropped: 0,
    punches: 0,
    templatesEnrolled: 0,
    errors: 0,
    protocolWarnings: 0,
    lastError: null,
    online: false,
  };
}

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
  readonly #transport: HttpTransport;
  readonly #execute: CommandExecutor;
  readonly #now: () => Date;
  readonly #listeners = new Set<CommandListener>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #inFlight = new Set<Promise<unknown>>();
  #controller = new AbortController();
  #session: SessionState = NO_SESSION;
  #cookies = new Map<string, string>();
  #lastDate: string | null = null;
  #warnings: string[] = [];
  #executed: ExecutedCommand[] = [];
  #queue: QueuedUpload[] = [];
  #flushing: Promise<void> | null = null;
  #results: string[] = [];
  #infoDue = false;
  #loop: Promise<void> | null = null;
  #stopping = false;

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
    this.#transport = createHttpTransport(opts.url, charsetOfLanguage(this.#profile.language));
    const ctx: ExecutionContext = {
      profile: this.#profile,
      memory: this.#memory,
      now: this.#now,
      acceptV2Words: opts.acceptV2Words ?? false,
      io: {
        upload: (u) => this.#upload(u),
        answer: async (u) => (await this.#post(u)) !== 'http-error',
        download: (url, direct) => this.#download(url, direct),
      },
    };
    const inject = createFailureInjector(opts.returnCodes ?? {}, opts.failRate ?? 0, opts.protocol === 'v2' ? -1005 : -12, createRng(seed));
    this.#execute = createCommandExecutor(ctx, inject);
    if (opts.onCommand !== undefined) this.#listeners.add(opts.onCommand);
    opts.signal?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  // ---- public API ----

  start(): void {
    if (this.#loop !== null || this.#opts.signal?.aborted === true) return;
    this.#stopping = false;
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
    return this.#track(this.#handshake());
  }

  pollOnce(): Promise<number> {
    return this.#track(this.#pollOnce());
  }

  punch(pin: string, when: Date | string, status = 0, verify = 1): Promise<boolean> {
    if (!isValidPin(pin)) return Promise.reject(new TypeError(`invalid PIN: ${pin}`));
    if (typeof when === 'string' && parseWallClock(when) === undefined) {
      return Promise.reject(new TypeError(`time must be YYYY-MM-DD HH:MM:SS: ${when}`));
    }
    const time = typeof when === 'string' ? when.replace('T', ' ') : formatDeviceTime(when, this.#utcOffset());
    const record = this.#memory.addAttendance(pin, time, status, verify);
    this.stats.punches++;
    const entry = this.#enqueue(this.#attendanceUpload([record]), record.index);
    // [PUSH-v2 §4.3] Realtime=0: the record waits for the next cycle
    if (!this.#session.established || !this.#session.realtime) return Promise.resolve(false);
    return this.#track(this.#flush().then(() => entry.acked));
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
    return this.#executed;
  }

  session(): SessionInfo {
    const s = this.#session;
    return {
      established: s.established,
      serverOptions: Object.fromEntries(s.serverOptions),
      pollDelayMs: this.#pollDelayMs(),
      retryDelayMs: this.#retryDelayMs(),
      requestTimeoutMs: this.#timeoutMs(),
      realtime: s.realtime,
      utcOffsetMinutes: this.#utcOffset(),
      registryCode: s.registryCode,
      sessionId: s.sessionId,
      token: s.token,
      lastDateHeader: this.#lastDate,
      warnings: [...this.#warnings],
    };
  }

  onCommand(listener: CommandListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  // ---- timing ----

  #pollDelayMs(): number {
    return this.#opts.pollDelayMs ?? (this.#session.delayS ?? (this.protocol === 'v2' ? 10 : 30)) * 1000;
  }

  #retryDelayMs(): number {
    return Math.max(1, this.#opts.retryDelayMs ?? (this.#session.errorDelayS ?? 30) * 1000);
  }

  #timeoutMs(): number {
    const announced = this.#session.timeoutS;
    return this.#opts.requestTimeoutMs ?? (announced !== undefined && announced > 0 ? announced * 1000 : DEFAULT_TIMEOUT_MS);
  }

  #utcOffset(): number {
    return this.#session.utcOffsetMinutes ?? this.#opts.utcOffsetMinutes ?? 0;
  }

  // ---- loop ----

  async #run(): Promise<void> {
    while (!this.#stopping) {
      let delay: number;
      try {
        const n = await this.#pollOnce();
        delay = this.#opts.fast === true && n > 0 ? 0 : this.#pollDelayMs();
      } catch {
        // recorded in stats by the failing step
        delay = this.#retryDelayMs();
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

  /** Count a failure; requests cut short by stop() are not failures. */
  #fail(err: unknown): void {
    if (isAbort(err)) return;
    this.stats.errors++;
    this.stats.lastError = err instanceof Error ? err.message : String(err);
  }

  #warn(message: string): void {
    this.stats.protocolWarnings++;
    this.#warnings.push(message);
    if (this.#warnings.length > MAX_WARNINGS) this.#warnings.shift();
  }

  // ---- HTTP ----

  #cookieHeader(): string | undefined {
    const jar = new Map(this.#cookies);
    // [PUSH-v3 §5] every request after /iclock/push carries `Cookie: token=…`; a token the server
    // set itself wins over the computed one
    if (!jar.has('token') && this.#session.token !== null) jar.set('token', this.#session.token);
    if (jar.size === 0) return undefined;
    return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async #send(spec: RequestSpec, contentType?: string): Promise<HttpReply> {
    const reply = await this.#transport.send(spec, {
      cookie: this.#cookieHeader(),
      contentType: contentType ?? (this.protocol === 'v3' ? PUSH_CONTENT_TYPE : undefined),
      timeoutMs: this.#timeoutMs(),
      signal: this.#controller.signal,
    });
    for (const c of reply.setCookies) {
      const pair = c.split(';')[0] as string;
      const eq = pair.indexOf('=');
      if (eq > 0) this.#cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    if (reply.date !== null) this.#lastDate = reply.date;
    return reply;
  }

  async #download(url: string, direct: boolean): Promise<Buffer | null> {
    try {
      const opts = { cookie: this.#cookieHeader(), contentType: undefined, timeoutMs: this.#timeoutMs(), signal: this.#controller.signal };
      // [COMMANDS §4.22] methods 1 and 2 fetch through /iclock/file; method 3 fetches the URL itself
      const reply = direct
        ? await this.#transport.fetchUrl(url, opts)
        : await this.#transport.send(
            {
              method: 'GET',
              path: '/iclock/file',
              query: [
                ['SN', this.sn],
                ['url', url],
              ],
            },
            opts,
          );
      if (reply.status === 200) return reply.bytes;
      this.#fail(new SimulatorError('http', `firmware download answered HTTP ${reply.status}`));
    } catch (err) {
      this.#fail(err);
    }
    return null;
  }

  // ---- session ----

  async #handshake(): Promise<void> {
    let outcome: HandshakeOutcome;
    try {
      const send = (spec: RequestSpec, contentType?: string): Promise<HttpReply> => this.#send(spec, contentType);
      const uploadOptions = this.#opts.uploadOptions ?? true;
      outcome =
        this.protocol === 'v2'
          ? await v2Handshake(send, this.#profile, this.#memory, uploadOptions)
          : await v3Handshake(send, this.#profile, this.#memory, this.#session, uploadOptions);
    } catch (err) {
      this.#session = { ...this.#session, established: false };
      this.stats.handshakeFailures++;
      this.stats.online = false;
      this.#fail(err);
      throw err;
    }
    this.#session = outcome.state;
    this.stats.handshakes++;
    this.stats.online = true;
    this.#infoDue = true;
    for (const w of outcome.warnings) this.#warn(w);
    if (outcome.optionsUpload !== null && (await this.#post(outcome.optionsUpload)) !== 'ok') {
      this.#warn('the server did not acknowledge the device parameters (table=options)');
    }
    if (outcome.state.fullReupload) {
      // [PUSH-v2 §4.7] ATTLOGStamp=0: upload every stored record again
      const all = this.#memory.attendance();
      for (let i = 0; i < all.length; i += MAX_LINES) {
        const chunk = all.slice(i, i + MAX_LINES);
        this.#enqueue(this.#attendanceUpload(chunk), (chunk.at(-1) as SimAttendance).index);
      }
    }
    await this.#flush();
  }

  // ---- polling ----

  async #pollOnce(): Promise<number> {
    if (!this.#session.established) await this.#handshake();
    await this.#postResults();
    // start sending queued data, but do not wait for a drain already under way: polling goes on
    if (this.#flushing === null) await this.#flush();
    const query: Array<[string, string]> = [['SN', this.sn]];
    // [PUSH-v2 §7.1] INFO rides on the first poll after a handshake
    if (this.protocol === 'v2' && this.#infoDue) query.push(['INFO', infoHeartbeat(this.#profile, this.#memory)]);
    let reply: HttpReply;
    try {
      reply = await this.#send({ method: 'GET', path: '/iclock/getrequest', query });
      if (reply.status !== 200) throw new SimulatorError('http', `getrequest answered HTTP ${reply.status}`);
    } catch (err) {
      this.stats.online = false;
      this.#fail(err);
      throw err;
    }
    this.stats.polls++;
    this.stats.online = true;
    this.#infoDue = false;
    const { commands, junk } = parseCommandReply(reply.text);
    for (const line of junk) this.#warn(`getrequest reply line is not C:<id>:<command> [PUSH-v2 §7.2]: ${JSON.stringify(line)}`);
    let effect: Effect = 'none';
    let executed = 0;
    const enrolments: EnrollRequest[] = [];
    const results: string[] = [];
    for (const { id, command } of commands) {
      this.stats.commandsReceived++;
      if (effect === 'restart') {
        // [PUSH-v2 §7.3] anything after a restart command is lost
        this.stats.commandsLost++;
        this.#record({ id, command, returnCode: null, cmd: null });
        continue;
      }
      const outcome = await this.#execute(id, command);
      executed++;
      const key = String(outcome.returnCode);
      this.stats.commandsByCode[key] = (this.stats.commandsByCode[key] ?? 0) + 1;
      this.#record({ id, command, returnCode: outcome.returnCode, cmd: outcome.cmd });
      results.push(outcome.result);
      if (outcome.enroll !== undefined) enrolments.push(outcome.enroll);
      if (EFFECT_RANK[outcome.effect] > EFFECT_RANK[effect]) effect = outcome.effect;
    }
    if (results.length > 0) {
      this.#results = this.#results.concat(results).slice(-MAX_RESULTS);
      // [PUSH-v2 §8.1] all results of one reply in one POST (fixture A28)
      await this.#postResults();
    }
    for (const e of enrolments) this.#scheduleEnrolment(e);
    if (effect === 'flush') await this.#flush();
    if (effect === 'restart' || effect === 'rehandshake') {
      // REBOOT / CONTROL DEVICE 03 / UPGRADE restart the terminal; CHECK re-reads the options
      this.#session = { ...this.#session, established: false };
      await this.#handshake().catch(() => undefined);
    }
    return executed;
  }

  #record(entry: ExecutedCommand): void {
    this.#executed.push(entry);
    if (this.#executed.length > MAX_EXECUTED + MAX_EXECUTED / 10) this.#executed = this.#executed.slice(-MAX_EXECUTED);
    for (const listener of this.#listeners) {
      try {
        listener(entry);
      } catch (err) {
        this.#fail(err);
      }
    }
  }

  async #postResults(): Promise<void> {
    if (this.#results.length === 0) return;
    const sent = this.#results.length;
    try {
      const reply = await this.#send({
        method: 'POST',
        path: '/iclock/devicecmd',
        query: [['SN', this.sn]],
        body: this.#results.join('\n'),
      });
      if (reply.status !== 200) throw new SimulatorError('http', `devicecmd answered HTTP ${reply.status}`);
      this.stats.resultPosts++;
      this.#results.splice(0, sent);
      if (reply.text.trim() !== 'OK') this.#warn(`devicecmd reply is not OK [PUSH-v2 §8.1]: ${JSON.stringify(reply.text)}`);
    } catch (err) {
      // kept, and posted again before the next poll
      this.#fail(err);
    }
  }

  // ---- uploads ----

  #attendanceUpload(records: readonly SimAttendance[]): Upload {
    return this.protocol === 'v2'
      ? { kind: 'table', table: 'ATTLOG', lines: records.map(attlogLine) }
      : { kind: 'rtlog', lines: records.map(rtlogLine) };
  }

  #enqueue(upload: Upload, attendanceIndex = 0): QueuedUpload {
    const entry: QueuedUpload = { upload, attendanceIndex, acked: false };
    this.#queue.push(entry);
    if (this.#queue.length > MAX_QUEUE) {
      this.#queue.shift();
      this.stats.uploadsDropped++;
    }
    return entry;
  }

  /** Queue an upload and try to send it now; true when it was acknowledged. */
  async #upload(upload: Upload): Promise<boolean> {
    const entry = this.#enqueue(upload);
    await this.#flush();
    return entry.acked;
  }

  /** Send what is queued. Resolves after one drain that started after the call, so a caller's own
   *  upload has had its attempt; a drain takes only what was queued when it began, so a steady
   *  stream of punches cannot hold a caller forever. */
  async #flush(): Promise<void> {
    if (this.#flushing !== null) await this.#flushing;
    if (this.#flushing === null) {
      if (this.#queue.length === 0 || !this.#session.established) return;
      this.#flushing = this.#drain().finally(() => {
        this.#flushing = null;
      });
    }
    await this.#flushing;
  }

  /** Send queued uploads in order, merging neighbours of the same table; stop at the first failure
   *  and keep the rest for later: a device re-sends what was not acknowledged [PUSH-v2 §2.2]. */
  async #drain(): Promise<void> {
    let budget = this.#queue.length;
    while (budget > 0 && this.#queue.length > 0 && !this.#controller.signal.aborted) {
      const first = this.#queue[0] as QueuedUpload;
      const batch = [first];
      let merged = first.upload;
      for (const next of this.#queue.slice(1)) {
        const m = mergeUploads(merged, next.upload, MAX_LINES);
        if (m === undefined) break;
        merged = m;
        batch.push(next);
      }
      if ((await this.#post(merged)) !== 'ok') return;
      // by identity: the queue may have dropped its oldest entries meanwhile
      const sent = new Set(batch);
      this.#queue = this.#queue.filter((e) => !sent.has(e));
      for (const entry of batch) {
        entry.acked = true;
        this.#memory.markUploaded(entry.attendanceIndex);
      }
      budget -= batch.length;
    }
  }

  async #post(upload: Upload): Promise<UploadVerdict> {
    let reply: HttpReply;
    try {
      reply = await this.#send(uploadRequest(this.sn, upload, { packedOperlog: this.#opts.packedOperlog === true }));
    } catch (err) {
      if (!isAbort(err)) {
        this.stats.uploadsSent++;
        this.stats.uploadsFailed++;
        this.#fail(err);
      }
      return 'http-error';
    }
    this.stats.uploadsSent++;
    const verdict = uploadVerdict(upload, reply.status, reply.text);
    if (verdict === 'ok') {
      this.stats.uploadsAcknowledged++;
    } else {
      this.stats.uploadsFailed++;
      this.#fail(
        new SimulatorError(
          verdict === 'http-error' ? 'http' : 'protocol',
          `${upload.kind} upload answered HTTP ${reply.status}: ${JSON.stringify(reply.text.slice(0, 80))}`,
        ),
      );
    }
    return verdict;
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
    const time = formatDeviceTime(this.#now(), this.#utcOffset());
    for (const u of enrolmentUploads(this.#profile, template, owner, newUser, time)) acked = (await this.#upload(u)) && acked;
    return acked;
  }
}
