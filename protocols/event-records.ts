// The records device events carry: attendance, users, operation and error logs, door events and
// states, access records, heartbeat info, command results and device options. Times are
// device-local wall-clock strings `YYYY-MM-DD HH:MM:SS` [PUSH-v2 §6.2, PUSH-v3 §7.2]; numbers that
// were absent or empty are `null`. Biometric records are in biometric-records.ts.

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

/** [PUSH-v3 §10.4] a `userauthorize` row a query answered: one right of a user (the table has no upload form). */
export interface UserRightRecord {
  readonly pin: string;
  readonly timezoneId: number;
  /** door 1 = 1, 2 = 2, 3 = 4, 4 = 8 [COMMANDS §3.2] */
  readonly doorMask: number;
}

/** [PUSH-v3 §11.2] a `timezone` row a query answered: its id and the 30 packed intervals (null: not sent). */
export interface TimezoneRecord {
  readonly id: number;
  readonly values: readonly (number | null)[];
}

/** A `holiday` row a query answered: `Holiday` (`YYYYMMDD`), `HolidayType`, `Loop` (1 yearly, 2 once). */
export interface HolidayRecord {
  readonly date: string;
  readonly type: number;
  readonly loop: number;
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
