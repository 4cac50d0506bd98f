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
import { commandsLifecycleContract } from './fixtures/commands-lifecycle.js';
import { deviceRecordsContract } from './fixtures/device-records.js';
import { devicesContract } from './fixtures/devices.js';
import { doorEventsContract } from './fixtures/door-events.js';
import { locationsContract } from './fixtures/locations.js';
import { at, caseRunner, twoLocations, type Define } from './fixtures/support.js';
import { syncStateContract } from './fixtures/sync-state.js';
import { clusterContract, unitOfWorkContract } from './fixtures/cluster.js';
import { templatesContract } from './fixtures/templates.js';
import { usersContract } from './fixtures/users.js';
import { webhooksContract } from './fixtures/webhooks.js';

export function storeContract(t: Tap.Test, open: () => Promise<Store>): void {
  const define = caseRunner(t, open);
  locationsContract(define);
  usersContract(define);
  templatesContract(define);
  devicesContract(define);
  commandsContract(define);
  commandsSyncContract(define);
  commandsLifecycleContract(define);
  attendanceContract(define);
  deviceRecordsContract(define);
  doorEventsContract(define);
  usersBulkContract(define);
  syncStateContract(define);
  clusterContract(define);
  unitOfWorkContract(define);
  webhooksContract(define);
  define('locations: concurrent bootstrap claims have exactly one winner, once (issue #14)', async (t, store) => {
    const first = await Promise.all(Array.from({ length: 8 }, (_, i) => store.locations.claimBootstrap(`node-${i}`, at(i))));
    t.equal(first.filter(Boolean).length, 1, 'one of eight concurrent claims wins');
    t.same(await Promise.all([store.locations.claimBootstrap('node-0', at(9)), store.locations.claimBootstrap('late', at(9))]), [false, false], 'and nobody after it, the winner included');
    t.equal(await store.locations.count(), 0, 'claiming creates no location (the winner does)');
  });
  define('ping answers while open; close is idempotent and ping then fails', async (t, store) => {
    await t.resolves(store.ping());
    await store.close();
    await store.close();
    await t.rejects(store.ping());
  });
}

/**
 * upsertMany at import size (the API takes 10,000 users per request): the same per-item answers
 * as one upsert after another, and each user created once when batches race. Found by the MongoDB
 * leg of the API tests, where an item-by-item upsertMany took 50 s for 10,000 users.
 */
function usersBulkContract(define: Define): void {
  define('users: upsertMany in bulk: ids in input order, exact created/changed, no-ops write nothing', async (t, store) => {
    const { a } = await twoLocations(store);
    const before = await store.users.upsertMany(a.id, Array.from({ length: 300 }, (_, i) => ({ pin: i + 1, fields: { first_name: 'Old' } })), at(1));
    const items = [
      ...Array.from({ length: 300 }, (_, i) => ({ pin: i + 1, fields: { first_name: i % 2 === 0 ? 'New' : 'Old' } })),
      ...Array.from({ length: 900 }, (_, i) => ({ pin: 2000 - i, fields: { card_no: `c${i}` } })),
      { pin: 2000, fields: { card_no: 'again' } },
    ];
    const out = await store.users.upsertMany(a.id, items, at(2));
    t.equal(out.length, items.length);
    const known = out.slice(0, 300);
    t.ok(known.every((r, i) => r.user.id === before[i]?.user.id && !r.created), 'known pins keep their users');
    t.same(known.filter((r) => r.changed).map((r) => r.user.pin), Array.from({ length: 150 }, (_, i) => 2 * i + 1), 'changed: exactly the pins whose name differed');
    t.ok(known.every((r) => r.user.updated_at === (r.changed ? at(2) : null)), 'updated_at only where something changed');
    const created = out.slice(300, 1200);
    t.ok(created.every((r, i) => r.created && r.changed && r.user.pin === 2000 - i && r.user.card_no === `c${i}` && r.user.created_at === at(2)), 'new pins created with their fields');
    const newIds = created.map((r) => r.user.id);
    t.ok(newIds.every((id, i) => i === 0 || id > (newIds[i - 1] as number)), 'new users get ascending ids in input order');
    t.same([out[1200]?.user.id, out[1200]?.created, out[1200]?.changed, out[1200]?.user.card_no], [newIds[0], false, true, 'again'], 'a repeated pin updates the user its first item created');
    t.equal(await store.users.count(a.id), 1200);
    t.same(await store.users.get(a.id, 2), { ...before[1]?.user }, 'a no-op left the stored user as it was');
  });

  define('users: concurrent upsertMany batches over the same pins create each user once', async (t, store) => {
    const { a } = await twoLocations(store);
    const batch = (first_name: string) => Array.from({ length: 200 }, (_, i) => ({ pin: i + 1, fields: { first_name } }));
    const runs = await Promise.all(['A', 'B', 'C', 'D'].map((name, k) => store.users.upsertMany(a.id, batch(name), at(k))));
    for (let i = 0; i < 200; i++) {
      const answers = runs.map((r) => r[i]);
      t.equal(answers.filter((r) => r?.created).length, 1, `pin ${i + 1}: created once`);
      t.equal(new Set(answers.map((r) => r?.user.id)).size, 1, `pin ${i + 1}: one user`);
      if (!answers.every((r, k) => r?.changed === true && r.user.first_name === 'ABCD'[k])) t.fail(`pin ${i + 1}: every batch wrote its own value`);
    }
    t.equal(await store.users.count(a.id), 200);
  });
}
