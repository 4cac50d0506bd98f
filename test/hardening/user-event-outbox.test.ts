// Issue #32 item 11 for `user.changed`: a user write commits its sync outbox entry with the change, and
// the entry stays until the change's `user.changed` event is stored in the feed (src/sync/outbox.ts).
// The feed's append is made to fail with the adapter's test fault hook (BIOGATE_TEST_FAULTS, real store,
// src/store/test-faults.ts) right after the writes committed: the API still answers, the entries stay,
// and the next start (or the periodic sweep) stores the events. Runs on the store of
// BIOGATE_TEST_API_STORE (SQLite by default; MongoDB with BIOGATE_TEST_API_STORE=mongodb).
import t from 'tap';
import { apiStatus as call, startApp, type StartedApp } from '../helpers/app.js';
import { storeFault } from '../helpers/faults.js';
import { feedEvents } from '../helpers/feed.js';

const fault = storeFault(t, 'cluster.appendEvents');

/** The location's user.changed events as a consumer resuming from seq 0 reads them: `change:pin` each. */
async function userChanges(app: StartedApp, locationId: number): Promise<string[]> {
  const seen = await feedEvents(app.app, locationId);
  return seen.flatMap((e) => (e.type === 'user.changed' ? e.data.pins.map((p) => `${e.data.change}:${p}`) : [])).sort();
}

t.test('user.changed is owed by the outbox entry: an event the feed could not store is stored at the next start', async (t) => {
  const first = await startApp(t, { config: { longpollS: 0 } });
  t.equal(await call(first, 'POST', '/api/users', { pin: 1, first_name: 'Ann' }), 201);
  t.equal(await call(first, 'POST', '/api/users', { pin: 2, first_name: 'Bob' }), 201);
  t.same(await userChanges(first, first.locationId), ['upserted:1', 'upserted:2'], 'announced live');

  fault(true);
  t.equal(await call(first, 'POST', '/api/users', { pin: 3, first_name: 'Cid' }), 201, 'a create answers: its change is committed');
  t.equal(await call(first, 'POST', '/api/users', { pin: 1, is_active: false }), 200, 'a deactivation answers');
  t.equal(await call(first, 'DELETE', '/api/users/2'), 200, 'a delete answers');
  t.equal(await call(first, 'POST', '/api/users/import', [{ pin: 4, first_name: 'Dee' }]), 200, 'an import answers');
  await first.app.outbox.idle();
  await first.app.feed.settled();
  const owed = await first.app.store.syncOutbox.due('9999-12-31T00:00:00.000Z', 100);
  t.same(owed.map((e) => e.pin).sort(), [1, 2, 3, 4], 'every write whose event was not stored keeps its outbox entry');
  await first.close();
  fault(false);

  const second = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  await second.app.outbox.idle();
  t.same(
    await userChanges(second, first.locationId),
    ['deactivated:1', 'deleted:2', 'upserted:1', 'upserted:2', 'upserted:3', 'upserted:4'],
    'after the restart every change is in the feed, with the state it left',
  );
  t.same(await second.app.store.syncOutbox.due('9999-12-31T00:00:00.000Z', 100), [], 'nothing is owed any more');
  await second.close();

  const third = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  await third.app.outbox.idle();
  t.equal((await userChanges(third, first.locationId)).length, 6, 'another restart announces nothing again');
});

t.test('a clear announces its users as deactivated, once, through the outbox', async (t) => {
  const app = await startApp(t, { config: { longpollS: 0 } });
  t.equal(
    await call(
      app,
      'POST',
      '/api/users/import',
      [1, 2, 3].map((pin) => ({ pin, first_name: `U${pin}` })),
    ),
    200,
  );
  await app.app.outbox.idle();
  t.equal(await call(app, 'DELETE', '/api/users/clear', {}), 200);
  await app.app.outbox.idle();
  const changes = await userChanges(app, app.locationId);
  t.same(
    changes.filter((c) => c.startsWith('deactivated')),
    ['deactivated:1', 'deactivated:2', 'deactivated:3'],
    'each cleared user once',
  );
  t.same(await app.app.store.syncOutbox.due('9999-12-31T00:00:00.000Z', 100), [], 'nothing owed');
});

t.test('the sync ops a user write queues are announced pending even when the feed append failed at the time', async (t) => {
  const first = await startApp(t, { config: { longpollS: 0 } });
  t.equal(await call(first, 'POST', '/api/devices', { sn: 'UEVOBX01' }), 201, 'a terminal of the location (never polling)');
  fault(true);
  t.equal(await call(first, 'POST', '/api/users', { pin: 9, first_name: 'Ida' }), 201);
  await first.app.feed.settled();
  const ops = (await first.app.store.commands.list(first.locationId, { command: 'sync-users' }, { limit: 10, offset: 0 })).items;
  t.equal(ops.length, 1, 'its sync op is stored');
  await first.close();
  fault(false);

  const second = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  await second.app.feed.sweep();
  const seen = await feedEvents(second.app, first.locationId);
  const pending = seen.filter(
    (e) => e.type === 'command.updated' && e.data.command['id'] === ops[0]?.id && e.data.command['status'] === 'pending',
  );
  t.equal(pending.length, 1, 'the op is announced pending once, after the restart');
});

t.test("an import's users are announced a thousand at a time, whatever the fan-out's chunks", async (t) => {
  const app = await startApp(t, { config: { longpollS: 0 } });
  for (const sn of ['UEVIMP01', 'UEVIMP02']) t.equal(await call(app, 'POST', '/api/devices', { sn }), 201);
  const users = Array.from({ length: 2_500 }, (_, i) => ({ pin: 1_000 + i, first_name: `U${i}` }));
  t.equal(await call(app, 'POST', '/api/users/import', users), 200);
  await app.app.outbox.idle();
  const events = (await feedEvents(app.app, app.locationId)).filter((e) => e.type === 'user.changed');
  t.same(
    events.map((e) => (e.type === 'user.changed' ? e.data.pins.length : 0)),
    [1_000, 1_000, 500],
    'three events, not one per chunk of ops (250 users with two terminals)',
  );
  t.same(await app.app.store.syncOutbox.due('9999-12-31T00:00:00.000Z', 10), [], 'nothing owed');
});
