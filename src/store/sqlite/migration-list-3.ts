/** Schema migrations 17 to 44 (see migrations.ts). Never edit a released migration: new ones go to migration-list-4.ts. */
import type { Migration } from './migration.js';

export const MIGRATIONS_FROM_17: readonly Migration[] = [
  {
    version: 17,
    // Issue #32. (1) The dedup key holds the location: a terminal that moved stores a punch of its new
    // location even when an old one of the previous location has the same (sn, time, pin, status,
    // verify). The key stays in arrival order within a terminal (see migration 14). SQLite cannot
    // change a table's UNIQUE constraint in place, so the table is copied, ids and the AUTOINCREMENT
    // high-water mark kept. (2) `attendance_arrival` (location_id, id): the cursor feed and the CSV
    // export read `WHERE location_id = ? AND id > ? ORDER BY id` in index order, without a
    // temporary sort of the whole location per page.
    name: 'attendance dedup key per location; attendance by location in arrival order (issue #32)',
    sql: `
CREATE TABLE attendance_v17 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL,
  sn TEXT NOT NULL,
  pin TEXT NOT NULL,
  user_id INTEGER,
  timestamp TEXT NOT NULL,
  local_time TEXT NOT NULL,
  status INTEGER NOT NULL,
  verify INTEGER NOT NULL,
  work_code TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (location_id, sn, local_time, pin, status, verify)
);
INSERT INTO attendance_v17 (id, location_id, sn, pin, user_id, timestamp, local_time, status, verify, work_code, created_at)
  SELECT id, location_id, sn, pin, user_id, timestamp, local_time, status, verify, work_code, created_at FROM attendance ORDER BY id;
DELETE FROM sqlite_sequence WHERE name = 'attendance_v17';
INSERT INTO sqlite_sequence (name, seq) SELECT 'attendance_v17', seq FROM sqlite_sequence WHERE name = 'attendance';
DROP TABLE attendance;
ALTER TABLE attendance_v17 RENAME TO attendance;
CREATE INDEX attendance_location ON attendance(location_id, timestamp DESC, id DESC);
CREATE INDEX attendance_timestamp ON attendance(timestamp);
CREATE INDEX attendance_arrival ON attendance(location_id, id);
`,
  },
  {
    version: 18,
    // A webhook lane paused for a slow or unreachable receiver says so (paused_until, last_error);
    // a re-queued delivery gets a new 24 h retry window from requeued_at.
    name: 'webhooks: paused_until and last_error per subscription, requeued_at per delivery (issue #32)',
    sql: `
ALTER TABLE webhooks ADD COLUMN paused_until TEXT;
ALTER TABLE webhooks ADD COLUMN last_error TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN requeued_at TEXT;
`,
  },
  {
    version: 19,
    // Issue #32: with BIOGATE_DEVICE_CLAIM=admin a location token assigns only serials once assigned to
    // its location. Triggers record every assignment, whatever path wrote it; the devices assigned now seed it.
    // BIOGATE_QUOTA_RECORDS trims raw records and door events per location by id; unassigned terminals
    // not seen for 30 days are evicted by last contact.
    name: 'serials ever assigned per location; quota and eviction indexes (issue #32)',
    sql: `
CREATE TABLE device_locations (
  location_id INTEGER NOT NULL,
  serial_number TEXT NOT NULL,
  first_at TEXT NOT NULL,
  PRIMARY KEY (location_id, serial_number)
) WITHOUT ROWID;
INSERT OR IGNORE INTO device_locations (location_id, serial_number, first_at)
  SELECT location_id, serial_number, COALESCE(assigned_at, created_at) FROM devices WHERE location_id IS NOT NULL;
CREATE TRIGGER device_locations_in AFTER INSERT ON devices WHEN NEW.location_id IS NOT NULL BEGIN
  INSERT OR IGNORE INTO device_locations (location_id, serial_number, first_at)
    VALUES (NEW.location_id, NEW.serial_number, COALESCE(NEW.assigned_at, NEW.created_at));
END;
CREATE TRIGGER device_locations_moved AFTER UPDATE OF location_id ON devices
  WHEN NEW.location_id IS NOT NULL AND OLD.location_id IS NOT NEW.location_id BEGIN
  INSERT OR IGNORE INTO device_locations (location_id, serial_number, first_at)
    VALUES (NEW.location_id, NEW.serial_number, COALESCE(NEW.assigned_at, NEW.updated_at, NEW.created_at));
END;
CREATE INDEX device_records_location_id ON device_records(location_id, id);
CREATE INDEX door_events_location_id ON door_events(location_id, id);
CREATE INDEX devices_unassigned_seen ON devices(COALESCE(last_seen, created_at)) WHERE location_id IS NULL;
`,
  },
  {
    version: 20,
    name: 'feed outbox: rows carry the marker of the feed event they still owe (issue #32)',
    sql: `
ALTER TABLE attendance ADD COLUMN feed_event TEXT;
ALTER TABLE door_events ADD COLUMN feed_event TEXT;
CREATE INDEX attendance_feed_event ON attendance(feed_event) WHERE feed_event IS NOT NULL;
CREATE INDEX door_events_feed_event ON door_events(feed_event) WHERE feed_event IS NOT NULL;
`,
  },
  {
    version: 21,
    name: 'terminal sync state: per-terminal state and refusals; owed sync ops by device and op',
    sql: `
CREATE TABLE sync_terminals (
  sn TEXT PRIMARY KEY,
  location_id INTEGER,
  state TEXT NOT NULL,
  reason TEXT,
  last_confirmed_at TEXT,
  last_audit_at TEXT,
  changed_at TEXT NOT NULL
);
CREATE TABLE sync_refusals (
  sn TEXT NOT NULL,
  pin INTEGER NOT NULL,
  code INTEGER NOT NULL,
  message TEXT NOT NULL,
  since TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (sn, pin)
);
CREATE INDEX commands_sync_owed ON commands(sn, json_extract(params, '$.op'), created_at)
  WHERE origin = 'sync' AND command = 'sync-users' AND parent_id IS NULL AND status IN ('pending', 'sent');
`,
  },
  {
    version: 23,
    // [PUSH-v3 §3] Registration opens on a serial's first contact only: of two nodes serving the first
    // requests of one serial, one claims it by compare-and-set. Devices that were ever heard from count
    // as contacted.
    name: 'first contact of a serial claimed once across nodes (issue #32)',
    sql: `
ALTER TABLE devices ADD COLUMN first_contact_at TEXT;
UPDATE devices SET first_contact_at = COALESCE(last_seen, registered_at, created_at)
  WHERE last_seen IS NOT NULL OR registered_at IS NOT NULL OR version IS NOT NULL;
`,
  },
  {
    version: 26,
    name: 'feed outbox: command transitions and device changes carry the marker of the event they still owe (issue #32)',
    sql: `
ALTER TABLE commands ADD COLUMN feed_event TEXT;
CREATE INDEX commands_feed_event ON commands(feed_event) WHERE feed_event IS NOT NULL;
ALTER TABLE devices ADD COLUMN feed_event TEXT;
ALTER TABLE devices ADD COLUMN feed_location INTEGER;
CREATE INDEX devices_feed_event ON devices(feed_event) WHERE feed_event IS NOT NULL;
`,
  },
  {
    version: 30,
    // Issue #31 item 2: the audit outstanding per terminal, claimed by compare-and-set across nodes.
    name: 'terminal audits: when the outstanding audit started and its query command',
    sql: `
ALTER TABLE sync_terminals ADD COLUMN audit_started_at TEXT;
ALTER TABLE sync_terminals ADD COLUMN audit_command_id INTEGER;
`,
  },
  {
    version: 31,
    // Issue #32 item 11: a terminal's sync state change keeps the marker of its device.sync event until stored.
    name: 'feed outbox: sync state changes carry the marker of the device.sync event they still owe',
    sql: `
ALTER TABLE sync_terminals ADD COLUMN sync_event TEXT;
CREATE INDEX sync_terminals_sync_event ON sync_terminals(changed_at) WHERE sync_event IS NOT NULL;
`,
  },
  {
    version: 32,
    // Issue #32 item 11: a presence change keeps the marker of its device.online/offline event until stored.
    name: 'feed outbox: presence changes carry the marker of the event they still owe',
    sql: `
ALTER TABLE devices ADD COLUMN presence_event TEXT;
ALTER TABLE devices ADD COLUMN presence_at TEXT;
CREATE INDEX devices_presence_event ON devices(presence_at) WHERE presence_event IS NOT NULL;
`,
  },
  {
    version: 33,
    // Issue #33 item 1: areas; a terminal in at most one, a user in any (JSON array of ids, ascending).
    name: 'areas: which terminals know which people',
    sql: `
CREATE TABLE areas (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL REFERENCES locations(id),
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT
);
CREATE INDEX areas_location ON areas(location_id, id);
ALTER TABLE devices ADD COLUMN area_id INTEGER;
CREATE INDEX devices_area ON devices(area_id) WHERE area_id IS NOT NULL;
ALTER TABLE users ADD COLUMN areas TEXT NOT NULL DEFAULT '[]';
ALTER TABLE sync_outbox ADD COLUMN areas TEXT;
`,
  },
  {
    version: 34,
    // Issue #33 items 2 and 4: schedules numbered per location (the terminals' TimezoneId), access levels, a user's levels.
    name: 'schedules, access levels and holidays',
    sql: `
CREATE TABLE schedules (
  location_id INTEGER NOT NULL REFERENCES locations(id),
  id INTEGER NOT NULL,
  name TEXT NOT NULL,
  days TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT,
  PRIMARY KEY (location_id, id)
);
CREATE TABLE access_levels (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL REFERENCES locations(id),
  name TEXT NOT NULL,
  schedule_id INTEGER NOT NULL,
  doors TEXT NOT NULL,
  area_id INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT
);
CREATE INDEX access_levels_location ON access_levels(location_id, id);
ALTER TABLE users ADD COLUMN access_levels TEXT NOT NULL DEFAULT '[]';
CREATE TABLE holidays (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL REFERENCES locations(id),
  name TEXT NOT NULL,
  start_date TEXT NOT NULL,
  end_date TEXT NOT NULL,
  type INTEGER NOT NULL,
  recurring INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT
);
CREATE INDEX holidays_location ON holidays(location_id, start_date);
`,
  },
  {
    version: 35,
    // Issue #33 item 5: the operator's door settings per terminal (JSON by door number).
    name: 'door settings',
    sql: `ALTER TABLE devices ADD COLUMN door_settings TEXT;`,
  },
  {
    version: 36,
    // Issue #35 item 1: how a location's time cards read its punches.
    name: 'location time-card settings',
    sql: `
ALTER TABLE locations ADD COLUMN attendance_debounce_s INTEGER NOT NULL DEFAULT 60;
ALTER TABLE locations ADD COLUMN day_start_hour INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    version: 37,
    // Issue #35 item 3: manual punches (source, reason, the token that entered them) and voided records.
    name: 'attendance source, manual facts and voids',
    sql: `
ALTER TABLE attendance ADD COLUMN source TEXT NOT NULL DEFAULT 'device';
ALTER TABLE attendance ADD COLUMN reason TEXT;
ALTER TABLE attendance ADD COLUMN created_by_token_id INTEGER;
ALTER TABLE attendance ADD COLUMN created_by_label TEXT;
ALTER TABLE attendance ADD COLUMN voided_at TEXT;
ALTER TABLE attendance ADD COLUMN void_reason TEXT;
`,
  },
  {
    version: 38,
    // Issue #35 item 4: a user's photo record (JSON; the bytes are files beside the database) and the
    // sizes of the photo files, for the quota and the retention of punch photos.
    name: 'photos',
    sql: `
ALTER TABLE users ADD COLUMN photo TEXT;
ALTER TABLE locations ADD COLUMN attendance_photos INTEGER NOT NULL DEFAULT 0;
ALTER TABLE locations ADD COLUMN attendance_photo_retention_days INTEGER NOT NULL DEFAULT 30;
CREATE TABLE photos (
  location_id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  size INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (location_id, kind, key)
) WITHOUT ROWID;
CREATE INDEX photos_by_age ON photos (location_id, kind, created_at);
`,
  },
  {
    version: 39,
    // Issue #36 item 2: each terminal's last exchanges (a run of identical ones is one row), per location.
    name: 'terminal exchange log',
    sql: `
CREATE TABLE device_exchanges (
  key TEXT PRIMARY KEY,
  location_id INTEGER NOT NULL,
  sn TEXT NOT NULL,
  at TEXT NOT NULL,
  first_at TEXT NOT NULL,
  repeat INTEGER NOT NULL,
  method TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  table_name TEXT,
  records INTEGER,
  status INTEGER NOT NULL,
  answer_bytes INTEGER NOT NULL,
  error TEXT
) WITHOUT ROWID;
CREATE INDEX device_exchanges_newest ON device_exchanges (location_id, sn, at, key);
`,
  },
  {
    version: 40,
    // Issue #36 item 5: what a subscription sends (filter, body format and its options, extra headers); JSON text.
    name: 'webhooks: filter, format, format_options, headers',
    sql: `
ALTER TABLE webhooks ADD COLUMN filter TEXT;
ALTER TABLE webhooks ADD COLUMN format TEXT NOT NULL DEFAULT 'standard';
ALTER TABLE webhooks ADD COLUMN format_options TEXT;
ALTER TABLE webhooks ADD COLUMN headers TEXT NOT NULL DEFAULT '{}';
`,
  },
  {
    version: 41,
    // Issue #36 item 3: the emergency scenario in force at a location (JSON {name, since, command_id}), null: none.
    name: 'locations: scenario',
    sql: `ALTER TABLE locations ADD COLUMN scenario TEXT;`,
  },
  {
    version: 42,
    // Issue #36 item 1: the audit log, append-only (actor and changes: JSON text).
    name: 'audit log',
    sql: `
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target_type TEXT NOT NULL,
  target_id TEXT NOT NULL,
  changes TEXT NOT NULL
);
CREATE INDEX audit_log_location ON audit_log (location_id, id);
CREATE INDEX audit_log_at ON audit_log (at);
`,
  },
  {
    version: 43,
    // Issue #36 item 4: alert rules per location, and each rule's open incidents (one per key at most).
    name: 'alert rules and incidents',
    sql: `
CREATE TABLE alert_rules (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  params TEXT NOT NULL,
  webhook_id INTEGER,
  enabled INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT
);
CREATE INDEX alert_rules_location ON alert_rules (location_id, id);
CREATE TABLE alert_incidents (
  rule_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  location_id INTEGER NOT NULL,
  since TEXT NOT NULL,
  detail TEXT NOT NULL,
  PRIMARY KEY (rule_id, key)
) WITHOUT ROWID;
`,
  },
  {
    version: 44,
    // Department and position of a user (kept by BioGate, never sent to a terminal); the names each location uses,
    // one row per (location, kind, name); secrets the gateway makes for itself once.
    name: 'users: department, position; org names; secrets',
    sql: `
ALTER TABLE users ADD COLUMN department TEXT;
ALTER TABLE users ADD COLUMN position TEXT;
CREATE TABLE org_names (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  code TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (location_id, kind, name)
);
CREATE INDEX org_names_list ON org_names (location_id, kind, id);
CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`,
  },
];
