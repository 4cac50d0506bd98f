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
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export interface LocationsPort {
  create(input: { name: string; timezone: string }, now: Iso): Promise<Location>;
  get(id: number): Promise<Location | undefined>;
  list(): Promise<readonly Location[]>;
  count(): Promise<number>;
  update(id: number, patch: Partial<Pick<Location, 'name' | 'timezone' | 'is_active'>>, now: Iso): Promise<Location | undefined>;
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
  /** Deletes the user and their templates. Returns the user as it was. */
  delete(locationId: number, pin: number): Promise<User | undefined>;
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
}

export interface DeviceFilter {
  readonly search?: string;
  /** Online filter: last_seen >= this instant (true) or older/null (false). */
  readonly online?: { readonly value: boolean; readonly since: Iso };
}

export type DeviceSessionPatch = Partial<
  Pick<Device, 'registry_code' | 'session_id' | 'registered_at' | 'options' | 'version' | 'state' | 'last_seen' | 'last_address'>
>;

export interface DevicesPort {
  getBySerial(sn: string): Promise<Device | undefined>;
  /** A device of this location (undefined when unassigned or elsewhere). */
  get(locationId: number, sn: string): Promise<Device | undefined>;
  list(locationId: number, filter: DeviceFilter, window: Window): Promise<Page<Device>>;
  listAssigned(locationId: number): Promise<readonly Device[]>;
  count(locationId: number): Promise<number>;
  countUnassigned(): Promise<number>;
  /** Records a device seen on the wire (unassigned), or returns it when it exists. Atomic. */
  ensure(sn: string, now: Iso): Promise<Device>;
  /**
   * Assigns `sn` to the location unless it belongs to another one. Creates the record when missing.
   * Atomic: two locations racing for one serial cannot both win.
   */
  assign(
    locationId: number,
    sn: string,
    input: { name: string | null; version_override?: ProtocolVersion | null; comm_key_hash?: string | null },
    now: Iso,
  ): Promise<{ outcome: 'assigned' | 'already' | 'other-location'; device: Device }>;
  /** Unassigns when it belongs to the location; idempotent. Returns the device as it was, if it was. */
  unassign(locationId: number, sn: string, now: Iso): Promise<Device | undefined>;
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
  readonly created_by_token_id: number | null;
  readonly idempotency_key: string | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

/** What creating a command takes: the caller's fields; status, timestamps and ids are the store's. */
export type NewCommand = Pick<Command, 'location_id' | 'sn' | 'command' | 'params' | 'priority' | 'origin' | 'expires_at'> &
  Partial<Pick<Command, 'sync_key' | 'parent_id' | 'created_by_token_id' | 'idempotency_key'>>;

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
   * replaced (params, priority) instead of a new one being added. Returns how many were
   * created and how many replaced.
   */
  enqueueSync(ops: readonly NewCommand[], now: Iso): Promise<{ created: number; replaced: number }>;
  get(locationId: number, id: number): Promise<Command | undefined>;
  getById(id: number): Promise<Command | undefined>;
  findByIdempotencyKey(locationId: number, tokenId: number | null, key: string): Promise<Command | undefined>;
  /** Newest first. */
  list(locationId: number, filter: CommandFilter, window: Window): Promise<Page<Command>>;
  /** Pending top-level commands of a device: priority desc, then id asc. */
  pending(sn: string, limit: number): Promise<readonly Command[]>;
  /** Pending top-level commands of a device; with `origin`, only those (the mailbox bound counts API commands only). */
  countPending(sn: string, origin?: CommandOrigin): Promise<number>;
  /** Atomic pending → sent for each id; returns the ids this caller won (safe across nodes). */
  claim(ids: readonly number[], wire: ReadonlyMap<number, string>, now: Iso): Promise<readonly number[]>;
  /** Finishes a command that is sent (or pending, for failures before dispatch). No-op when already final. */
  finish(id: number, outcome: CommandOutcome, now: Iso): Promise<Command | undefined>;
  /** Pending → failed for every command of the device (unassignment). Returns the failed ids. */
  failPendingFor(sn: string, message: string, now: Iso): Promise<readonly number[]>;
  /** Pending commands whose expires_at is past → failed. Returns them. */
  expire(now: Iso): Promise<readonly Command[]>;
  /** Sent commands with sent_at older than the cutoff (ack timeout sweep). */
  sentBefore(cutoff: Iso, limit: number): Promise<readonly Command[]>;
  /** sent → pending again (bounded retries of sync ops); increments attempts. */
  requeue(id: number, now: Iso): Promise<Command | undefined>;
  /** Child lines of a multi-line command. */
  children(parentId: number): Promise<readonly Command[]>;
  /**
   * Records what is known so far of a sent command that is not finished yet (the first line's
   * result of a multi-line command, users a device uploads for load-users): persisted so a
   * restart in the middle loses nothing. No-op unless the command is sent.
   */
  progress(id: number, progress: { response?: string | null; result: unknown }, now: Iso): Promise<Command | undefined>;
  /**
   * [COMMANDS §2.5] sent → pending again with the fallback wire lines (LF-joined) in `wire`,
   * attempts + 1: the next dispatch sends those lines instead of rendering the preset.
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

export interface AttendancePort {
  /** Stores records not seen before (dedup key: sn, pin, local_time, status, verify); returns the new ones. */
  record(records: readonly NewAttendance[], now: Iso): Promise<readonly Attendance[]>;
  /** Newest first. */
  list(locationId: number, filter: AttendanceFilter, window: Window): Promise<Page<Attendance>>;
  /** Deletes records whose timestamp is before `before` (retention). Returns how many went. */
  prune(before: Iso, limit: number): Promise<number>;
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
  /** Resolves when the store answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
