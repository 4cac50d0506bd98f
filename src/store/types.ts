/**
 * Store ports: what BioGate needs from persistence, nothing about how.
 *
 * Rules every adapter follows (test/contract/ checks them):
 * - ids are positive integers, unique per collection across locations, never reused;
 * - every read or write of tenant data names its location (a cluster can shard by it);
 * - no operation needs a multi-document transaction: each is one atomic write, or
 *   an idempotent sequence that is safe to repeat after a crash;
 * - timestamps are ISO 8601 strings in UTC with milliseconds (`2026-11-21T09:30:00.000Z`),
 *   so they order as strings.
 */

export type Iso = string;

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
}

export interface Window {
  readonly offset: number;
  readonly limit: number;
}

// ---------------------------------------------------------------- locations and tokens

export interface Location {
  readonly id: number;
  readonly name: string;
  /** IANA time zone of the location's devices (default `UTC`). */
  readonly timezone: string;
  readonly is_active: boolean;
  /** Devices may be assigned only with a comm key (README "Security model"). */
  readonly require_comm_key: boolean;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export interface LocationsPort {
  create(input: { name: string; timezone: string; require_comm_key?: boolean }, now: Iso): Promise<Location>;
  get(id: number): Promise<Location | undefined>;
  list(): Promise<readonly Location[]>;
  count(): Promise<number>;
  /** The location's users and assigned devices, in one read where the store keeps them (GET /api/me). */
  counts(id: number): Promise<{ readonly users: number; readonly devices: number }>;
  update(id: number, patch: Partial<Pick<Location, 'name' | 'timezone' | 'is_active' | 'require_comm_key'>>, now: Iso): Promise<Location | undefined>;
  /**
   * The one-time bootstrap (issue #14): writes a unique marker unless one exists, atomically, and
   * answers true for the one caller that wrote it, whatever the number of nodes trying at once.
   * A store that had locations before the marker existed counts as bootstrapped.
   */
  claimBootstrap(node: string, now: Iso): Promise<boolean>;
}

export type TokenScope = 'full' | 'operator' | 'read';

export interface Token {
  readonly id: number;
  readonly location_id: number;
  /** SHA-256 of the token text, hex. The token itself is never stored. */
  readonly hash: string;
  readonly scope: TokenScope;
  readonly label: string | null;
  readonly expires_at: Iso | null;
  readonly revoked_at: Iso | null;
  readonly created_at: Iso;
}

export interface TokensPort {
  create(input: { location_id: number; hash: string; scope: TokenScope; label: string | null; expires_at: Iso | null }, now: Iso): Promise<Token>;
  findByHash(hash: string): Promise<Token | undefined>;
  get(id: number): Promise<Token | undefined>;
  list(locationId?: number): Promise<readonly Token[]>;
  /** Idempotent: revoking twice keeps the first time. */
  revoke(id: number, now: Iso): Promise<Token | undefined>;
}

// ---------------------------------------------------------------- users and templates

export interface User {
  readonly id: number;
  readonly location_id: number;
  readonly pin: number;
  readonly first_name: string | null;
  readonly last_name: string | null;
  readonly card_no: string | null;
  readonly password: number | null;
  readonly is_active: boolean;
  /** `YYYY-MM-DD` or an ISO datetime in UTC, as the client gave it [API-CONTRACT §1]. */
  readonly start_time: string | null;
  readonly end_time: string | null;
  readonly privilege: number;
  readonly group: number;
  readonly super_authorize: number;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

/** Fields a write may set; absent keys keep stored values on update. */
export type UserFields = Partial<Omit<User, 'id' | 'location_id' | 'pin' | 'created_at' | 'updated_at'>>;

export interface UserFilter {
  readonly search?: string;
  readonly privilege?: number;
  readonly is_active?: boolean;
  readonly pins?: readonly number[];
}

export interface UpsertResult {
  readonly user: User;
  readonly created: boolean;
  /** True when a stored field actually changed (false for a no-op update). */
  readonly changed: boolean;
}

/**
 * Writes (upsert, upsertMany, delete, deactivate) mark the sync outbox for every user they change
 * (see OutboxEntry); a write that changes nothing leaves an earlier entry as it was.
 */
export interface UsersPort {
  /** Create (defaults applied) or patch the user with this PIN. Atomic per user. */
  upsert(locationId: number, pin: number, fields: UserFields, now: Iso): Promise<UpsertResult>;
  /** Many upserts; each item is atomic on its own. Order of results = order of input. */
  upsertMany(locationId: number, items: readonly { pin: number; fields: UserFields }[], now: Iso): Promise<UpsertResult[]>;
  get(locationId: number, pin: number): Promise<User | undefined>;
  getMany(locationId: number, pins: readonly number[]): Promise<readonly User[]>;
  getById(locationId: number, id: number): Promise<User | undefined>;
  /** Ordered by pin ascending. */
  list(locationId: number, filter: UserFilter, window: Window): Promise<Page<User>>;
  count(locationId: number): Promise<number>;
  /** Deletes the user and their templates. Returns the user as it was. `now` stamps the outbox entry. */
  delete(locationId: number, pin: number, now?: Iso): Promise<User | undefined>;
  /** Sets is_active=false on the given pins (all users when null); returns the users that were active. */
  deactivate(locationId: number, pins: readonly number[] | null, now: Iso): Promise<readonly User[]>;
  /** Pins of every active user, ascending. */
  activePins(locationId: number): Promise<readonly number[]>;
  /** Active users with a start_time or end_time (the access-window scheduler). */
  withAccessWindow(locationId: number): Promise<readonly User[]>;
}

export type BioType = 'fingerprint' | 'face' | 'palm' | 'other';

export interface Template {
  readonly id: number;
  readonly location_id: number;
  readonly user_pin: number;
  readonly bio_type: BioType;
  /** Biometric type index on the wire [COMMANDS §3.9]: 1 fingerprint, 2/9 face, 6/8 palm, … */
  readonly type_index: number;
  /** Finger number (0–9) or 0 for face/palm. */
  readonly finger_id: number;
  /** Index of the template within (type, finger) for multi-template algorithms. */
  readonly template_index: number;
  readonly valid: number;
  readonly duress: boolean;
  /** Algorithm version; for legacy tables the device's FPVersion/FaceVersion. */
  readonly major_ver: number;
  readonly minor_ver: number;
  readonly format: number;
  /** Which table it came in: FINGERTMP/templatev10 ('legacy') or BIODATA ('biodata'). */
  readonly source_format: 'legacy' | 'biodata';
  /** Base64 template text as the device sent it. Never logged, never returned by the API. */
  readonly data: string;
  readonly size: number;
  readonly source_sn: string | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export type TemplateInput = Omit<Template, 'id' | 'location_id' | 'created_at' | 'updated_at'>;

export interface TemplatesPort {
  /** Insert or replace the template with the same (pin, type_index, finger_id, template_index). */
  upsert(locationId: number, input: TemplateInput, now: Iso): Promise<{ template: Template; created: boolean; changed: boolean }>;
  listForUser(locationId: number, pin: number): Promise<readonly Template[]>;
  listForUsers(locationId: number, pins: readonly number[]): Promise<readonly Template[]>;
  /** Pins (of the given ones) that have at least one template. */
  pinsWithTemplates(locationId: number, pins: readonly number[]): Promise<ReadonlySet<number>>;
  deleteForUser(locationId: number, pin: number): Promise<number>;
}

// ---------------------------------------------------------------- devices

export type ProtocolVersion = '2.0.0' | '3.0.0';

export interface Device {
  readonly id: number;
  readonly serial_number: string;
  readonly name: string;
  readonly location_id: number | null;
  readonly registry_code: string | null;
  readonly session_id: string | null;
  readonly registered_at: Iso | null;
  readonly options: Readonly<Record<string, string>> | null;
  readonly version: ProtocolVersion | null;
  /** Operator-pinned dialect (POST /api/devices `version`); wins over detection. */
  readonly version_override: ProtocolVersion | null;
  /** SHA-256 of the comm key, hex; the key is never stored or returned. */
  readonly comm_key_hash: string | null;
  /** Canonical CIDRs the device's requests must come from; null = any address (README "Security model"). */
  readonly allowed_networks: readonly string[] | null;
  /**
   * [PUSH-v3 §5] When the terminal first presented the token of its registration (registry code + session):
   * from then on every request must carry it. Null = not bound (never registered, or reset).
   */
  readonly token_bound_at: Iso | null;
  /** What the runtime learned about this device; null until it learns something. */
  readonly state: DeviceState | null;
  readonly last_seen: Iso | null;
  readonly last_address: string | null;
  readonly assigned_at: Iso | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

/** Runtime knowledge about one device, persisted so eviction and restarts keep it. */
export interface DeviceState {
  /** [COMMANDS §2.6] capability key → the Return code that taught "unsupported". */
  readonly unsupported?: Readonly<Record<string, number>>;
  /** Firmware version the learning applies to; learning resets when it changes. */
  readonly firmware?: string;
  /** [PUSH-v2 §4.7] answer `ATTLOGStamp=0` on the next handshake (full attendance re-upload). */
  readonly attlogReupload?: boolean;
  /**
   * When the device, moved from another location, was assigned to its current one: what it reports
   * from before (attendance stamped earlier) belongs to the old location and is not recorded.
   */
  readonly movedAt?: Iso;
}

export interface DeviceFilter {
  readonly search?: string;
  /** Online filter: last_seen >= this instant (true) or older/null (false). */
  readonly online?: { readonly value: boolean; readonly since: Iso };
}

export type DeviceSessionPatch = Partial<
  Pick<Device, 'registry_code' | 'session_id' | 'registered_at' | 'options' | 'version' | 'state' | 'last_seen' | 'last_address' | 'token_bound_at'>
>;

export interface DevicesPort {
  getBySerial(sn: string): Promise<Device | undefined>;
  /** A device of this location (undefined when unassigned or elsewhere). */
  get(locationId: number, sn: string): Promise<Device | undefined>;
  list(locationId: number, filter: DeviceFilter, window: Window): Promise<Page<Device>>;
  listAssigned(locationId: number): Promise<readonly Device[]>;
  count(locationId: number): Promise<number>;
  countUnassigned(): Promise<number>;
  /** Devices that contacted the gateway without being assigned, by serial (`biogate device unassigned`). */
  listUnassigned(window: Window): Promise<Page<Device>>;
  /** Records a device seen on the wire (unassigned), or returns it when it exists. Atomic. */
  ensure(sn: string, now: Iso): Promise<Device>;
  /**
   * Assigns `sn` to the location unless it belongs to another one. Creates the record when missing.
   * Atomic: two locations racing for one serial cannot both win.
   */
  assign(
    locationId: number,
    sn: string,
    input: { name: string | null; version_override?: ProtocolVersion | null; comm_key_hash?: string | null; allowed_networks?: readonly string[] | null },
    now: Iso,
  ): Promise<{ outcome: 'assigned' | 'already' | 'other-location'; device: Device }>;
  /** Unassigns when it belongs to the location; idempotent. Returns the device as it was, if it was. */
  unassign(locationId: number, sn: string, now: Iso): Promise<Device | undefined>;
  /**
   * Operator-triggered re-registration [PUSH-v3 §3.3]: forgets the registry code, session and token binding
   * of the location's device, so the terminal's next registry request registers it again. Undefined when
   * the device is not the location's.
   */
  resetRegistration(locationId: number, sn: string, now: Iso): Promise<Device | undefined>;
  /** Session/presence fields written by the device runtime. */
  updateSession(sn: string, patch: DeviceSessionPatch, now: Iso): Promise<Device | undefined>;
  /** Write-behind of last_seen for many devices at once. */
  touchMany(entries: readonly { sn: string; last_seen: Iso; last_address: string | null }[]): Promise<void>;
}

// ---------------------------------------------------------------- commands

export type CommandStatus = 'pending' | 'sent' | 'success' | 'failed';
export type CommandOrigin = 'api' | 'sync' | 'system';

export interface Command {
  readonly id: number;
  readonly location_id: number | null;
  readonly sn: string;
  /** Preset identifier (`reboot`, `sync-users`, `custom`, …) as the API shows it. */
  readonly command: string;
  readonly params: Readonly<Record<string, unknown>> | null;
  readonly priority: number;
  readonly origin: CommandOrigin;
  readonly status: CommandStatus;
  readonly response: string | null;
  readonly error_message: string | null;
  readonly result: unknown;
  readonly sent_at: Iso | null;
  readonly acknowledged_at: Iso | null;
  readonly expires_at: Iso | null;
  /** Coalescing key of a sync op (`user:1001`); pending ops with the same (sn, key) are merged. */
  readonly sync_key: string | null;
  readonly attempts: number;
  /** For child lines of a multi-line command: the record they belong to. */
  readonly parent_id: number | null;
  /** The wire lines as sent (for diagnostics). */
  readonly wire: string | null;
  /**
   * A composite preset (`sync-users`) and the commands it stands for share a group: the composite's
   * own id. The composite never enters the mailbox; its status follows its group (devices/groups.ts).
   */
  readonly group_id: number | null;
  readonly created_by_token_id: number | null;
  readonly idempotency_key: string | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

/** What creating a command takes: the caller's fields; status, timestamps and ids are the store's. */
export type NewCommand = Pick<Command, 'location_id' | 'sn' | 'command' | 'params' | 'priority' | 'origin' | 'expires_at'> &
  Partial<Pick<Command, 'sync_key' | 'parent_id' | 'created_by_token_id' | 'idempotency_key' | 'group_id'>> & {
    /** A composite record: its group is its own id, and it is never delivered itself. */
    readonly composite?: boolean;
  };

/** error_message of a sent sync op that a newer pending op for the same device and user replaced (requeue, unclaim). */
export const SYNC_SUPERSEDED = 'superseded by a newer pending sync op for the same user';

/** error_message of a child line whose command was sent again: a late answer to it changes nothing. */
export const ATTEMPT_SUPERSEDED = 'superseded by a newer attempt';

/** How the members of a command group stand (the composite record itself not counted). */
export interface GroupCounts {
  readonly pending: number;
  readonly sent: number;
  readonly success: number;
  readonly failed: number;
  /** Of `failed`: sync ops replaced by a newer op for the same user (not a delivery failure). */
  readonly superseded: number;
}

export interface CommandFilter {
  readonly sn?: string;
  readonly status?: CommandStatus;
  readonly command?: string;
  readonly since?: Iso;
}

export interface CommandOutcome {
  readonly status: 'success' | 'failed';
  readonly response?: string | null;
  readonly error_message?: string | null;
  readonly result?: unknown;
}

export interface CommandsPort {
  create(input: NewCommand, now: Iso): Promise<Command>;
  /**
   * Sync ops in bulk, coalesced: where a pending op with the same (sn, sync_key) exists it is
   * replaced (params, priority; it keeps its group, or joins the op's group when it had none) instead
   * of a new one being added. Returns how many were created and how many replaced, and the created
   * records (each is a new `pending` command: one command.updated event each).
   */
  enqueueSync(ops: readonly NewCommand[], now: Iso): Promise<{ created: number; replaced: number; inserted: readonly Command[] }>;
  get(locationId: number, id: number): Promise<Command | undefined>;
  getById(id: number): Promise<Command | undefined>;
  findByIdempotencyKey(locationId: number, tokenId: number | null, key: string): Promise<Command | undefined>;
  /** Newest first. */
  list(locationId: number, filter: CommandFilter, window: Window): Promise<Page<Command>>;
  /** Pending top-level commands of a device: priority desc, then id asc (composites never). */
  pending(sn: string, limit: number): Promise<readonly Command[]>;
  /**
   * Sent top-level commands of one preset on a device of the location, in the order they were sent (oldest first):
   * the check-attendance a v2 ATTLOG upload answers, the reboots a handshake completes, the firmware
   * a terminal may fetch. Served by an index on the device, never a scan of the location's commands.
   */
  sentOf(locationId: number, sn: string, command: string, limit: number): Promise<readonly Command[]>;
  /** Pending top-level commands of a device; with `origin`, only those (the mailbox bound counts API commands only). */
  countPending(sn: string, origin?: CommandOrigin): Promise<number>;
  /** Atomic pending → sent for each id; returns the ids this caller won (safe across nodes). */
  claim(ids: readonly number[], wire: ReadonlyMap<number, string>, now: Iso): Promise<readonly number[]>;
  /** Finishes a command that is sent (or pending, for failures before dispatch). No-op when already final. */
  finish(id: number, outcome: CommandOutcome, now: Iso): Promise<Command | undefined>;
  /**
   * pending → failed with `message`, atomically: undefined when the command is no longer pending (a
   * poll claimed it meanwhile). Cancellation uses it so a sent command is never marked cancelled.
   */
  failIfPending(id: number, message: string, now: Iso): Promise<Command | undefined>;
  /**
   * A claimed batch whose reply never reached the device: sent → pending again for each id still
   * sent since `sentAt` (attempts unchanged, progress cleared; a composite keeps its counts); child
   * lines of that attempt are superseded. Returns the commands put back.
   */
  unclaim(ids: readonly number[], sentAt: Iso, now: Iso): Promise<readonly Command[]>;
  /** Whether any member of the group is still pending or sent. */
  groupOutstanding(groupId: number): Promise<boolean>;
  groupCounts(groupId: number): Promise<GroupCounts>;
  /** Pending members of a group → failed with `message` (a cancelled composite). Returns them. */
  failGroupPending(groupId: number, message: string, now: Iso): Promise<readonly Command[]>;
  /** Pending → failed for every command of the device (unassignment). Returns the failed commands. */
  failPendingFor(sn: string, message: string, now: Iso): Promise<readonly Command[]>;
  /** Pending commands whose expires_at is past → failed. Returns them. */
  expire(now: Iso): Promise<readonly Command[]>;
  /** Sent commands with sent_at older than the cutoff (ack timeout sweep). */
  sentBefore(cutoff: Iso, limit: number): Promise<readonly Command[]>;
  /**
   * sent → pending again (bounded retries of sync ops); increments attempts, clears progress, and
   * supersedes the child lines of the attempt that went unanswered.
   */
  requeue(id: number, now: Iso): Promise<Command | undefined>;
  /** Child lines of a multi-line command (of every attempt; see ATTEMPT_SUPERSEDED). */
  children(parentId: number): Promise<readonly Command[]>;
  /**
   * Records what is known so far of a sent command that is not finished yet (the first line's
   * result of a multi-line command, users a device uploads for load-users): persisted so a
   * restart in the middle loses nothing. No-op unless the command is sent (or is a composite that
   * is not final yet: its counts while its group is delivered).
   */
  progress(id: number, progress: { response?: string | null; result: unknown }, now: Iso): Promise<Command | undefined>;
  /**
   * [COMMANDS §2.5] sent → pending again with the fallback wire lines (LF-joined) in `wire`,
   * attempts + 1, sent_at kept (it was delivered; the API still shows it sent, see devices/lifecycle.ts): the next dispatch sends those lines instead of rendering the preset. Child lines
   * of the refused attempt are superseded.
   */
  retry(id: number, wire: string, now: Iso): Promise<Command | undefined>;
  /**
   * Pins of users this device was sent by successful sync ops of locations other than
   * `locationId` whose last op for that pin was not a delete (assignment cleanup).
   */
  syncedPinsElsewhere(sn: string, locationId: number): Promise<readonly number[]>;
  /** Deletes finished commands (and their child lines) last updated before `before`. Returns how many top-level records went. */
  prune(before: Iso, limit: number): Promise<number>;
  /** Total per status (metrics). */
  countByStatus(): Promise<Readonly<Record<CommandStatus, number>>>;
}

// ---------------------------------------------------------------- attendance

export interface Attendance {
  readonly id: number;
  readonly location_id: number;
  readonly sn: string;
  readonly pin: string;
  readonly user_id: number | null;
  /** UTC instant, computed from local_time and the location's time zone. */
  readonly timestamp: Iso;
  /** `YYYY-MM-DD HH:MM:SS` as the device reported it. */
  readonly local_time: string;
  readonly status: number;
  readonly verify: number;
  readonly work_code: string | null;
  readonly created_at: Iso;
}

export type NewAttendance = Omit<Attendance, 'id' | 'created_at'>;

export interface AttendanceFilter {
  readonly from?: Iso;
  readonly to?: Iso;
  readonly pin?: string;
  readonly sn?: string;
}

/** Position in the attendance feed: the last record a consumer has seen. */
export interface AttendanceCursor {
  readonly id: number;
  readonly created_at: Iso;
}

export interface AttendancePort {
  /** Stores records not seen before (dedup key: sn, pin, local_time, status, verify); returns the new ones. */
  record(records: readonly NewAttendance[], now: Iso): Promise<readonly Attendance[]>;
  /** Newest first. */
  list(locationId: number, filter: AttendanceFilter, window: Window): Promise<Page<Attendance>>;
  /**
   * The cursor feed (GET /api/attendance?after=): records that arrived after `after` (null: from the
   * first), oldest arrival first, at most `limit`. Arrival order is the adapter's: SQLite's ids (one
   * writer, so commit order); on MongoDB ids come in per-node blocks, so (created_at, id), and only
   * records older than `now` minus a settle window, so a write still in flight cannot be passed over.
   */
  listAfter(locationId: number, after: AttendanceCursor | null, filter: AttendanceFilter, limit: number, now: Iso): Promise<readonly Attendance[]>;
  /** Deletes records whose timestamp is before `before` (retention). Returns how many went. */
  prune(before: Iso, limit: number): Promise<number>;
}

// ---------------------------------------------------------------- door and alarm events (issue #15)

/**
 * What kind of door event: the [PUSH-v3 §7.7] event-code ranges of an `rtlog` line (`normal` 0–19 and
 * 200–253, `error` 20–99, `alarm` 100–199, `extended` 4000–6999, `other` any other code), or `state`
 * for an `rtstate` report of sensors, relays and alarms [PUSH-v3 §7.3].
 */
export type DoorEventType = 'normal' | 'error' | 'alarm' | 'extended' | 'other' | 'state';

/** A door or alarm event a terminal reported, stored per location (retention like attendance). */
export interface StoredDoorEvent {
  readonly id: number;
  readonly location_id: number;
  readonly sn: string;
  readonly type: DoorEventType;
  /** rtlog `event` code; null for a state report. */
  readonly event: number | null;
  /** rtlog `eventaddr` / rtstate `door`: the door number, when given. */
  readonly door: number | null;
  /** The user verified, null when none (`pin=0`). */
  readonly pin: string | null;
  readonly card_no: string | null;
  /** rtlog `verifytype`: a mode code or a NewVFStyles bit string [PUSH-v3 §7.8]. */
  readonly verify_type: string | null;
  /** rtlog `inoutstatus`: 0 in, 1 out. */
  readonly in_out: number | null;
  /** The terminal's own record number (rtlog `index`). */
  readonly device_index: number | null;
  /** `YYYY-MM-DD HH:MM:SS` as the terminal reported it. */
  readonly local_time: string;
  /** UTC instant, from local_time and the location's time zone. */
  readonly timestamp: Iso;
  /** rtstate bit fields as sent (hex): 2 bits of door sensor, 1 bit of relay, 1 byte of alarms per door. */
  readonly state: { readonly sensor: string; readonly relay: string; readonly alarm: string } | null;
  /** Keys the protocol reference does not name (sitecode, linkid, maskflag, temperature, …). */
  readonly extra: Readonly<Record<string, string>> | null;
  readonly created_at: Iso;
}

export type NewDoorEvent = Omit<StoredDoorEvent, 'id' | 'created_at'> & {
  /** What makes a re-sent record a duplicate within (location, sn) [PUSH-v3 §7.2]. */
  readonly dedup_key: string;
};

export interface DoorEventFilter {
  readonly from?: Iso;
  readonly to?: Iso;
  readonly sn?: string;
  readonly type?: DoorEventType;
}

export interface DoorEventsPort {
  /** Stores events not seen before (same location, sn and dedup_key); returns the new ones, in input order. */
  append(events: readonly NewDoorEvent[], now: Iso): Promise<readonly StoredDoorEvent[]>;
  /** Newest first (timestamp, then id). */
  list(locationId: number, filter: DoorEventFilter, window: Window): Promise<Page<StoredDoorEvent>>;
  /** Deletes events whose timestamp is before `before` (retention). Returns how many went. */
  prune(before: Iso, limit: number): Promise<number>;
}

// ---------------------------------------------------------------- device records kept raw

/**
 * A record of a table BioGate keeps without parsing (v3 `userauthorize`, `timezone`, `holiday`,
 * `identitycard`, `workcode`…, v2 `IDCARD`), stored as the device sent it, one row per record (issue #18).
 */
export interface DeviceRecord {
  readonly id: number;
  readonly location_id: number;
  readonly sn: string;
  /** the table name as the device sent it */
  readonly table: string;
  /** `upload` (pushed by the device) or `query` (answer to a command) */
  readonly source: 'upload' | 'query';
  /** the command answered (querydata `cmdid`), null for uploads */
  readonly cmd_id: string | null;
  readonly record: string;
  readonly received_at: Iso;
}

export interface DeviceRecordsBatch {
  readonly location_id: number;
  readonly sn: string;
  readonly table: string;
  readonly source: 'upload' | 'query';
  readonly cmd_id: string | null;
  readonly records: readonly string[];
}

export interface DeviceRecordsFilter {
  readonly sn: string;
  /** exact table name, compared case-insensitively */
  readonly table?: string;
}

export interface DeviceRecordsPort {
  /** Appends the records in order (no dedup: a re-sent batch is stored again); returns how many. */
  append(batch: DeviceRecordsBatch, now: Iso): Promise<number>;
  /** Newest first (received_at, then id). */
  list(locationId: number, filter: DeviceRecordsFilter, window: Window): Promise<Page<DeviceRecord>>;
  /** Deletes records received before `before` (retention). Returns how many went. */
  prune(before: Iso, limit: number): Promise<number>;
}

// ---------------------------------------------------------------- sync outbox and job state

/**
 * A user whose device sync is owed [DESIGN "Sync"]: every user write that changes a user (create,
 * update, deactivate, delete) leaves one for (location, pin), committed no later than the change
 * itself (same transaction on SQLite; written before the change on MongoDB). The sync outbox
 * processor (src/sync/outbox.ts) queues the ops the user's current state implies and removes it.
 */
export interface OutboxEntry {
  readonly location_id: number;
  readonly pin: number;
  /** Changes with every write that marks the user: removal only takes the revision it processed. */
  readonly rev: string;
  readonly since: Iso;
}

export interface SyncOutboxPort {
  /** The entries of these pins. */
  get(locationId: number, pins: readonly number[]): Promise<readonly OutboxEntry[]>;
  /** Entries marked at or before `before`, oldest first (the recovery sweep). */
  due(before: Iso, limit: number): Promise<readonly OutboxEntry[]>;
  /**
   * Removes each entry that still holds the given revision; returns the ones it did not remove
   * (marked again meanwhile, or already gone): their user changed while they were processed.
   */
  done(entries: readonly OutboxEntry[]): Promise<readonly OutboxEntry[]>;
}

/** A periodic job's high-water mark (e.g. the instant the access-window scheduler has swept to). */
export interface JobState {
  readonly name: string;
  readonly mark: string;
  readonly updated_at: Iso;
}

export interface JobsPort {
  get(name: string): Promise<JobState | undefined>;
  /**
   * Compare-and-set: moves the mark from `from` (null: the job has no state yet) to `to`. True when
   * this caller moved it; false when the mark was not `from` (another node advanced it first).
   */
  advance(name: string, from: string | null, to: string, now: Iso): Promise<boolean>;
}

// ---------------------------------------------------------------- cluster (issue #14)

/** One event of the cluster feed as stored (src/events/types.ts FeedEvent). */
export interface StoredEvent {
  readonly id: string;
  /** Per location: 1, 2, 3, … assigned atomically by appendEvents. */
  readonly seq: number;
  readonly location_id: number;
  readonly type: string;
  readonly at: Iso;
  readonly node: string;
  readonly data: unknown;
}

/** The one location of an event batch (ClusterPort.appendEvents); a mixed batch is a programming error. */
export function oneLocation(events: readonly { readonly location_id: number }[]): number {
  const id = events[0]?.location_id;
  if (id === undefined || events.some((e) => e.location_id !== id)) throw new Error('appendEvents: one location per batch');
  return id;
}

/** Who serves a device (the `owner_node` / `lease_until` of its record) and its last announced presence. */
export interface DeviceLease {
  readonly owner_node: string | null;
  readonly lease_until: Iso | null;
  /** The last presence event the cluster emitted for it (null: none yet). */
  readonly presence: 'online' | 'offline' | null;
}

export interface EventWatch {
  close(): Promise<void>;
  /**
   * Hands over now, in this turn, what other processes appended since the last look (SQLite: a read
   * of `PRAGMA data_version`, and the events only when it moved). Absent where events are pushed
   * (a MongoDB change stream delivers them as they come).
   */
  catchUp?(): void;
}

/** What several nodes on one store share: the event feed, job leases, device ownership and presence. */
export interface ClusterPort {
  /**
   * Stores events of ONE location under its next sequence numbers, consecutive and in the given order
   * (taken atomically: two nodes never get the same). One write for the lot: the feed appends what
   * accumulated while the previous append ran (group commit, issue #20). Returns them with their seqs.
   */
  appendEvents(events: readonly Omit<StoredEvent, 'seq'>[]): Promise<readonly StoredEvent[]>;
  /** Events of a location with seq > after, in seq order. */
  eventsAfter(locationId: number, after: number, limit: number): Promise<readonly StoredEvent[]>;
  /** The last sequence number handed out per location. */
  latestSeqs(): Promise<ReadonlyMap<number, number>>;
  /** Deletes events older than `before`, except the newest `keep` of each location. Returns how many went. */
  pruneEvents(before: Iso, keep: number): Promise<number>;
  /**
   * Every event any node or process appends from now on: a MongoDB change stream on the events
   * collection; on SQLite, a look every 100 ms at whether another process (the CLI) committed.
   * `onOtherWrite`: another process wrote something, announced or not (SQLite only; what this node
   * keeps from the store may be stale). Undefined where the store cannot offer it: MongoDB without a
   * replica set (one node: its own events are delivered in process).
   */
  watchEvents(onEvent: (event: StoredEvent) => void, onError: (err: unknown) => void, onOtherWrite?: () => void): Promise<EventWatch | undefined>;
  /** Takes or renews a named lease for `node` until `until`, if it is free, expired, or already ours. */
  acquireLease(name: string, node: string, now: Iso, until: Iso): Promise<boolean>;
  releaseLease(name: string, node: string): Promise<void>;
  /**
   * The node serving a device's request owns it: sets owner_node/lease_until unconditionally (the
   * terminal is where its latest request is) and returns what was there before. Undefined: no such device.
   */
  claimDevice(sn: string, node: string, until: Iso): Promise<DeviceLease | undefined>;
  deviceLease(sn: string): Promise<DeviceLease | undefined>;
  /** Compare-and-set of the announced presence: true when this call changed it (the caller emits the event). */
  setPresence(sn: string, to: 'online' | 'offline'): Promise<boolean>;
  /** Devices announced online whose last_seen is before `before` and whose owner's lease ended before `now`. */
  staleOnline(before: Iso, now: Iso, limit: number): Promise<readonly { sn: string; location_id: number | null }[]>;
}

// ---------------------------------------------------------------- webhooks (issue #16)

/** An outbound webhook subscription of a location (src/webhooks/). */
export interface WebhookSubscription {
  readonly id: number;
  readonly location_id: number;
  readonly url: string;
  /** Feed event types it wants (src/events/types.ts FEED_EVENT_TYPES). */
  readonly events: readonly string[];
  readonly description: string | null;
  /** `whsec_<base64>`; stored in clear because it signs (never logged, shown once). */
  readonly secret: string;
  /** The secret before the last rotation, still signing (second signature) until previous_valid_until. */
  readonly previous_secret: string | null;
  readonly previous_valid_until: Iso | null;
  /** Most attendance records per `attendance.recorded` delivery (1: one POST per punch). */
  readonly attendance_batch: number;
  readonly enabled: boolean;
  readonly disabled_reason: string | null;
  /** The last feed seq of its location already turned into deliveries. */
  readonly cursor: number;
  /** Start of the current run of failed attempts (null: the last attempt succeeded). */
  readonly failing_since: Iso | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export type WebhookPatch = Partial<
  Pick<WebhookSubscription, 'url' | 'events' | 'description' | 'secret' | 'previous_secret' | 'previous_valid_until' | 'attendance_batch' | 'enabled' | 'disabled_reason' | 'failing_since'>
>;

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  readonly id: number;
  readonly subscription_id: number;
  readonly location_id: number;
  /** The `webhook-id` header: the feed event id (with a `.n` suffix per attendance chunk); unique per subscription. */
  readonly event_id: string;
  /** Feed sequence number (0 for a test ping): the delivery order of attendance. */
  readonly event_seq: number;
  readonly type: string;
  /** The exact JSON body sent on every attempt. */
  readonly payload: string;
  readonly status: WebhookDeliveryStatus;
  readonly attempts: number;
  /** When it is due (pending); null once delivered or failed. */
  readonly next_attempt_at: Iso | null;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly duration_ms: number | null;
  readonly created_at: Iso;
  readonly delivered_at: Iso | null;
}

export type NewWebhookDelivery = Pick<WebhookDelivery, 'subscription_id' | 'location_id' | 'event_id' | 'event_seq' | 'type' | 'payload' | 'created_at'>;

export type WebhookAttempt = Pick<WebhookDelivery, 'status' | 'attempts' | 'next_attempt_at' | 'last_status_code' | 'last_error' | 'duration_ms' | 'delivered_at'>;

export interface WebhooksPort {
  create(
    input: Pick<WebhookSubscription, 'location_id' | 'url' | 'events' | 'description' | 'secret' | 'attendance_batch' | 'cursor'>,
    now: Iso,
  ): Promise<WebhookSubscription>;
  get(locationId: number, id: number): Promise<WebhookSubscription | undefined>;
  /** A location's subscriptions by id. */
  list(locationId: number): Promise<readonly WebhookSubscription[]>;
  count(locationId: number): Promise<number>;
  /** Enabled subscriptions of every location (the delivery job). */
  listEnabled(): Promise<readonly WebhookSubscription[]>;
  update(locationId: number, id: number, patch: WebhookPatch, now: Iso): Promise<WebhookSubscription | undefined>;
  /** Removes the subscription and its deliveries; false when there was none. */
  delete(locationId: number, id: number): Promise<boolean>;
  /** Compare-and-set of the cursor: true when this caller moved it from `from` to `to`. */
  advanceCursor(locationId: number, id: number, from: number, to: number): Promise<boolean>;
  /** Stores deliveries (status pending, due at created_at); an existing (subscription_id, event_id) is left alone. Returns how many were new. */
  addDeliveries(deliveries: readonly NewWebhookDelivery[]): Promise<number>;
  /** Pending deliveries of a subscription due at `now`, in (event_seq, id) order. */
  due(locationId: number, subscriptionId: number, now: Iso, limit: number): Promise<readonly WebhookDelivery[]>;
  /** The earliest pending delivery of a type, due or not, in (event_seq, id) order (attendance ordering). */
  firstPending(locationId: number, subscriptionId: number, type: string): Promise<WebhookDelivery | undefined>;
  /** Writes the outcome of one attempt (only while the delivery is still pending). */
  recordAttempt(locationId: number, id: number, attempt: WebhookAttempt): Promise<void>;
  /** A subscription's deliveries, newest first. */
  deliveries(locationId: number, subscriptionId: number, window: Window): Promise<Page<WebhookDelivery>>;
  /** Pending deliveries across the store and when the oldest was created (metrics). */
  pendingStats(): Promise<{ count: number; oldest: Iso | null }>;
  /** Deletes up to `limit` delivered or failed deliveries created before `before`. */
  pruneDeliveries(before: Iso, limit: number): Promise<number>;
}

// ---------------------------------------------------------------- the store

export interface Store {
  readonly kind: 'sqlite' | 'mongodb';
  readonly locations: LocationsPort;
  readonly tokens: TokensPort;
  readonly users: UsersPort;
  readonly templates: TemplatesPort;
  readonly devices: DevicesPort;
  readonly commands: CommandsPort;
  readonly attendance: AttendancePort;
  readonly deviceRecords: DeviceRecordsPort;
  readonly doorEvents: DoorEventsPort;
  readonly syncOutbox: SyncOutboxPort;
  readonly jobs: JobsPort;
  readonly cluster: ClusterPort;
  readonly webhooks: WebhooksPort;
  /**
   * Runs `fn`, letting its store calls share one commit where that is cheaper (issue #20): a reply's
   * 50 command results are 300 small writes. SQLite: one transaction around `fn` (BEGIN IMMEDIATE …
   * COMMIT; nested `transaction()`s become savepoints), committed when `fn` settles, even when it
   * throws: no atomicity is promised, only fewer commits. `fn` must await nothing but the store;
   * should it wait for anything else, what it wrote so far is committed at the end of that turn of
   * the event loop and the rest commits call by call. MongoDB: runs `fn` (each write is its own).
   * Resolves after the commit, so a reply sent then is durable.
   */
  unitOfWork<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Whether the unit of work running now still has the store to itself, so that nothing written
   * since it began came from anyone else. SQLite: while the unit's transaction is open (BEGIN
   * IMMEDIATE holds the write lock against other processes, and this process ran nothing else in
   * between, or the unit would have committed). MongoDB: never. A reader that re-checks what it read
   * against concurrent writers may skip that re-check when this is true.
   */
  isolated(): boolean;
  /** Resolves when the store answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
