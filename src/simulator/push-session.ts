// The terminal's session with the server: handshake or registration, the poll, the results of the
// commands it brings and the uploads that follow. It owns the session state the server announced
// (delays, time zone, token); the device around it owns the loop, local input and enrolment timers.

import { createCommandExecutor } from './command-executor.js';
import { parseCommandReply } from './command-reply.js';
import { CommandRunner } from './command-runner.js';
import { DeviceLink } from './device-link.js';
import type { EnrollRequest, ExecutionContext } from './execution.js';
import type { FailureInjector } from './failure-injection.js';
import { createHttpTransport } from './http-transport.js';
import type { HttpReply } from './http-transport.js';
import type { DeviceMemory } from './memory.js';
import { infoHeartbeat } from './profile.js';
import type { DeviceProfile } from './profile.js';
import { NO_SESSION } from './session.js';
import type { HandshakeOutcome, SessionState } from './session.js';
import { isAbort, SimulatorError } from './sim-error.js';
import type { SessionInfo, SimulatedDeviceOptions, SimulatedDeviceStats } from './types.js';
import { UploadQueue } from './upload-queue.js';
import type { RequestSpec } from './uploads.js';
import { v2Handshake } from './v2-session.js';
import { v3Handshake } from './v3-session.js';
import { charsetOfLanguage } from './wire-bytes.js';

const MAX_WARNINGS = 50;
const DEFAULT_TIMEOUT_MS = 20_000;

export interface PushSessionOptions {
  readonly device: SimulatedDeviceOptions;
  readonly profile: DeviceProfile;
  readonly memory: DeviceMemory;
  readonly stats: SimulatedDeviceStats;
  readonly inject: FailureInjector;
  now(): Date;
  /** the device's current abort signal (a new one after each stop()) */
  signal(): AbortSignal;
  /** a remote enrolment the device completes later */
  enrol(request: EnrollRequest): void;
}

export class PushSession {
  readonly queue: UploadQueue;
  readonly commands: CommandRunner;
  readonly #opts: PushSessionOptions;
  readonly #device: SimulatedDeviceOptions;
  readonly #stats: SimulatedDeviceStats;
  readonly #link: DeviceLink;
  #state: SessionState = NO_SESSION;
  #warnings: string[] = [];
  #infoDue = false;

  constructor(opts: PushSessionOptions) {
    const device = opts.device;
    this.#opts = opts;
    this.#device = device;
    this.#stats = opts.stats;
    this.#link = new DeviceLink({
      sn: device.sn,
      protocol: device.protocol,
      transport: createHttpTransport(device.url, charsetOfLanguage(opts.profile.language)),
      token: () => this.#state.token,
      timeoutMs: () => this.timeoutMs(),
      signal: () => opts.signal(),
      fail: (err) => this.fail(err),
    });
    const send = (spec: RequestSpec): Promise<HttpReply> => this.#link.send(spec);
    this.queue = new UploadQueue({
      sn: device.sn,
      protocol: device.protocol,
      packedOperlog: device.packedOperlog === true,
      memory: opts.memory,
      stats: opts.stats,
      send,
      established: () => this.#state.established,
      aborted: () => opts.signal().aborted,
      fail: (err) => this.fail(err),
    });
    const ctx: ExecutionContext = {
      profile: opts.profile,
      memory: opts.memory,
      now: opts.now,
      acceptV2Words: device.acceptV2Words ?? false,
      io: {
        upload: (u) => this.queue.upload(u),
        answer: async (u) => (await this.queue.post(u)) !== 'http-error',
        download: (url, direct) => this.#link.download(url, direct),
      },
    };
    this.commands = new CommandRunner({
      sn: device.sn,
      stats: opts.stats,
      execute: createCommandExecutor(ctx, opts.inject),
      lose: () => opts.inject.lose(),
      send,
      fail: (err) => this.fail(err),
      warn: (message) => this.#warn(message),
    });
  }

  get state(): SessionState {
    return this.#state;
  }

  info(): SessionInfo {
    const s = this.#state;
    return {
      established: s.established,
      serverOptions: Object.fromEntries(s.serverOptions),
      pollDelayMs: this.pollDelayMs(),
      retryDelayMs: this.retryDelayMs(),
      requestTimeoutMs: this.timeoutMs(),
      realtime: s.realtime,
      utcOffsetMinutes: this.utcOffset(),
      registryCode: s.registryCode,
      sessionId: s.sessionId,
      token: s.token,
      lastDateHeader: this.#link.lastDate,
      warnings: [...this.#warnings],
    };
  }

  // ---- timing: the caller's setting, else the server's, else the protocol's default ----

  pollDelayMs(): number {
    return this.#device.pollDelayMs ?? (this.#state.delayS ?? (this.#device.protocol === 'v2' ? 10 : 30)) * 1000;
  }

  retryDelayMs(): number {
    return Math.max(1, this.#device.retryDelayMs ?? (this.#state.errorDelayS ?? 30) * 1000);
  }

  timeoutMs(): number {
    const announced = this.#state.timeoutS;
    return this.#device.requestTimeoutMs ?? (announced !== undefined && announced > 0 ? announced * 1000 : DEFAULT_TIMEOUT_MS);
  }

  utcOffset(): number {
    return this.#state.utcOffsetMinutes ?? this.#device.utcOffsetMinutes ?? 0;
  }

  // ---- faults ----

  /** Count a failure; requests cut short by stop() are not failures. */
  fail(err: unknown): void {
    if (isAbort(err)) return;
    this.#stats.errors++;
    this.#stats.lastError = err instanceof Error ? err.message : String(err);
  }

  #warn(message: string): void {
    this.#stats.protocolWarnings++;
    this.#warnings.push(message);
    if (this.#warnings.length > MAX_WARNINGS) this.#warnings.shift();
  }

  // ---- session ----

  async handshake(): Promise<void> {
    const { profile, memory } = this.#opts;
    let outcome: HandshakeOutcome;
    try {
      const send = (spec: RequestSpec, contentType?: string): Promise<HttpReply> => this.#link.send(spec, contentType);
      const uploadOptions = this.#device.uploadOptions ?? true;
      outcome =
        this.#device.protocol === 'v2'
          ? await v2Handshake(send, profile, memory, uploadOptions)
          : await v3Handshake(send, profile, memory, this.#state, uploadOptions);
    } catch (err) {
      this.#state = { ...this.#state, established: false };
      this.#stats.handshakeFailures++;
      this.#stats.online = false;
      this.fail(err);
      throw err;
    }
    this.#state = outcome.state;
    this.#stats.handshakes++;
    this.#stats.online = true;
    this.#infoDue = true;
    for (const w of outcome.warnings) this.#warn(w);
    if (outcome.optionsUpload !== null && (await this.queue.post(outcome.optionsUpload)) !== 'ok') {
      this.#warn('the server did not acknowledge the device parameters (table=options)');
    }
    if (outcome.state.fullReupload) {
      // [PUSH-v2 §4.7] ATTLOGStamp=0: upload every stored record again
      this.queue.requeueAttendance(memory.attendance());
    }
    await this.queue.flush();
  }

  /** [PUSH-v2 §7.1] INFO rides on the next poll too (a terminal sends it "from time to time"). */
  reportInfo(): void {
    this.#infoDue = true;
  }

  // ---- polling ----

  /** One getrequest round trip (handshaking first when needed) → number of commands executed. */
  async pollOnce(): Promise<number> {
    if (!this.#state.established) await this.handshake();
    await this.commands.postResults();
    // start sending queued data, but do not wait for a drain already under way: polling goes on
    if (!this.queue.draining) await this.queue.flush();
    const query: Array<[string, string]> = [['SN', this.#device.sn]];
    // [PUSH-v2 §7.1] INFO rides on the first poll after a handshake
    const withInfo = this.#device.protocol === 'v2' && this.#infoDue;
    if (withInfo) query.push(['INFO', infoHeartbeat(this.#opts.profile, this.#opts.memory)]);
    let reply: HttpReply;
    try {
      reply = await this.#link.send({ method: 'GET', path: '/iclock/getrequest', query });
      if (reply.status !== 200) throw new SimulatorError('http', `getrequest answered HTTP ${reply.status}`);
    } catch (err) {
      this.#stats.online = false;
      this.fail(err);
      throw err;
    }
    this.#stats.polls++;
    this.#stats.online = true;
    // Only the INFO this poll carried: one asked for while it was under way rides on the next.
    if (withInfo) this.#infoDue = false;
    const { commands, junk } = parseCommandReply(reply.text);
    for (const line of junk) this.#warn(`getrequest reply line is not C:<id>:<command> [PUSH-v2 §7.2]: ${JSON.stringify(line)}`);
    const { executed, effect, enrolments } = await this.commands.run(commands);
    for (const e of enrolments) this.#opts.enrol(e);
    if (effect === 'flush') await this.queue.flush();
    if (effect === 'restart' || effect === 'rehandshake') {
      // REBOOT / CONTROL DEVICE 03 / UPGRADE restart the terminal; CHECK re-reads the options
      this.#state = { ...this.#state, established: false };
      await this.handshake().catch(() => undefined);
    }
    return executed;
  }
}
