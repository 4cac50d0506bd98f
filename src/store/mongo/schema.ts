/**
 * Collections, stored document shapes and indexes of the MongoDB adapter.
 *
 * Documents keep the port's field names; `_id` is the integer id from `counters`. Sharding (DESIGN.md "Scale-out"):
 * `locations`, `location_counts`, `tokens`, `devices` and `counters` stay unsharded (looked up by id, token hash or serial number); `users`,
 * `templates`, `commands`, `attendance`, `device_records`, `device_exchanges` and `door_events` shard on `location_id` and
 * every unique index of theirs starts with it.
 *
 * No partial or sparse unique indexes, no collation: some MongoDB-compatible servers accept the options and ignore
 * them (mongo-java-server treats a partial unique index as a full one), and a sharded unique index must be a plain
 * prefix of the shard key anyway. Where the SQLite schema has a partial unique index, the document carries a
 * synthetic "slot" field that is unique for every document that must not collide (see CommandDoc).
 */
import type { Collection, Db, IndexDescription } from 'mongodb';
import { checkSchemaVersion, type MetaDoc } from './schema-version.js';
import type {
  AccessLevel,
  DoorSetting,
  Holiday,
  Schedule,
  Area,
  Attendance,
  Command,
  Device,
  DeviceExchange,
  Location,
  OrgName,
  StoredDoorEvent,
  Template,
  TerminalSyncState,
  Token,
  User,
  UserPhoto,
} from '../ports/index.js';

/** The port type as stored: `_id` instead of `id`, writable (filters and updates are built up). */
type Stored<T extends { id: number }> = { -readonly [K in Exclude<keyof T, 'id'>]: T[K] } & { _id: number };

/**
 * Fields absent on documents written before they existed: `require_comm_key` (false), the time-card settings
 * (TIME_CARD_DEFAULTS), the punch-photo settings (PHOTO_DEFAULTS).
 */
export type LocationDoc = Omit<
  Stored<Location>,
  'require_comm_key' | 'attendance_debounce_s' | 'day_start_hour' | 'attendance_photos' | 'attendance_photo_retention_days' | 'scenario'
> & {
  scenario?: Location['scenario'];
  require_comm_key?: boolean;
  attendance_debounce_s?: number;
  day_start_hour?: number;
  attendance_photos?: boolean;
  attendance_photo_retention_days?: number;
};
export type TokenDoc = Stored<Token>;
/** `areas`, `access_levels`, `photo`, `department` and `position` are absent on documents written before they existed ([], [], null…). */
export type UserDoc = Omit<Stored<User>, 'areas' | 'access_levels' | 'photo' | 'department' | 'position'> & {
  areas?: number[];
  access_levels?: number[];
  photo?: UserPhoto | null;
  department?: string | null;
  position?: string | null;
};
export type AreaDoc = Stored<Area>;
/** A department or position name; (location_id, kind, name) is unique. */
export type OrgNameDoc = Stored<OrgName>;
/** `_id` is `<location_id>:<id>`: schedule numbers are the location's own (the terminals' TimezoneId). */
export type ScheduleDoc = { -readonly [K in keyof Schedule]: Schedule[K] } & { _id: string };
export type AccessLevelDoc = Stored<AccessLevel>;
export type HolidayDoc = Stored<Holiday>;
export type TemplateDoc = Stored<Template>;
/** `options` is JSON text; `assigned_at` is absent (not null) while unassigned, see devices.ts assign. */
/** `state` is JSON text too, and absent on documents written before it existed. */
/** `allowed_networks`, `token_bound_at`, the registration fields and `area_id` are absent on documents written before they existed. */
export type DeviceDoc = Omit<
  Stored<Device>,
  | 'options'
  | 'assigned_at'
  | 'state'
  | 'allowed_networks'
  | 'token_bound_at'
  | 'token_bound_address'
  | 'registration_accepted_at'
  | 'area_id'
  | 'doors'
> & {
  area_id?: number | null;
  door_settings?: Record<string, DoorSetting> | null;
  options: string | null;
  assigned_at?: string;
  state?: string | null;
  allowed_networks?: string[] | null;
  token_bound_at?: string | null;
  token_bound_address?: string | null;
  registration_accepted_at?: string | null;
  /** Set once by claimFirstContact (absent on devices recorded before it existed). */
  first_contact_at?: string | null;
  /** The outbox marker of the device.updated an operator's change still owes, and the location whose feed owes it (../ports/cluster.ts OutboxTable). */
  feed_event?: string;
  feed_location?: number;
};
/** `feed_event`: the outbox marker of the feed event the punch still owes (absent once stored; ../ports/cluster.ts OutboxTable). */
/** A terminal's punch stores none of the manual and void fields (absent = device, not voided); a manual one stores its own. */
export type AttendanceDoc = Omit<Stored<Attendance>, 'source' | 'reason' | 'created_by' | 'voided_at' | 'void_reason'> & {
  feed_event?: string;
  source?: 'manual';
  reason?: string;
  created_by?: { token_id: number; label: string | null };
  voided_at?: string;
  void_reason?: string;
};

/**
 * `params` and `result` are JSON text. Two slots replace SQLite's partial unique indexes:
 * - `idem`: `k:<token id|->:<key>` when the command has an idempotency key, else `#<id>`;
 *   unique with `location_id` → one command per (location, token, key).
 * - `sync_slot`: the `sync_key` while the command is pending, else `#<id>`; unique with
 *   (`location_id`, `sn`) → at most one pending op per (device, sync key). Every write that moves a
 *   command out of `pending` sets it back to `#<id>` in the same single-document update.
 */
export type CommandDoc = Omit<Stored<Command>, 'params' | 'result' | 'group_id'> & {
  /** The outbox marker of the command.updated event the last transition still owes (absent once stored; ../ports/cluster.ts OutboxTable). */
  feed_event?: string;
  params: string | null;
  result: string | null;
  idem: string;
  sync_slot: string;
  /** Absent on documents written before groups existed. */
  group_id?: number | null;
  /** Present (true) only on a composite record, which never enters the mailbox. */
  composite?: true;
};

/** A door or alarm event; (location_id, sn, dedup_key) is unique, so re-sent records are kept once. */
export type DoorEventDoc = Stored<StoredDoorEvent> & { dedup_key: string; feed_event?: string };

/** A record kept raw (DeviceRecord); `table_key` is the lower-cased table name. */
export interface DeviceRecordDoc {
  _id: number;
  location_id: number;
  sn: string;
  table: string;
  table_key: string;
  source: 'upload' | 'query';
  cmd_id: string | null;
  record: string;
  received_at: string;
}

/** A terminal's exchange or run of exchanges (DeviceExchange); `_id` is its key. */
export type ExchangeDoc = Omit<DeviceExchange, 'key'> & { _id: string };

/** A sync outbox entry (OutboxEntry); `_id` is `<location_id>:<pin>`. */
export interface OutboxDoc {
  _id: string;
  location_id: number;
  pin: number;
  rev: string;
  since: string;
  /** The areas the user left (OutboxEntry.areas); absent when none. */
  areas?: number[];
}

/** A job's high-water mark (JobState); `_id` is the job name. Unsharded, like counters. */
export interface JobDoc {
  _id: string;
  mark: string;
  updated_at: string;
}

/** A one-time cluster-wide action done (`_id` its name, e.g. "bootstrap"); the `_id` makes it unique. Unsharded. */
export interface MarkerDoc {
  _id: string;
  node: string;
  created_at: string;
}

/** A serial once assigned to a location (BIOGATE_DEVICE_CLAIM=admin): `_id` is `<location_id>:<serial>`. Unsharded. */
export interface DeviceLocationDoc {
  _id: string;
  location_id: number;
  serial_number: string;
  first_at: string;
}

/** A terminal's sync state (ports/terminal-sync.ts); `_id` is its serial number. */
export interface SyncTerminalDoc {
  _id: string;
  location_id: number | null;
  state: TerminalSyncState;
  reason: string | null;
  last_confirmed_at: string | null;
  last_audit_at: string | null;
  /** Absent on records written before the audit (issue #31 item 2). */
  audit_started_at?: string | null;
  audit_command_id?: number | null;
  /** An audit claimed and not yet compared (claimAudit, audited). */
  audit_open?: boolean;
  changed_at: string;
  /** The outbox marker of the last change's device.sync event, until it is stored (absent then). */
  sync_event?: string;
}

/** A refused PIN on a terminal; `_id` is `<sn>:<pin>`. */
export interface SyncRefusalDoc {
  _id: string;
  sn: string;
  pin: number;
  code: number;
  message: string;
  since: string;
  at: string;
}

export interface CounterDoc {
  _id: string;
  seq: number;
}

export interface Collections {
  readonly locations: Collection<LocationDoc>;
  readonly tokens: Collection<TokenDoc>;
  readonly users: Collection<UserDoc>;
  readonly areas: Collection<AreaDoc>;
  readonly orgNames: Collection<OrgNameDoc>;
  readonly schedules: Collection<ScheduleDoc>;
  readonly accessLevels: Collection<AccessLevelDoc>;
  readonly holidays: Collection<HolidayDoc>;
  readonly templates: Collection<TemplateDoc>;
  readonly devices: Collection<DeviceDoc>;
  readonly deviceLocations: Collection<DeviceLocationDoc>;
  readonly commands: Collection<CommandDoc>;
  readonly attendance: Collection<AttendanceDoc>;
  readonly deviceRecords: Collection<DeviceRecordDoc>;
  readonly exchanges: Collection<ExchangeDoc>;
  readonly doorEvents: Collection<DoorEventDoc>;
  readonly counters: Collection<CounterDoc>;
  readonly syncOutbox: Collection<OutboxDoc>;
  readonly jobs: Collection<JobDoc>;
  readonly markers: Collection<MarkerDoc>;
  readonly meta: Collection<MetaDoc>;
  readonly syncTerminals: Collection<SyncTerminalDoc>;
  readonly syncRefusals: Collection<SyncRefusalDoc>;
}

export function collections(db: Db): Collections {
  return {
    locations: db.collection<LocationDoc>('locations'),
    tokens: db.collection<TokenDoc>('tokens'),
    users: db.collection<UserDoc>('users'),
    areas: db.collection<AreaDoc>('areas'),
    orgNames: db.collection<OrgNameDoc>('org_names'),
    schedules: db.collection<ScheduleDoc>('schedules'),
    accessLevels: db.collection<AccessLevelDoc>('access_levels'),
    holidays: db.collection<HolidayDoc>('holidays'),
    templates: db.collection<TemplateDoc>('templates'),
    devices: db.collection<DeviceDoc>('devices'),
    deviceLocations: db.collection<DeviceLocationDoc>('device_locations'),
    commands: db.collection<CommandDoc>('commands'),
    attendance: db.collection<AttendanceDoc>('attendance'),
    deviceRecords: db.collection<DeviceRecordDoc>('device_records'),
    exchanges: db.collection<ExchangeDoc>('device_exchanges'),
    doorEvents: db.collection<DoorEventDoc>('door_events'),
    counters: db.collection<CounterDoc>('counters'),
    syncOutbox: db.collection<OutboxDoc>('sync_outbox'),
    jobs: db.collection<JobDoc>('job_state'),
    markers: db.collection<MarkerDoc>('markers'),
    meta: db.collection<MetaDoc>('meta'),
    syncTerminals: db.collection<SyncTerminalDoc>('sync_terminals'),
    syncRefusals: db.collection<SyncRefusalDoc>('sync_refusals'),
  };
}

/** Index names are fixed so that creating them again is a no-op (createIndexes is idempotent). */
const INDEXES: Readonly<
  Record<Exclude<keyof Collections, 'counters' | 'locations' | 'jobs' | 'markers' | 'deviceLocations' | 'meta'>, IndexDescription[]>
> = {
  tokens: [
    { name: 'hash_unique', key: { hash: 1 }, unique: true },
    { name: 'location', key: { location_id: 1, _id: 1 } },
  ],
  users: [
    { name: 'location_pin_unique', key: { location_id: 1, pin: 1 }, unique: true },
    { name: 'location_active', key: { location_id: 1, is_active: 1, pin: 1 } },
    { name: 'location_areas', key: { location_id: 1, areas: 1 } },
    { name: 'location_levels', key: { location_id: 1, access_levels: 1 } },
  ],
  areas: [{ name: 'location', key: { location_id: 1, _id: 1 } }],
  orgNames: [
    { name: 'location_kind_name_unique', key: { location_id: 1, kind: 1, name: 1 }, unique: true },
    { name: 'location_kind', key: { location_id: 1, kind: 1, _id: 1 } },
  ],
  schedules: [{ name: 'location', key: { location_id: 1, id: 1 } }],
  accessLevels: [
    { name: 'location', key: { location_id: 1, _id: 1 } },
    { name: 'schedule', key: { location_id: 1, schedule_id: 1 } },
  ],
  holidays: [{ name: 'location', key: { location_id: 1, start_date: 1, _id: 1 } }],
  templates: [
    { name: 'location_key_unique', key: { location_id: 1, user_pin: 1, type_index: 1, finger_id: 1, template_index: 1 }, unique: true },
  ],
  devices: [
    { name: 'serial_unique', key: { serial_number: 1 }, unique: true },
    { name: 'location_serial', key: { location_id: 1, serial_number: 1 } },
    { name: 'unassigned_seen', key: { location_id: 1, last_seen: 1, created_at: 1 } },
    { name: 'area', key: { area_id: 1 }, sparse: true },
    { name: 'feed_event', key: { feed_event: 1, _id: 1 }, sparse: true },
  ],
  commands: [
    { name: 'location_idem_unique', key: { location_id: 1, idem: 1 }, unique: true },
    { name: 'location_sn_sync_slot_unique', key: { location_id: 1, sn: 1, sync_slot: 1 }, unique: true },
    { name: 'mailbox_fifo', key: { sn: 1, status: 1, priority: -1, created_at: 1, _id: 1 } },
    { name: 'sn_location', key: { sn: 1, location_id: 1 } },
    { name: 'location_id_desc', key: { location_id: 1, _id: -1 } },
    { name: 'status_sent_at', key: { status: 1, sent_at: 1 } },
    { name: 'status_expires_at', key: { status: 1, expires_at: 1 } },
    { name: 'parent', key: { parent_id: 1, _id: 1 } },
    { name: 'status_updated_at', key: { status: 1, updated_at: 1 } },
    { name: 'group_status', key: { group_id: 1, status: 1 } },
    { name: 'feed_event', key: { feed_event: 1, _id: 1 }, sparse: true },
  ],
  attendance: [
    { name: 'location_time', key: { location_id: 1, timestamp: -1, _id: -1 } },
    { name: 'location_arrival', key: { location_id: 1, created_at: 1, _id: 1 } },
    { name: 'time', key: { timestamp: 1 } },
    // The dedup key, per location (attendance.ts); the shard key first.
    { name: 'location_dedup_unique', key: { location_id: 1, sn: 1, local_time: 1, pin: 1, status: 1, verify: 1 }, unique: true },
    { name: 'feed_event', key: { feed_event: 1, _id: 1 }, sparse: true },
  ],
  deviceRecords: [
    { name: 'location_sn_table_time', key: { location_id: 1, sn: 1, table_key: 1, received_at: -1, _id: -1 } },
    { name: 'received_at', key: { received_at: 1 } },
    { name: 'location_id', key: { location_id: 1, _id: -1 } },
  ],
  exchanges: [{ name: 'location_sn_newest', key: { location_id: 1, sn: 1, at: -1, _id: -1 } }],
  doorEvents: [
    { name: 'location_sn_dedup_unique', key: { location_id: 1, sn: 1, dedup_key: 1 }, unique: true },
    { name: 'location_time', key: { location_id: 1, timestamp: -1, _id: -1 } },
    { name: 'time', key: { timestamp: 1 } },
    { name: 'location_id', key: { location_id: 1, _id: -1 } },
    { name: 'feed_event', key: { feed_event: 1, _id: 1 }, sparse: true },
  ],
  syncOutbox: [
    { name: 'location_pin', key: { location_id: 1, pin: 1 } },
    { name: 'since', key: { since: 1 } },
  ],
  syncRefusals: [{ name: 'sn_since', key: { sn: 1, since: 1, pin: 1 } }],
  syncTerminals: [{ name: 'sync_event', key: { sync_event: 1, changed_at: 1 }, sparse: true }],
};

/** Counters hold the last id handed out per collection. */
export const COUNTERS = [
  'locations',
  'tokens',
  'users',
  'templates',
  'devices',
  'areas',
  'access_levels',
  'holidays',
  'commands',
  'attendance',
  'device_records',
  'door_events',
  'webhooks',
  'webhook_deliveries',
  'audit_log',
  'alert_rules',
  'org_names',
] as const;
export type CounterName = (typeof COUNTERS)[number];

/** Indexes an earlier version created that a newer one replaced: dropped at startup (absent: nothing to do). */
const REPLACED: readonly { collection: keyof typeof INDEXES; name: string }[] = [
  // By id within a priority; ids from several nodes interleave, so the mailbox orders by created_at.
  { collection: 'commands', name: 'mailbox' },
];

/** Creates every index (idempotent); run at startup by every node. */
export async function ensureIndexes(c: Collections): Promise<void> {
  await checkSchemaVersion(c.meta);
  for (const [name, specs] of Object.entries(INDEXES) as [keyof typeof INDEXES, IndexDescription[]][]) {
    await c[name].createIndexes(specs);
  }
  for (const old of REPLACED) {
    const present = await c[old.collection].indexExists(old.name).catch(() => false);
    if (present) await c[old.collection].dropIndex(old.name);
  }
  // The dedup keys of attendance without its location (one document per punch), replaced by the
  // unique index `location_dedup_unique`: derived data, dropped (absent: nothing to do).
  await c.attendance.db
    .collection('attendance_keys')
    .drop()
    .catch(() => false);
}
