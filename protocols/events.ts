// Typed device events: what a device request means, with no protocol syntax left in it.
// Produced by Codec.decode (codec.ts). Every list-shaped upload becomes one event carrying all the
// records of its kind, plus the RecordSource it came from. The record shapes are in
// event-records.ts and biometric-records.ts, re-exported here.

import type {
  AttendancePhoto,
  BioPhoto,
  BioTemplate,
  FaceTemplate,
  FingerVeinTemplate,
  FingerprintTemplate,
  UserPhoto,
} from './biometric-records.js';
import type {
  AccessRecord,
  AttendanceRecord,
  CommandResult,
  DeviceOptions,
  DoorEvent,
  DoorState,
  ErrorLogRecord,
  HeartbeatInfo,
  OperationLog,
  RecordSource,
  UserRecord,
  UserRightRecord,
  TimezoneRecord,
  HolidayRecord,
} from './event-records.js';

export type * from './biometric-records.js';
export type * from './event-records.js';

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
export interface UserRightsEvent {
  readonly type: 'userRights';
  readonly source: RecordSource;
  readonly records: readonly UserRightRecord[];
}
/** `timezone` rows a query answered, typed beside their raw records (the access audit). */
export interface TimezoneRowsEvent {
  readonly type: 'timezoneRows';
  readonly source: RecordSource;
  readonly records: readonly TimezoneRecord[];
}
/** `holiday` rows a query answered, typed beside their raw records (the access audit). */
export interface HolidayRowsEvent {
  readonly type: 'holidayRows';
  readonly source: RecordSource;
  readonly records: readonly HolidayRecord[];
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
 * per record [PUSH-v3 §7.4, §10.2; PUSH-v2 §6.1].
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
  | UserRightsEvent
  | TimezoneRowsEvent
  | HolidayRowsEvent
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
