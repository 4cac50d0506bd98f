// Inputs and outputs of the command encoders (codec.ts): presets [COMMANDS §4] and sync operations
// [COMMANDS §5]. The encoders are pure: everything they need about the device and the location is
// passed in.
import type { PresetId } from './catalog.js';

export type ProtocolVersion = '2.0.0' | '3.0.0';

/** What the encoders know about one device. */
export interface DeviceProfile {
  readonly version: ProtocolVersion;
  /**
   * The device's reported parameters (registry body, `table=options`, INFO / GET OPTIONS results), keys
   * with or without their `~` prefix, looked up case-insensitively. Used: LockCount, FPVersion,
   * MultiBioDataSupport, FaceFunOn, DateFmtFunOn, MaxUserNameLen, BioPhotoFun, PhotoFunOn, BioDataFun,
   * SubcontractingUpgradeFunOn.
   */
  readonly options: Readonly<Record<string, string>>;
}

export interface EncodeContext {
  /** IANA zone of the device's location; device-local times are computed in it [COMMANDS §3.4] */
  readonly timeZone: string;
  /** load-users with only `user_id`: the PIN the runtime resolved for that user [COMMANDS §4.14] */
  readonly userPin?: number | string;
  /** v3 enroll-biometric: the user's card, sent as `cardno=` only when present [COMMANDS §4.16] */
  readonly userCardNo?: string;
  /** firmware-upgrade: the URL to put on the wire (methods 1 and 2 point the device at BioGate's
   *  `/iclock/file`); default `params.url` [COMMANDS §4.22] */
  readonly firmwareUrl?: string;
  /** firmware-upgrade method 1 (default), 2 (raw file) or 3 (device downloads in ranges) [COMMANDS §4.22] */
  readonly firmwareMethod?: 1 | 2 | 3;
}

/** A preset command as the API stored it. `params` is validated against the catalog schema and
 *  catalog defaults are applied by the encoder. */
export interface PresetCommand {
  readonly preset: PresetId;
  readonly params?: unknown;
}

/** A user as the sync engine sends it [COMMANDS §5.1]. */
export interface SyncUser {
  readonly pin: number | string;
  readonly firstName?: string | null;
  readonly lastName?: string | null;
  readonly cardNo?: string | null;
  readonly password?: number | string | null;
  /** 0, 2, 6, 10, 14 [COMMANDS §3.7]; default 0 */
  readonly privilege?: number;
  /** API group 0–99; v2 sends 0 as `Grp=1` [COMMANDS §5.1] */
  readonly group?: number;
  /** API `start_time` / `end_time`: `YYYY-MM-DD`, or ISO datetime (with an offset: converted to the
   *  location zone; without: taken as location wall-clock time). v3 only. */
  readonly startTime?: string | null;
  readonly endTime?: string | null;
  /** v2 `Verify`, sent only when set */
  readonly verify?: number | null;
  /** v2 `ViceCard`, sent only when set */
  readonly viceCard?: string | null;
  /** v2 `TZ`; default `0000000100000000` [COMMANDS §3.8] */
  readonly timeZones?: string;
}

/** A stored template [COMMANDS §5.3–§5.4]. */
export interface SyncTemplate {
  readonly pin: number | string;
  /** biometric type index [COMMANDS §3.9]: 1 fingerprint, 2 near-infrared face, 9 visible-light face … */
  readonly type: number;
  /** finger index (device numbering) or face record number; 0 for faces */
  readonly no: number;
  readonly index?: number;
  readonly duress?: boolean;
  /** algorithm version as received with a BIODATA template; required for BIODATA / biodata forms */
  readonly majorVer?: string | number;
  readonly minorVer?: string | number;
  /** 0 ZK, 1 ISO, 2 ANSI; default 0 */
  readonly format?: number;
  /** base64 text */
  readonly data: string;
}

/** One `holiday` row: a day (`YYYYMMDD`), the holiday type 1–3 whose schedule intervals apply, yearly or not. */
export interface SyncHoliday {
  readonly date: string;
  readonly type: 1 | 2 | 3;
  readonly yearly: boolean;
}

/** One `userauthorize` row: a time zone and the doors (1-based) it opens [COMMANDS §3.2]. */
export interface SyncRight {
  readonly timezoneId: number;
  readonly doors: readonly number[];
}

/** One `timezone` row: its id and the 30 packed values, Sun…Sat then Hol1…Hol3, three intervals each [PUSH-v3 §11.2]. */
export interface SyncTimezone {
  readonly id: number;
  readonly values: readonly number[];
}

export type SyncOp =
  | {
      readonly op: 'user.upsert';
      readonly user: SyncUser;
      /** v3 `AuthorizeDoorId` doors (1-based); default all doors [COMMANDS §3.2] */
      readonly doors?: readonly number[];
      /** v3 `AuthorizeTimezoneId`; default 1 */
      readonly timezoneId?: number;
      /**
       * v3 rights, one `userauthorize` row each after the user's rows are deleted (access levels); absent:
       * the one row of `doors` and `timezoneId`; [] = the user is present and opens no door. Not on v2.
       */
      readonly rights?: readonly SyncRight[];
    }
  | { readonly op: 'user.delete'; readonly pin: number | string }
  /** v3 door settings: lock open time and normal-open time zone (0 = none) [PUSH-v3 §11.6]. Not on v2. */
  | { readonly op: 'door.set'; readonly door: number; readonly unlockSeconds: number; readonly keepOpenTimezoneId: number }
  /** v3 `timezone` rows written (the location's schedules; rights name them by id) [PUSH-v3 §11.2]. Not on v2. */
  | { readonly op: 'timezones.set'; readonly timezones: readonly SyncTimezone[] }
  /** v3 `holiday` table replaced: `DATA DELETE holiday *`, then one row per day. Not on v2. */
  | { readonly op: 'holiday.replace'; readonly days: readonly SyncHoliday[] }
  /**
   * v3 the `userauthorize`, `timezone` and `holiday` tables read out (the access audit) [PUSH-v3 §10.4], and the
   * settings of `doors` (GET OPTIONS [PUSH-v3 §10.5]) when any. Not on v2.
   */
  | { readonly op: 'access.query'; readonly doors?: readonly number[] }
  | { readonly op: 'template.upsert'; readonly template: SyncTemplate }
  | {
      readonly op: 'template.delete';
      readonly pin: number | string;
      /** omitted: every template of the user */
      readonly type?: number;
      /** finger / record number; only with `type` */
      readonly no?: number;
    }
  /**
   * A user's photo [PUSH-v3 §11.2, PUSH-v2 §9]: `biophoto` (visible-light face, type 9) on terminals that
   * enrol faces from photos, `userpic` on terminals that show one (photoTable); others lack it.
   */
  | { readonly op: 'photo.upsert'; readonly pin: number | string; readonly photo: SyncPhoto }
  /** Both photo tables' rows of the user removed (terminals with photos). */
  | { readonly op: 'photo.delete'; readonly pin: number | string };

/** A user photo as a terminal receives it: JPEG bytes, base64. */
export interface SyncPhoto {
  /** base64 text of the JPEG */
  readonly data: string;
}

export interface WireLines {
  readonly ok: true;
  /** one command per line, without the `C:${id}:` framing; the first line carries the command's id,
   *  the others child ids [COMMANDS §1] */
  readonly lines: readonly string[];
  /** text the runtime adds to the command's result (e.g. a fallback that drops parameters) */
  readonly note?: string;
  /** v2 check-attendance fallback: answer `ATTLOGStamp=0` on the next handshake [PUSH-v2 §4.7] */
  readonly requestFullAttlogUpload?: boolean;
  /** v3 load-users for one user: the device answers the whole table; keep only this PIN [COMMANDS §4.14] */
  readonly keepPin?: string;
  /** v3 check-attendance: the device answers the whole table; keep only rows inside this device-local
   *  window (`inAttendanceWindow`) [COMMANDS §4.17] */
  readonly keepWindow?: { readonly start: string; readonly end: string };
}

export type EncodeFailureCode =
  /** no wire form on this protocol version or device: fail at once, send nothing [COMMANDS §2.4] */
  | 'unsupported'
  /** the parameters or stored data cannot be encoded (bad character, door beyond LockCount …) */
  | 'invalid'
  /** sync-users has no wire form of its own: the runtime expands it into sync operations [COMMANDS §4.15] */
  | 'composite';

export interface EncodeFailure {
  readonly ok: false;
  readonly code: EncodeFailureCode;
  /** the command's `error_message`, exact text */
  readonly reason: string;
}

export type EncodeResult = WireLines | EncodeFailure;

/** A command line ready for a getrequest reply. */
export interface QueuedLine {
  readonly id: number | string;
  readonly wire: string;
  /** v3 CmdFormat=1 `Priority=` [PUSH-v3 §8.2]; default 0 */
  readonly priority?: number;
}
