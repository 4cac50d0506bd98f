/** Schema migrations 45 onwards (see migrations.ts). Never edit a released migration: add the next one here. */
import type { Migration } from './migration.js';

export const MIGRATIONS_FROM_45: readonly Migration[] = [
  {
    version: 45,
    // Issue #34 (ingest). The punches of one store write owe their feed event as one range of ids
    // (`attendance_owed`), written in the same transaction as the rows, instead of a marker on every row (an
    // index entry written, then cleared by an UPDATE of every row). The ids of one write are consecutive:
    // SQLite has one writer, and AUTOINCREMENT never hands an id out twice. Rows marked before this
    // migration keep their marker and are swept and cleared as before.
    name: 'feed outbox: the punches of one write owe their event as one id range (issue #34)',
    sql: `
CREATE TABLE attendance_owed (
  first_id INTEGER PRIMARY KEY,
  last_id INTEGER NOT NULL,
  marker TEXT NOT NULL,
  created_at TEXT NOT NULL
);
`,
  },
  {
    version: 46,
    // Issue #34 (ingest). Retention reads each location's old punches through attendance_location (location_id,
    // timestamp, id), so the index on the timestamp alone, one more entry for every punch stored, goes.
    name: 'attendance: retention by location; the timestamp index dropped (issue #34)',
    sql: `
DROP INDEX attendance_timestamp;
`,
  },
  {
    version: 47,
    // Issue #31. Which users a terminal holds for other locations (sync-history.ts) is asked on every audit and
    // every load-users result of a moved terminal; without an index on the serial number each read scanned the
    // whole commands table. The columns never change after the insert, so a status change writes no entry.
    name: 'commands: the sync history of a terminal by serial number and location (issue #31)',
    sql: `
CREATE INDEX commands_sync_history ON commands(sn, location_id) WHERE origin = 'sync' AND parent_id IS NULL;
`,
  },
  {
    version: 48,
    // Commands by status for the `biogate_commands` gauge, maintained by triggers in the writing transaction: a
    // count of the table was a scan of every command kept, on the event loop, at every scrape (~350 ms for a million
    // commands). Top-level commands only, as before. A migration that rebuilds `commands` must create these
    // triggers again (dropping a table drops its triggers).
    name: 'commands: counts by status kept by triggers (the biogate_commands gauge)',
    sql: `
CREATE TABLE command_counts (status TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO command_counts (status, n) SELECT status, COUNT(*) FROM commands WHERE parent_id IS NULL GROUP BY status;
CREATE TRIGGER commands_counted_insert AFTER INSERT ON commands WHEN NEW.parent_id IS NULL BEGIN
  INSERT INTO command_counts (status, n) VALUES (NEW.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER commands_counted_status AFTER UPDATE OF status ON commands
  WHEN NEW.parent_id IS NULL AND OLD.status IS NOT NEW.status BEGIN
  UPDATE command_counts SET n = n - 1 WHERE status = OLD.status;
  INSERT INTO command_counts (status, n) VALUES (NEW.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER commands_counted_delete AFTER DELETE ON commands WHEN OLD.parent_id IS NULL BEGIN
  UPDATE command_counts SET n = n - 1 WHERE status = OLD.status;
END;
`,
  },
];
