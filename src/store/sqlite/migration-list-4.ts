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
];
