/**
 * The store contract: what every adapter of src/store/types.ts must do, as a test suite
 * (aedes-persistence's abstract.js model). An adapter's test file calls it with a function that
 * opens a fresh, empty store; every case opens its own store and closes it.
 *
 *   storeContract(t, async () => openSqliteStore(':memory:'));
 *
 * The cases, one file per port, live in fixtures/ so that `tap test/contract` (which runs every
 * .ts file of a directory) does not start them as test files of their own.
 */
import type * as Tap from 'tap';
import type { Store } from '../../src/store/types.js';
import { attendanceContract } from './fixtures/attendance.js';
import { commandsContract } from './fixtures/commands.js';
import { commandsSyncContract } from './fixtures/commands-sync.js';
import { devicesContract } from './fixtures/devices.js';
import { locationsContract } from './fixtures/locations.js';
import { caseRunner } from './fixtures/support.js';
import { templatesContract } from './fixtures/templates.js';
import { usersContract } from './fixtures/users.js';

export function storeContract(t: Tap.Test, open: () => Promise<Store>): void {
  const define = caseRunner(t, open);
  locationsContract(define);
  usersContract(define);
  templatesContract(define);
  devicesContract(define);
  commandsContract(define);
  commandsSyncContract(define);
  attendanceContract(define);
  define('ping answers while open; close is idempotent and ping then fails', async (t, store) => {
    await t.resolves(store.ping());
    await store.close();
    await store.close();
    await t.rejects(store.ping());
  });
}
