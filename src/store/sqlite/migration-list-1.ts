/** Schema migrations 1–8 (see migrations.ts). Never edit a released migration. */

export const MIGRATIONS_1_TO_8: readonly { readonly version: number; readonly name: string; readonly sql: string }[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
CREATE TABLE locations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  timezone TEXT NOT NULL DEFAULT 'UTC',
  is_active INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT
);
CREATE TABLE tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL REFERENCES locations(id),
  hash TEXT NOT NULL UNIQUE,
  scope TEXT NOT NULL,
  label TEXT,
  expires_at TEXT,
  revoked_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX tokens_location ON tokens(location_id);
CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL REFERENCES locations(id),
  pin INTEGER NOT NULL,
  first_name TEXT,
  last_name TEXT,
  card_no TEXT,
  password INTEGER,
  is_active INTEGER NOT NULL,
  start_time TEXT,
  end_time TEXT,
  privilege INTEGER NOT NULL,
  grp INTEGER NOT NULL,
  super_authorize INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT,
  UNIQUE (location_id, pin)
);
CREATE TABLE templates (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL REFERENCES locations(id),
  user_pin INTEGER NOT NULL,
  bio_type TEXT NOT NULL,
  type_index INTEGER NOT NULL,
  finger_id INTEGER NOT NULL,
  template_index INTEGER NOT NULL,
  valid INTEGER NOT NULL,
  duress INTEGER NOT NULL,
  major_ver INTEGER NOT NULL,
  minor_ver INTEGER NOT NULL,
  format INTEGER NOT NULL,
  source_format TEXT NOT NULL,
  data TEXT NOT NULL,
  size INTEGER NOT NULL,
  source_sn TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT,
  UNIQUE (location_id, user_pin, type_index, finger_id, template_index)
);
CREATE TABLE devices (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  serial_number TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  location_id INTEGER REFERENCES locations(id),
  registry_code TEXT,
  session_id TEXT,
  registered_at TEXT,
  options TEXT,
  version TEXT,
  version_override TEXT,
  comm_key_hash TEXT,
  last_seen TEXT,
  last_address TEXT,
  assigned_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT
);
CREATE INDEX devices_location ON devices(location_id, serial_number);
CREATE TABLE commands (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER,
  sn TEXT NOT NULL,
  command TEXT NOT NULL,
  params TEXT,
  priority INTEGER NOT NULL,
  origin TEXT NOT NULL,
  status TEXT NOT NULL,
  response TEXT,
  error_message TEXT,
  result TEXT,
  sent_at TEXT,
  acknowledged_at TEXT,
  expires_at TEXT,
  sync_key TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  parent_id INTEGER,
  wire TEXT,
  created_by_token_id INTEGER,
  idempotency_key TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT
);
CREATE INDEX commands_mailbox ON commands(sn, status, priority DESC, id);
CREATE INDEX commands_location ON commands(location_id, id DESC);
CREATE INDEX commands_sent ON commands(status, sent_at);
CREATE INDEX commands_parent ON commands(parent_id);
CREATE UNIQUE INDEX commands_sync_pending ON commands(sn, sync_key) WHERE status = 'pending' AND sync_key IS NOT NULL;
CREATE UNIQUE INDEX commands_idempotency ON commands(location_id, created_by_token_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE TABLE attendance (
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
  UNIQUE (sn, pin, local_time, status, verify)
);
CREATE INDEX attendance_location ON attendance(location_id, timestamp DESC, id DESC);
`,
  },
  {
    version: 2,
    name: 'device runtime state, retention indexes',
    sql: `
ALTER TABLE devices ADD COLUMN state TEXT;
CREATE INDEX attendance_timestamp ON attendance(timestamp);
CREATE INDEX commands_finished ON commands(status, updated_at);
`,
  },
  {
    version: 3,
    name: 'device trust: IP allow-list, registration token binding; location require_comm_key',
    sql: `
ALTER TABLE devices ADD COLUMN allowed_networks TEXT;
ALTER TABLE devices ADD COLUMN token_bound_at TEXT;
ALTER TABLE locations ADD COLUMN require_comm_key INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    version: 4,
    name: 'sync outbox, job state',
    sql: `
CREATE TABLE sync_outbox (
  location_id INTEGER NOT NULL,
  pin INTEGER NOT NULL,
  rev TEXT NOT NULL,
  since TEXT NOT NULL,
  PRIMARY KEY (location_id, pin)
);
CREATE INDEX sync_outbox_since ON sync_outbox(since);
CREATE TABLE job_state (
  name TEXT PRIMARY KEY,
  mark TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`,
  },
  {
    version: 5,
    name: 'command groups (composite presets)',
    sql: `
ALTER TABLE commands ADD COLUMN group_id INTEGER;
ALTER TABLE commands ADD COLUMN composite INTEGER NOT NULL DEFAULT 0;
CREATE INDEX commands_group ON commands(group_id, status) WHERE group_id IS NOT NULL;
`,
  },
  {
    version: 6,
    name: 'device records kept raw (issue #18)',
    sql: `
CREATE TABLE device_records (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL,
  sn TEXT NOT NULL,
  table_name TEXT NOT NULL,
  table_key TEXT NOT NULL,
  source TEXT NOT NULL,
  cmd_id TEXT,
  record TEXT NOT NULL,
  received_at TEXT NOT NULL
);
CREATE INDEX device_records_list ON device_records(location_id, sn, table_key, received_at, id);
CREATE INDEX device_records_received ON device_records(received_at);
`,
  },
  {
    version: 7,
    name: 'cluster: event feed, leases, device ownership and announced presence (issue #14)',
    sql: `
CREATE TABLE events (
  location_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  at TEXT NOT NULL,
  node TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (location_id, seq)
) WITHOUT ROWID;
CREATE INDEX events_at ON events(at);
CREATE TABLE event_seqs (
  location_id INTEGER PRIMARY KEY,
  seq INTEGER NOT NULL
);
CREATE TABLE leases (
  name TEXT PRIMARY KEY,
  owner_node TEXT NOT NULL,
  lease_until TEXT NOT NULL
);
ALTER TABLE devices ADD COLUMN owner_node TEXT;
ALTER TABLE devices ADD COLUMN lease_until TEXT;
ALTER TABLE devices ADD COLUMN presence TEXT;
CREATE INDEX devices_presence ON devices(presence, last_seen) WHERE presence = 'online';
`,
  },
  {
    version: 8,
    name: 'markers: one-time cluster-wide actions such as the bootstrap (issue #14)',
    // A store that already has locations was bootstrapped before markers existed.
    sql: `
CREATE TABLE markers (
  name TEXT PRIMARY KEY,
  node TEXT NOT NULL,
  created_at TEXT NOT NULL
);
INSERT INTO markers (name, node, created_at)
  SELECT 'bootstrap', 'migration', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE EXISTS (SELECT 1 FROM locations);
`,
  },
];
