/** Schema migrations 9 to 16 (see migrations.ts). Released: never edit; new ones go to migration-list-3.ts. */
import type { Migration } from './migration.js';

export const MIGRATIONS_9_TO_16: readonly Migration[] = [
  {
    version: 9,
    name: 'door and alarm events (issue #15)',
    sql: `
CREATE TABLE door_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL,
  sn TEXT NOT NULL,
  type TEXT NOT NULL,
  event INTEGER,
  door INTEGER,
  pin TEXT,
  card_no TEXT,
  verify_type TEXT,
  in_out INTEGER,
  device_index INTEGER,
  local_time TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  state TEXT,
  extra TEXT,
  dedup_key TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX door_events_dedup ON door_events(location_id, sn, dedup_key);
CREATE INDEX door_events_list ON door_events(location_id, timestamp, id);
CREATE INDEX door_events_time ON door_events(timestamp);
`,
  },
  {
    version: 10,
    name: 'webhooks: subscriptions and their durable deliveries (issue #16)',
    sql: `
CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  location_id INTEGER NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  description TEXT,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_valid_until TEXT,
  attendance_batch INTEGER NOT NULL DEFAULT 1,
  enabled INTEGER NOT NULL DEFAULT 1,
  disabled_reason TEXT,
  cursor INTEGER NOT NULL DEFAULT 0,
  failing_since TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT
);
CREATE INDEX webhooks_location ON webhooks(location_id, id);
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  subscription_id INTEGER NOT NULL,
  location_id INTEGER NOT NULL,
  event_id TEXT NOT NULL,
  event_seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  last_status_code INTEGER,
  last_error TEXT,
  duration_ms INTEGER,
  created_at TEXT NOT NULL,
  delivered_at TEXT
);
CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries(subscription_id, event_id);
CREATE INDEX webhook_deliveries_queue ON webhook_deliveries(subscription_id, status, event_seq, id);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(status, created_at);
`,
  },
  {
    version: 11,
    // GET /api/me and the user list's total read one row instead of counting. Triggers keep
    // the counts in the writing transaction, whatever writes (API, CLI, restore), so they stay exact.
    name: 'location_counts: users and devices per location, kept by triggers (issue #20)',
    sql: `
CREATE TABLE location_counts (
  location_id INTEGER PRIMARY KEY,
  users INTEGER NOT NULL DEFAULT 0,
  devices INTEGER NOT NULL DEFAULT 0
);
INSERT INTO location_counts (location_id, users, devices)
  SELECT l.id, (SELECT COUNT(*) FROM users u WHERE u.location_id = l.id), (SELECT COUNT(*) FROM devices d WHERE d.location_id = l.id) FROM locations l;
CREATE TRIGGER location_counts_location AFTER INSERT ON locations BEGIN
  INSERT OR IGNORE INTO location_counts (location_id) VALUES (NEW.id);
END;
CREATE TRIGGER location_counts_user_in AFTER INSERT ON users BEGIN
  INSERT OR IGNORE INTO location_counts (location_id) VALUES (NEW.location_id);
  UPDATE location_counts SET users = users + 1 WHERE location_id = NEW.location_id;
END;
CREATE TRIGGER location_counts_user_out AFTER DELETE ON users BEGIN
  UPDATE location_counts SET users = users - 1 WHERE location_id = OLD.location_id;
END;
CREATE TRIGGER location_counts_user_moved AFTER UPDATE OF location_id ON users WHEN OLD.location_id IS NOT NEW.location_id BEGIN
  UPDATE location_counts SET users = users - 1 WHERE location_id = OLD.location_id;
  INSERT OR IGNORE INTO location_counts (location_id) VALUES (NEW.location_id);
  UPDATE location_counts SET users = users + 1 WHERE location_id = NEW.location_id;
END;
CREATE TRIGGER location_counts_device_in AFTER INSERT ON devices WHEN NEW.location_id IS NOT NULL BEGIN
  INSERT OR IGNORE INTO location_counts (location_id) VALUES (NEW.location_id);
  UPDATE location_counts SET devices = devices + 1 WHERE location_id = NEW.location_id;
END;
CREATE TRIGGER location_counts_device_out AFTER DELETE ON devices WHEN OLD.location_id IS NOT NULL BEGIN
  UPDATE location_counts SET devices = devices - 1 WHERE location_id = OLD.location_id;
END;
CREATE TRIGGER location_counts_device_moved AFTER UPDATE OF location_id ON devices WHEN OLD.location_id IS NOT NEW.location_id BEGIN
  UPDATE location_counts SET devices = devices - 1 WHERE location_id = OLD.location_id;
  INSERT OR IGNORE INTO location_counts (location_id) SELECT NEW.location_id WHERE NEW.location_id IS NOT NULL;
  UPDATE location_counts SET devices = devices + 1 WHERE location_id = NEW.location_id;
END;
`,
  },
  {
    version: 12,
    // Nothing on SQLite looks an event up by its id (a random UUID; MongoDB keys its documents by it),
    // and keeping that index unique was three quarters of every event's insert.
    name: 'events: no index on the random event id (issue #20)',
    sql: `
CREATE TABLE events_v12 (
  location_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  at TEXT NOT NULL,
  node TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (location_id, seq)
) WITHOUT ROWID;
INSERT INTO events_v12 (location_id, seq, id, type, at, node, data) SELECT location_id, seq, id, type, at, node, data FROM events;
DROP TABLE events;
ALTER TABLE events_v12 RENAME TO events;
CREATE INDEX events_at ON events(at);
`,
  },
  {
    version: 13,
    // Indexes that lead with status or carry it (the earlier mailbox, sent and finished indexes)
    // rewrite their entries on every transition: six index writes to finish one. Here each index
    // holds only the rows of the status its readers ask for, so a transition moves a row out of one
    // and into the next. Child lines are the only rows with a parent.
    name: 'commands: partial indexes per status (issue #20)',
    sql: `
DROP INDEX commands_mailbox;
DROP INDEX commands_sent;
DROP INDEX commands_finished;
DROP INDEX commands_parent;
CREATE INDEX commands_mailbox ON commands(sn, priority DESC, id) WHERE status = 'pending';
CREATE INDEX commands_expiry ON commands(expires_at) WHERE status = 'pending' AND expires_at IS NOT NULL;
CREATE INDEX commands_sent ON commands(sent_at) WHERE status = 'sent';
CREATE INDEX commands_finished ON commands(updated_at) WHERE status IN ('success', 'failed');
CREATE INDEX commands_parent ON commands(parent_id) WHERE parent_id IS NOT NULL;
`,
  },
  {
    version: 14,
    // Issue #20. (1) The dedup key's columns reordered: a terminal sends its punches in time order, so
    // with the time second a batch's key entries land side by side at the end of that terminal's
    // range. With the PIN second every record of a 100-line batch touched another leaf page of the
    // index, and each commit wrote all of them to the WAL (30,000 against 120,000 records/s on a
    // table of 1,000,000 rows from 10,000 users). Same columns, so the same duplicates; SQLite cannot
    // change a table's UNIQUE constraint in place, so the table is copied, ids and the AUTOINCREMENT
    // high-water mark kept (webhook cursors and `listAfter` read ids). (2) A terminal's sent
    // commands of one preset (a v2 ATTLOG upload asks for an outstanding check-attendance, a
    // handshake for sent reboots) were found by scanning the location's commands.
    name: 'attendance dedup key in arrival order; sent commands by terminal (issue #20)',
    sql: `
CREATE TABLE attendance_v14 (
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
  UNIQUE (sn, local_time, pin, status, verify)
);
INSERT INTO attendance_v14 (id, location_id, sn, pin, user_id, timestamp, local_time, status, verify, work_code, created_at)
  SELECT id, location_id, sn, pin, user_id, timestamp, local_time, status, verify, work_code, created_at FROM attendance ORDER BY id;
DELETE FROM sqlite_sequence WHERE name = 'attendance_v14';
INSERT INTO sqlite_sequence (name, seq) SELECT 'attendance_v14', seq FROM sqlite_sequence WHERE name = 'attendance';
DROP TABLE attendance;
ALTER TABLE attendance_v14 RENAME TO attendance;
CREATE INDEX attendance_location ON attendance(location_id, timestamp DESC, id DESC);
CREATE INDEX attendance_timestamp ON attendance(timestamp);
CREATE INDEX commands_sent_device ON commands(sn, command, sent_at) WHERE status = 'sent' AND parent_id IS NULL;
`,
  },
  {
    version: 15,
    // Issue #20: the outbox is drained in (since, location, pin) order, 1,000 entries a round. The
    // index on `since` alone left SQLite to sort every due entry each round: draining 100,000 owed
    // users (an import, a restore) sorted 100,000 rows a hundred times, and held the event loop for
    // most of a minute. With the whole order in the index a round reads its 1,000 entries and stops.
    name: 'sync outbox drained in index order (issue #20)',
    sql: `
DROP INDEX sync_outbox_since;
CREATE INDEX sync_outbox_due ON sync_outbox(since, location_id, pin);
`,
  },
  {
    version: 16,
    // Issue #32: registration binds a token only for a terminal whose first contact spoke Security PUSH
    // or that an operator accepted; the device view shows from which address a binding was made.
    // Terminals registered before keep registering (their registry code was issued).
    name: 'registration accepted per terminal; address of the token binding (issue #32)',
    sql: `
ALTER TABLE devices ADD COLUMN token_bound_address TEXT;
ALTER TABLE devices ADD COLUMN registration_accepted_at TEXT;
UPDATE devices SET registration_accepted_at = COALESCE(registered_at, created_at) WHERE registry_code IS NOT NULL;
`,
  },
];
