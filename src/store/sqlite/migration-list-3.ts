/** Schema migrations 17 onwards (see migrations.ts). Never edit a released migration: add the next one here. */
import type { Migration } from './migration.js';

export const MIGRATIONS_FROM_17: readonly Migration[] = [
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
];
