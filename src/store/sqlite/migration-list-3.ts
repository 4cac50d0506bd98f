/** Schema migrations 17 onwards (see migrations.ts). Never edit a released migration: add the next one here. */
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
];
