// Typed device events: what a device request means, with no protocol syntax left in it.
// Produced by Codec.decode (codec.ts). Every list-shaped upload becomes one event carrying all the
// records of its kind, plus the RecordSource it came from. Times are device-local wall-clock strings
// `YYYY-MM-DD HH:MM:SS` [PUSH-v2 §6.2, PUSH-v3 §7.2]; numbers that were absent or empty are `null`.

/** Device parameters from `table=options`, `/iclock/registry`, an INFO result or GET OPTIONS [PUSH-v2 §5.2]. */
export interface DeviceOptions {
  /** key without its `~` prefix → value exactly as received (not trimmed) */
  readonly values: Readonly<Record<string, string>>;
  /** key without `~` → the key as the device spelled it (`OEMVendor` → `~OEMVendor`) */
  readonly keys: Readonly<Record<string, string>>;
}

/** Where a batch of records came from: a push upload, or the answer to a query command (v3 querydata). */
export type RecordSource =
  | {
      readonly kind: 'upload';
      /** table name as sent in the query (`ATTLOG`, `OPERLOG`, `user`, `rtlog` …) */
      readonly table: string;
      readonly stamp?: string;
      /** v3 tabledata `count` [PUSH-v3 §7.4] */
      readonly declaredCount?: number;
    }
  | {
      readonly kind: 'query';
      /** the command id being answered (alphanumeric ids are kept) [PUSH-v3 §10.1] */
      readonly cmdId: string;
      readonly table: string;
      readonly declaredCount?: number;
      readonly packCount?: number;
      readonly packIndex?: number;
    };

export interface AttendanceRecord {
  readonly pin: string;
  readonly time: string;
  /** attendance state [PUSH-v2 §6.3]; null when the field was empty or missing */
  readonly status: number | null;
  /** verification mode [PUSH-v2 §6.3] */
  readonly verify: number | null;
  readonly workCode: string;
  readonly reserved1: string;
  readonly reserved2: string;
  /** fields 8+ kept raw (job/tip codes, temperature, ID card) [PUSH-v2 §6.2] */
  readonly extra: readonly string[];
}

export interface UserRecord {
  readonly pin: string;
  readonly name: string;
  readonly privilege: number | null;
  readonly password: string;
  /** decimal; bracketed hex `[15CD5B07]` is converted [COMMANDS §3.6]; kept as received when unparseable */
  readonly cardNo: string;
  readonly group: number | null;
  /** v2 `TZ` (16 hex digits) [PUSH-v2 §6.6]; '' when absent */
  readonly timeZones: string;
  readonly verify: number | null;
  readonly viceCard: string;
  /** v3 `uid` */
  readonly uid: number | null;
  /** v3 `starttime`/`endtime` as received (`0` = unlimited, `YYYYMMDD` or ZK packed seconds) [PUSH-v3 §6.3] */
  readonly startTime: string;
  readonly endTime: string;
  readonly disabled: boolean | null;
}

interface TemplateCommon {
  readonly pin: string;
  /** base64 text as received */
  readonly template: string;
  /** false when the template is not valid base64: store it, never send it to a device [PUSH-v2 §6.4] */
  readonly usable: boolean;
  /** declared Size, when present */
  readonly size: number | null;
  /** Size differs from the base64 length: log it, do not reject [PUSH-v2 §6.4] */
  readonly sizeMismatch: boolean;
}

/** v2 `FP` / `FINGERTMP`, v3 `templatev10` [PUSH-v2 §6.4, PUSH-v3 §7.4]. */
export interface FingerprintTemplate extends TemplateCommon {
  /** finger index on the device's numbering 0–9 [COMMANDS §3.9]; a v3 `fingerid` ≥ 16 is reduced by 16 */
  readonly fingerIndex: number;
  /** 1 normal, 3 duress, 0 invalid */
  readonly valid: number | null;
  readonly duress: boolean;
  readonly uid: number | null;
}

/** v2 legacy `FACE` [PUSH-v2 §6.4]. */
export interface FaceTemplate extends TemplateCommon {
  readonly faceIndex: number | null;
  readonly valid: number | null;
}

/** v2 `FVEIN` [PUSH-v2 §6.4]. */
export interface FingerVeinTemplate extends TemplateCommon {
  readonly fingerIndex: number;
  readonly index: number | null;
  readonly valid: number | null;
}

/** Unified template `BIODATA` / `biodata` [PUSH-v2 §6.7, §9.4]. */
export interface BioTemplate {
  readonly pin: string;
  /** finger index / 0 for face / 0–1 left-right for iris and palm */
  readonly no: number;
  readonly index: number;
  readonly valid: number | null;
  readonly duress: boolean;
  /** biometric type [PUSH-v2 §9.4]: 0–9, 10 visible-light palm (vendor V4.2 revision, 2023); a higher
   *  (future) type is kept and synced as an opaque template (issue #18) */
  readonly type: number;
  readonly majorVer: string;
  readonly minorVer: string;
  /** 0 ZK, 1 ISO, 2 ANSI */
  readonly format: number | null;
  readonly template: string;
  readonly usable: boolean;
}

export interface UserPhoto {
  readonly pin: string;
  readonly fileName: string;
  readonly size: number | null;
  /** base64 JPEG */
  readonly content: string;
  readonly usable: boolean;
}

export interface BioPhoto extends UserPhoto {
  readonly type: number | null;
}

export type PhotoContent =
  { readonly encoding: 'binary'; readonly bytes: Uint8Array } | { readonly encoding: 'base64'; readonly text: string };

/** Attendance photo [PUSH-v2 §6.8, PUSH-v3 §7.4 ATTPHOTO]. */
export interface AttendancePhoto {
  /** `YYYYMMDDhhmmss-${pin}.jpg` after a verification, `YYYYMMDDhhmmss.jpg` after a failure */
  readonly fileName: string;
  /** user PIN taken from the file name, '' when none */
  readonly pin: string;
  /** time taken from the file name, '' when it has none */
  readonly time: string;
  readonly size: number | null;
  /** `uploadphoto` / `realupload` (v2 header), '' otherwise */
  readonly cmd: string;
  readonly content: PhotoContent;
}

/** `OPLOG` [PUSH-v2 §6.4–§6.5]; objects are firmware-dependent and kept raw. */
export interface OperationLog {
  readonly opType: number;
  readonly operator: string;
  readonly time: string;
  readonly objects: readonly string[];
}

export interface ErrorLogRecord {
  readonly errCode: string;
  readonly errMsg: string;
  readonly dataOrigin: string;
  /** refers to a command id when dataOrigin is `cmd` [PUSH-v2 §6.9] */
  readonly cmdId: string;
  readonly additional: string;
}

/** v3 `rtlog` [PUSH-v3 §7.2], parsed by key. */
export interface DoorEvent {
  readonly time: string;
  /** '0' = no user */
  readonly pin: string;
  readonly cardNo: string;
  /** `eventaddr` — door number */
  readonly door: number | null;
  /** event code [PUSH-v3 §7.7] */
  readonly event: number;
  readonly inOutStatus: number | null;
  /** a mode code or a NewVFStyles bit string [PUSH-v3 §7.8] */
  readonly verifyType: string;
  readonly index: number | null;
  /** keys not named above (sitecode, linkid, maskflag, temperature, …), lower-cased */
  readonly extra: Readonly<Record<string, string>>;
}

/** v3 `rtstate` [PUSH-v3 §7.3]; bit fields kept as sent. */
export interface DoorState {
  readonly time: string;
  readonly sensor: string;
  readonly relay: string;
  readonly alarm: string;
  /** SenseFace 3A `door=` (undocumented), '' when absent */
  readonly door: string;
  readonly extra: Readonly<Record<string, string>>;
}

/** v3 `transaction` row (query answers) [PUSH-v3 §7.6]. */
export interface AccessRecord {
  readonly pin: string;
  readonly cardNo: string;
  readonly verified: number | null;
  readonly doorId: number | null;
  readonly eventType: number | null;
  readonly inOutState: number | null;
  /** ZK packed seconds as sent [PUSH-v3 §13.1] */
  readonly timeSecond: number;
  /** timeSecond decoded to device-local wall-clock time */
  readonly time: string;
  readonly index: number | null;
  readonly extra: Readonly<Record<string, string>>;
}

/** `getrequest?INFO=` [PUSH-v2 §7.1]: fields 1–5 always, 6–10 only for the 10-field form. */
export interface HeartbeatInfo {
  readonly raw: string;
  readonly firmware: string;
  readonly users: number | null;
  readonly fingerprints: number | null;
  readonly attendanceRecords: number | null;
  readonly ip: string;
  readonly fpAlgorithm: string | null;
  readonly faceAlgorithm: string | null;
  readonly facesToEnroll: number | null;
  readonly faces: number | null;
  /** one character per capability: fingerprint, face, user photo, comparison photo, visible-light face */
  readonly flags: string | null;
}

/** One `/iclock/devicecmd` result [PUSH-v2 §8.3, PUSH-v3 §9.1]. Correlate by `id` only [PUSH-v2 §8.4]. */
export interface CommandResult {
  readonly id: string;
  readonly returnCode: number;
  /** the echoed command word (`DATA`, `CONTROL DEVICE` …), '' when absent — never used for correlation */
  readonly cmd: string;
  /** `SN=` inside the result (older v2 form, or a v3 sub-controller) */
  readonly sn: string;
  /** Shell / GetFile output, LF-joined when it spans lines */
  readonly content: string | null;
  /** every other pair of the result lines, original keys (`StartTime`, `RecordSum`, `FILENAME` …);
   *  a bare token (`transaction` in an ACCOUNT result) maps to '' */
  readonly fields: Readonly<Record<string, string>>;
  /** device parameters that followed an INFO result, one per line [PUSH-v2 §8.2] */
  readonly options: DeviceOptions | null;
  /** the result's text as received (LF-joined lines) */
  readonly raw: string;
}

export interface HandshakeEvent {
  readonly type: 'handshake';
  /** `pushver` as sent; null when absent (then 2.2.14 is assumed) [PUSH-v2 §4.1] */
  readonly pushVersion: string | null;
  readonly language: string | null;
  readonly deviceType: string | null;
  /** `pushcommkey` / `ComKey`: accepted and logged, never required [PUSH-v2 §2.9] */
  readonly commKey: string | null;
  readonly pushOptionsFlag: boolean;
  /** every query parameter, original keys, decoded values */
  readonly params: Readonly<Record<string, string>>;
}
export interface RegistrationEvent {
  readonly type: 'registration';
  readonly options: DeviceOptions;
  readonly raw: string;
}
export interface ConfigRequestEvent {
  readonly type: 'configRequest';
}
export interface OptionsEvent {
  readonly type: 'options';
  readonly options: DeviceOptions;
  readonly raw: string;
}
export interface HeartbeatEvent {
  readonly type: 'heartbeat';
  readonly info: HeartbeatInfo | null;
}
export interface PingEvent {
  readonly type: 'ping';
}
/** `cdata?type=time` (v2 legacy, reply `Time=` ISO) or `rtdata?type=time` (v3, packed) */
export interface TimeRequestEvent {
  readonly type: 'timeRequest';
  readonly flavor: 'iso' | 'rtdata';
}
export interface AttendanceEvent {
  readonly type: 'attendance';
  readonly source: RecordSource;
  readonly records: readonly AttendanceRecord[];
}
export interface UsersEvent {
  readonly type: 'users';
  readonly source: RecordSource;
  readonly records: readonly UserRecord[];
}
export interface FingerprintTemplatesEvent {
  readonly type: 'fingerprintTemplates';
  readonly source: RecordSource;
  readonly records: readonly FingerprintTemplate[];
}
export interface FaceTemplatesEvent {
  readonly type: 'faceTemplates';
  readonly source: RecordSource;
  readonly records: readonly FaceTemplate[];
}
export interface FingerVeinTemplatesEvent {
  readonly type: 'fingerVeinTemplates';
  readonly source: RecordSource;
  readonly records: readonly FingerVeinTemplate[];
}
export interface BioTemplatesEvent {
  readonly type: 'bioTemplates';
  readonly source: RecordSource;
  readonly records: readonly BioTemplate[];
}
export interface UserPhotosEvent {
  readonly type: 'userPhotos';
  readonly source: RecordSource;
  readonly records: readonly UserPhoto[];
}
export interface BioPhotosEvent {
  readonly type: 'bioPhotos';
  readonly source: RecordSource;
  readonly records: readonly BioPhoto[];
}
export interface AttendancePhotosEvent {
  readonly type: 'attendancePhotos';
  readonly source: RecordSource;
  readonly records: readonly AttendancePhoto[];
}
export interface OperationLogsEvent {
  readonly type: 'operationLogs';
  readonly source: RecordSource;
  readonly records: readonly OperationLog[];
}
export interface DoorEventsEvent {
  readonly type: 'doorEvents';
  readonly source: RecordSource;
  readonly records: readonly DoorEvent[];
}
export interface DoorStatesEvent {
  readonly type: 'doorStates';
  readonly source: RecordSource;
  readonly records: readonly DoorState[];
}
export interface AccessRecordsEvent {
  readonly type: 'accessRecords';
  readonly source: RecordSource;
  readonly records: readonly AccessRecord[];
}
export interface ErrorLogsEvent {
  readonly type: 'errorLogs';
  readonly source: RecordSource;
  readonly records: readonly ErrorLogRecord[];
}
export interface CommandResultsEvent {
  readonly type: 'commandResults';
  readonly results: readonly CommandResult[];
}
/** v3 `querydata?type=count`: the count is in the body (`user=5`), not in Return [PUSH-v3 §10.3] */
export interface QueryCountEvent {
  readonly type: 'queryCount';
  readonly cmdId: string;
  readonly table: string;
  readonly count: number;
}
/** v3 `querydata?type=options`: answer to GET OPTIONS [PUSH-v3 §10.5] */
export interface QueryOptionsEvent {
  readonly type: 'queryOptions';
  readonly cmdId: string;
  readonly options: DeviceOptions;
}
/** v2 `cdata?table=RemoteAtt&PIN=` [PUSH-v2 §6.10] */
export interface RemoteUserLookupEvent {
  readonly type: 'remoteUserLookup';
  readonly pin: string;
}
/** `/iclock/file?url=` firmware download [COMMANDS §4.22] */
export interface FileRequestEvent {
  readonly type: 'fileRequest';
  readonly url: string;
}
/** `/iclock/exchange` — encryption is not supported; answer OK and log [PUSH-v2 §12, PUSH-v3 §16] */
export interface KeyExchangeEvent {
  readonly type: 'keyExchange';
  readonly exchangeType: string;
}
/** `/iclock/service/control` (undocumented poll) [PUSH-v3 §3.7] */
export interface ServiceControlEvent {
  readonly type: 'serviceControl';
}
/** well-formed lines of a known table whose tag is unknown: kept raw [PUSH-v2 §6.4] */
export interface UnknownRecordsEvent {
  readonly type: 'unknownRecords';
  readonly source: RecordSource;
  readonly lines: readonly string[];
}
/**
 * Text records of a table BioGate keeps without parsing (v3 `userauthorize`, `timezone`, `holiday`,
 * `identitycard`, `workcode`…, v2 `IDCARD`), one string per record as received: stored raw and counted
 * per record (issue #18) [PUSH-v3 §7.4, §10.2; PUSH-v2 §6.1].
 */
export interface RawRecordsEvent {
  readonly type: 'rawRecords';
  readonly source: RecordSource;
  readonly records: readonly string[];
  /** a table no reference names (kept all the same, and counted as unknown in metrics) */
  readonly unknown?: true;
}
/** an upload whose table or format BioGate does not decode: keep the raw body, reply OK [PUSH-v2 §6.1] */
export interface UnknownTableEvent {
  readonly type: 'unknownTable';
  readonly source: RecordSource;
  readonly body: Uint8Array;
}

export type DeviceEvent =
  | HandshakeEvent
  | RegistrationEvent
  | ConfigRequestEvent
  | OptionsEvent
  | HeartbeatEvent
  | PingEvent
  | TimeRequestEvent
  | AttendanceEvent
  | UsersEvent
  | FingerprintTemplatesEvent
  | FaceTemplatesEvent
  | FingerVeinTemplatesEvent
  | BioTemplatesEvent
  | UserPhotosEvent
  | BioPhotosEvent
  | AttendancePhotosEvent
  | OperationLogsEvent
  | DoorEventsEvent
  | DoorStatesEvent
  | AccessRecordsEvent
  | ErrorLogsEvent
  | CommandResultsEvent
  | QueryCountEvent
  | QueryOptionsEvent
  | RemoteUserLookupEvent
  | FileRequestEvent
  | KeyExchangeEvent
  | ServiceControlEvent
  | UnknownRecordsEvent
  | RawRecordsEvent
  | UnknownTableEvent;

export type DeviceEventType = DeviceEvent['type'];
