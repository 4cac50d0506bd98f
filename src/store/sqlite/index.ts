/** The embedded store: SQLite through better-sqlite3, the zero-setup default. */
import { sqliteAccessLevels, sqliteHolidays, sqliteSchedules } from './access.js';
import { sqliteAreas } from './areas.js';
import type { Store } from '../types.js';
import { sqliteAttendance } from './attendance.js';
import { startCheckpointer } from './checkpointer.js';
import { sqliteCluster } from './cluster.js';
import { sqliteCommands } from './commands.js';
import { openDatabase } from './db.js';
import { watchLocks, type LockWatch } from './lock-watch.js';
import { sqliteExchanges } from './exchanges.js';
import { sqliteAuditLog } from './audit-log.js';
import { sqliteAlerts } from './alerts.js';
import { sqliteOrgNames } from './org-names.js';
import { sqliteSecrets } from './secrets.js';
import { sqliteDeviceRecords } from './device-records.js';
import { sqliteDevices } from './devices.js';
import { sqliteDoorEvents } from './door-events.js';
import { sqliteLocations, sqliteTokens } from './locations.js';
import { sqlitePhotos } from './photos.js';
import { sqliteTemplates } from './templates.js';
import { sqliteUsers } from './users.js';
import { sqliteJobs, sqliteSyncOutbox } from './sync-state.js';
import { sqliteTerminalSync } from './terminal-sync.js';
import { sqliteWebhooks } from './webhooks.js';

/** The SQLite store, with what src/store/open.ts wires to the outage guard. */
export interface SqliteStore extends Store {
  /** Fed every error of a store call (see ./lock-watch.ts). */
  readonly locks: LockWatch;
}

export function openSqliteStore(path: string): SqliteStore {
  const db = openDatabase(path);
  const checkpointer = path === ':memory:' ? undefined : startCheckpointer(db, path);
  const locks = watchLocks(db);
  const photos = sqlitePhotos(db, path);
  /** Set by the first close(); a later call (the forced shutdown path while the orderly one runs) waits for the same close. */
  let closing: Promise<void> | undefined;
  /** A unit of work's transaction is open (see `isolated`). */
  let unitOpen = false;
  /**
   * One transaction around `fn` (see Store.unitOfWork). `atomic`: when `fn` throws before it waited for anything
   * but the store, what it wrote is rolled back instead of committed. Nested in an open transaction, `fn` is
   * part of that one.
   */
  async function runUnit<T>(fn: () => Promise<T>, atomic: boolean): Promise<T> {
    if (db.inTransaction) return fn();
    db.exec('BEGIN IMMEDIATE');
    unitOpen = true;
    let failed: { err: unknown } | undefined;
    const end = (how: 'COMMIT' | 'ROLLBACK') => {
      const ours = unitOpen;
      unitOpen = false;
      if (!ours || !db.inTransaction) return;
      try {
        db.exec(how);
      } catch (err) {
        // A COMMIT that fails (a deferred constraint, a full disk) must not leave the transaction
        // open for later writes to vanish into: it is rolled back and this unit fails with it.
        db.exec('ROLLBACK');
        failed ??= { err };
      }
    };
    // `fn` waited for something other than the store: other requests' writes must not wait in
    // this transaction for it (their replies would leave before their data is durable).
    const yielded = setImmediate(() => end('COMMIT'));
    let threw = false;
    try {
      return await fn();
    } catch (err) {
      threw = true;
      throw err;
    } finally {
      clearImmediate(yielded);
      end(atomic && threw ? 'ROLLBACK' : 'COMMIT');
      if (failed) throw failed.err; // eslint-disable-line no-unsafe-finally -- the unit's outcome is its commit's
    }
  }
  return {
    kind: 'sqlite',
    locations: sqliteLocations(db),
    tokens: sqliteTokens(db),
    users: sqliteUsers(db),
    areas: sqliteAreas(db),
    schedules: sqliteSchedules(db),
    accessLevels: sqliteAccessLevels(db),
    holidays: sqliteHolidays(db),
    templates: sqliteTemplates(db),
    photos,
    devices: sqliteDevices(db),
    commands: sqliteCommands(db),
    attendance: sqliteAttendance(db),
    deviceRecords: sqliteDeviceRecords(db),
    exchanges: sqliteExchanges(db),
    doorEvents: sqliteDoorEvents(db),
    syncOutbox: sqliteSyncOutbox(db),
    terminalSync: sqliteTerminalSync(db),
    jobs: sqliteJobs(db),
    cluster: sqliteCluster(db),
    webhooks: sqliteWebhooks(db),
    auditLog: sqliteAuditLog(db),
    alerts: sqliteAlerts(db),
    orgNames: sqliteOrgNames(db),
    secrets: sqliteSecrets(db),
    locks,
    unitOfWork: (fn) => runUnit(fn, false),
    atomic: (fn) => runUnit(fn, true),
    isolated() {
      return unitOpen && db.inTransaction;
    },
    async ping() {
      if (closing) throw new Error('store is closed');
      db.prepare('SELECT 1').get();
    },
    close() {
      return (closing ??= (async () => {
        locks.stop();
        await checkpointer?.stop(); // first: the last connection to close checkpoints the log and removes it
        db.close();
        photos.close();
      })());
    },
  };
}
