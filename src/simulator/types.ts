// Public shapes of the terminal simulator. The simulator speaks the device side of the PUSH
// protocol on its own: nothing here comes from protocols/ or the rest of src/ (DESIGN.md).

import type { FaultSettings } from './failure-injection.js';

export type SimProtocol = 'v2' | 'v3';

/** Convergence faults of a fleet's terminals (`biogate simulate --refuse-rate …`; SimulatedDeviceOptions). */
export interface SimFaults {
  readonly refuseRate?: number;
  readonly loseRate?: number;
  readonly wipeAfterS?: number;
  readonly keypadUsers?: number;
}

/** A user as the simulated terminal stores it (v2 USERINFO and v3 `user` share one record). */
export interface SimUser {
  readonly pin: string;
  readonly name: string;
  readonly privilege: number;
  readonly password: string;
  readonly card: string;
  readonly group: number;
  /** v2 `TZ` (16 hex digits), empty when never set */
  readonly tz: string;
  readonly verify: number;
  readonly viceCard: string;
  /** v3 `StartTime` / `EndTime` as received (`0` = unlimited) */
  readonly startTime: string;
  readonly endTime: string;
  readonly disabled: boolean;
  /** device-internal record number (v3 `uid`) */
  readonly uid: number;
}

/** The table a template is stored in on the device: one per wire table, as on real firmware. */
export type TemplateTable = 'FINGERTMP' | 'FACE' | 'BIODATA' | 'templatev10' | 'biodata';

/** A biometric template [PUSH-v2 §9.4]. */
export interface SimTemplate {
  readonly table: TemplateTable;
  readonly pin: string;
  /** 1 fingerprint, 2 near-infrared face, 9 visible-light face, … */
  readonly type: number;
  /** finger index 0–9 (0 for faces) */
  readonly no: number;
  readonly index: number;
  /** 1 normal, 3 duress fingerprint */
  readonly valid: number;
  readonly duress: number;
  readonly majorVer: number;
  readonly minorVer: number;
  readonly format: number;
  /** base64 template text */
  readonly tmp: string;
}

/** v3 `userauthorize` row. */
export interface SimAuthorization {
  readonly pin: string;
  readonly timezoneId: number;
  readonly doorMask: number;
}

/** One attendance record kept by the terminal. */
export interface SimAttendance {
  readonly pin: string;
  /** device-local wall-clock time `YYYY-MM-DD HH:MM:SS` */
  readonly time: string;
  readonly status: number;
  readonly verify: number;
  /** record number, increasing */
  readonly index: number;
}

export interface DoorState {
  readonly door: number;
  /** lock relay: closed, open for a moment, or latched normal-open */
  readonly relay: 'closed' | 'open' | 'normal-open';
  readonly lockedDown: boolean;
  readonly alarm: boolean;
  readonly normalOpenZoneEnabled: boolean;
  /** seconds of the last timed open (CONTROL DEVICE 01…), 0 when none */
  readonly lastOpenSeconds: number;
  /** AC_UNLOCK pulses received */
  readonly pulses: number;
}

/** Every command line received, in order, verbatim. */
export interface ExecutedCommand {
  readonly id: string;
  readonly command: string;
  /** the `Return` code posted, or null when the line was lost because a restart command came first */
  readonly returnCode: number | null;
  /** the `CMD` echo posted, or null when lost */
  readonly cmd: string | null;
}

export type CommandListener = (command: ExecutedCommand) => void;

export interface SimulatedDeviceOptions {
  /** base URL of the BioGate server, e.g. `http://127.0.0.1:8080` */
  url: string;
  sn: string;
  protocol: SimProtocol;
  /** poll interval override in ms; default: the server's `Delay` (v2) / `RequestDelay` (v3) */
  pollDelayMs?: number;
  /** poll again right after posting results (benchmarks) */
  fast?: boolean;
  /** fingerprint algorithm: 10 → FINGERTMP / templatev10; 12 → BIODATA type 1 (default 10) */
  fpVersion?: 10 | 12;
  /** device has a visible-light / near-infrared face module (default false) */
  faceSupport?: boolean;
  /** device has a visible-light palm module: biometric type 10 and an 11-slot MultiBioDataSupport
   *  mask (vendor V4.2 revision, 2023) (default false) */
  palmSupport?: boolean;
  /** device keeps user photos and enrols faces from them (`BioPhotoFun=1`, `PhotoFunOn=1`) (default false) */
  photoSupport?: boolean;
  /** `language` on the handshake [PUSH-v2 §4.1] (default `69`, English); `83` sends and reads names in
   *  GB2312/GBK [PUSH-v2 §2.6] */
  language?: string;
  /** v2: OPERLOG uploads go packed, `ContentType=tgz` [PUSH-v2 §6.4] (default false) */
  packedOperlog?: boolean;
  /** number of doors / lock outputs (default 1; 0 = no lock, AC_UNLOCK unsupported) */
  lockCount?: number;
  /** forced `Return` per command prefix (longest match wins), e.g. `{ 'DATA QUERY ATTLOG': -1002 }`;
   *  a forced command is acknowledged with that code and has no effect */
  returnCodes?: Record<string, number>;
  /** share of commands that fail with a generic code (v2 −1005 busy, v3 −12), seeded; 0–1 */
  failRate?: number;
  /** share of user lines (users, rights, templates) refused with v2 −3 / v3 −12, seeded; 0–1 */
  refuseRate?: number;
  /** share of executed lines whose result never reaches the server (the line was applied), seeded; 0–1 */
  loseRate?: number;
  /** factory reset this many seconds after start(): users, templates and rights erased */
  wipeAfterS?: number;
  /** users enrolled at the keypad before start (PINs 90001 up, never sent by the server) */
  keypadUsers?: number;
  /** seed of the simulator's random choices (default: derived from the serial number) */
  seed?: number;
  /** v2: sent as `pushcommkey` on the handshake; v3: also `authKey` in the registry body */
  commKey?: string;
  /** per-request timeout in ms (default: the server's `TimeoutSec`/`Timeout`, else 20000) */
  requestTimeoutMs?: number;
  /** wait after a failed request before retrying, ms (default: the server's `ErrorDelay`, else 30 s) */
  retryDelayMs?: number;
  /** delay between an enrolment command and its template upload, ms (default 300) */
  enrollDelayMs?: number;
  /** attendance records kept in memory; the oldest are dropped (default 10000) */
  maxAttendance?: number;
  /** user capacity; a new user beyond it is refused with −1001 (v2) / −18 (v3) (default 20000) */
  maxUsers?: number;
  /** template capacity, refused like users (default 40000) */
  maxTemplates?: number;
  /** upload `table=options` when the server asks (v2 `PushOptionsFlag=1`) or always (v3); default true */
  uploadOptions?: boolean;
  /** v3 only: also accept the v2 words INFO, CHECK, LOG, AC_UNLOCK, AC_UNALARM, SHELL (F1, F4); default false */
  acceptV2Words?: boolean;
  /** device time zone offset in minutes until a v2 handshake announces `TimeZone` (default 0) */
  utcOffsetMinutes?: number;
  /** clock (default `() => new Date()`) */
  now?: () => Date;
  /** aborting it stops the device */
  signal?: AbortSignal;
  onCommand?: CommandListener;
}

export interface SimulatedDeviceStats {
  handshakes: number;
  handshakeFailures: number;
  polls: number;
  /** command lines received */
  commandsReceived: number;
  /** executed commands by posted `Return` code */
  commandsByCode: Record<string, number>;
  /** lines lost after a restart command in the same reply */
  commandsLost: number;
  /** results of executed lines never posted (loseRate) */
  resultsLost: number;
  /** factory resets (wipeAfterS, wipe()) */
  wipes: number;
  resultPosts: number;
  uploadsSent: number;
  uploadsAcknowledged: number;
  uploadsFailed: number;
  /** uploads dropped because the retry queue was full */
  uploadsDropped: number;
  punches: number;
  templatesEnrolled: number;
  /** failed requests and unexpected replies */
  errors: number;
  /** replies that broke a protocol rule the simulator checks (e.g. a missing TimeZone) */
  protocolWarnings: number;
  lastError: string | null;
  /** last request to the server succeeded and the session is established */
  online: boolean;
}

/** What the device learnt from the server's handshake / configuration. */
export interface SessionInfo {
  readonly established: boolean;
  /** keys of the last handshake or configuration reply, as received */
  readonly serverOptions: Readonly<Record<string, string>>;
  readonly pollDelayMs: number;
  readonly retryDelayMs: number;
  readonly requestTimeoutMs: number;
  readonly realtime: boolean;
  readonly utcOffsetMinutes: number;
  readonly registryCode: string | null;
  readonly sessionId: string | null;
  readonly token: string | null;
  readonly lastDateHeader: string | null;
  readonly warnings: readonly string[];
}

/** A photo a simulated terminal holds: a `biophoto` (type 9 …) or, without `type`, a `userpic`. */
export interface SimPhoto {
  readonly pin: string;
  readonly type?: number;
  /** `Size` as sent (characters of base64) */
  readonly size: number;
  /** SHA-256 (hex) of the decoded content */
  readonly sha256?: string;
}

export interface SimulatedDevice {
  readonly sn: string;
  readonly protocol: SimProtocol;
  /** handshake, then poll until stop() */
  start(): void;
  /** aborts a held poll and any request in flight; resolves when idle */
  stop(): Promise<void>;
  /** stops polling once the exchange under way has completed (a held poll included), aborting
   *  nothing; resolves when idle. start() resumes with the same session. */
  pause(): Promise<void>;
  /** one handshake (v2) or registration flow (v3) */
  handshake(): Promise<void>;
  /** one getrequest round trip (handshaking first when needed) → number of commands executed */
  pollOnce(): Promise<number>;
  /** record an attendance punch and upload it → true when the server acknowledged it */
  punch(pin: string, when: Date | string, status?: number, verify?: number): Promise<boolean>;
  /** simulate a local enrolment at the terminal → true when the template upload was acknowledged */
  enroll(pin: string, fid: number, type?: number): Promise<boolean>;
  users(): ReadonlyMap<string, SimUser>;
  templates(pin: string): readonly SimTemplate[];
  authorizations(pin: string): readonly SimAuthorization[];
  /** [PUSH-v3 §11.2] the `timezone` rows received, by TimezoneId: field (`SunTime1` …) → packed value */
  timezones(): ReadonlyMap<number, Readonly<Record<string, number>>>;
  /** the `holiday` rows received, by `Holiday` date (`YYYYMMDD`): field → value */
  holidays(): ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** the user's photos received: `biophoto` rows (with their `type`) and the `userpic` (without) */
  photos(pin: string): readonly SimPhoto[];
  attendanceLog(): readonly SimAttendance[];
  doors(): readonly DoorState[];
  deviceOptions(): ReadonlyMap<string, string>;
  executed(): readonly ExecutedCommand[];
  session(): SessionInfo;
  readonly stats: Readonly<SimulatedDeviceStats>;
  onCommand(listener: CommandListener): () => void;
  /** change the injected faults while running (forced codes, refusal and lost-result rates) */
  setFaults(settings: FaultSettings): void;
  /** a factory reset now: users, templates and rights erased */
  wipe(): void;
  /** a change made at the terminal's keypad: the user's fields changed (or enrolled), or with null deleted */
  keypad(pin: string, change: Partial<Omit<SimUser, 'pin' | 'uid'>> | null): void;
  /** a user's access rights changed at the terminal's menu: its `userauthorize` rows replaced by these */
  keypadRights(pin: string, rows: readonly Omit<SimAuthorization, 'pin'>[]): void;
  /** a `timezone` row written at the terminal's menu (`SunTime1` … `Hol3Time3` → packed value) */
  keypadTimezone(id: number, fields: Readonly<Record<string, number>>): void;
  /** the `holiday` table replaced at the terminal's menu (each row: `Holiday`, `HolidayType`, `Loop`) */
  keypadHolidays(fields: readonly Readonly<Record<string, string>>[]): void;
  /** an option changed at the terminal's menu (a door's `Door1Drivertime`, …), answered by GET OPTIONS */
  keypadOption(key: string, value: string): void;
}
