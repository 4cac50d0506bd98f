/** Schema migrations 17 onwards (see migrations.ts). Never edit a released migration: add the next one here. */
import type { Migration } from './migration.js';

export const MIGRATIONS_FROM_17: readonly Migration[] = [
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
];
