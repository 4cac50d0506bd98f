/**
 * The store contract: what every adapter of the store ports (src/store/ports/) must do, as a test
 * suite (aedes-persistence's abstract.js model). An adapter's test file calls it with a function
 * that opens a fresh, empty store; every case opens its own store and closes it.
 *
 *   storeContract(t, async () => openSqliteStore(':memory:'));
 *
 * The cases live in fixtures/, one file per port named like the port's file in src/store/ports/
 * (store.ts: the Store aggregate), so that `tap test/contract` (which runs every .ts file of a
 * directory but skips fixtures/) does not start them as test files of their own.
 */
import type * as Tap from 'tap';
import type { Store } from '../../src/store/types.js';
import { attendanceContract } from './fixtures/attendance.js';
import { clusterContract } from './fixtures/cluster.js';
import { commandsContract } from './fixtures/commands.js';
import { commandsOutboxContract, devicesOutboxContract } from './fixtures/commands-outbox.js';
import { deviceRecordsContract } from './fixtures/device-records.js';
import { exchangesContract } from './fixtures/exchanges.js';
import { auditLogContract } from './fixtures/audit-log.js';
import { alertsContract } from './fixtures/alerts.js';
import { devicesContract } from './fixtures/devices.js';
import { doorEventsContract } from './fixtures/door-events.js';
import { jobsContract } from './fixtures/jobs.js';
import { locationsContract } from './fixtures/locations.js';
import { orgContract } from './fixtures/org.js';
import { photosContract } from './fixtures/photos.js';
import { aggregateContract } from './fixtures/store.js';
import { caseRunner } from './fixtures/support.js';
import { syncOutboxContract } from './fixtures/sync-outbox.js';
import { templatesContract } from './fixtures/templates.js';
import { terminalSyncContract } from './fixtures/terminal-sync.js';
import { tokensContract } from './fixtures/tokens.js';
import { usersBulkContract, usersContract } from './fixtures/users.js';
import { webhooksContract } from './fixtures/webhooks.js';

export function storeContract(t: Tap.Test, open: () => Promise<Store>): void {
  const define = caseRunner(t, open);
  locationsContract(define);
  tokensContract(define);
  usersContract(define);
  usersBulkContract(define);
  templatesContract(define);
  photosContract(define);
  devicesContract(define);
  commandsContract(define);
  commandsOutboxContract(define);
  devicesOutboxContract(define);
  attendanceContract(define);
  deviceRecordsContract(define);
  exchangesContract(define);
  doorEventsContract(define);
  syncOutboxContract(define);
  terminalSyncContract(define);
  jobsContract(define);
  clusterContract(define);
  webhooksContract(define);
  auditLogContract(define);
  alertsContract(define);
  orgContract(define);
  aggregateContract(define);
}
