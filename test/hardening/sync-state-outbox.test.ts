// Issue #32 item 11 for `device.sync`: a terminal's sync state change is stored by compare-and-set
// with the outbox marker of its event, cleared once the feed stored the event (src/sync/terminal-state.ts).
// The feed's append is made to fail with the adapter's test fault hook (BIOGATE_TEST_FAULTS, real store)
// when the change happens: the marker stays, and the outbox sweep (the `sync-state-outbox` job, run here
// directly on the restarted gateway's store and bus) announces the state. Runs on the store of
// BIOGATE_TEST_API_STORE (SQLite by default; MongoDB with BIOGATE_TEST_API_STORE=mongodb).
import t from 'tap';
import { createLogger } from '../../src/log.js';
import { createTerminalState } from '../../src/sync/terminal-state.js';
import { systemClock } from '../../src/clock.js';
import { apiStatus as call, startApp, type StartedApp } from '../helpers/app.js';
import { storeFault } from '../helpers/faults.js';
import { feedEvents } from '../helpers/feed.js';

const fault = storeFault(t, 'cluster.appendEvents');

/** The device.sync states of `sn` in the location's feed, as a consumer resuming from seq 0 reads them. */
async function syncStates(app: StartedApp, locationId: number, sn: string): Promise<string[]> {
  const seen = await feedEvents(app.app, locationId);
  return seen.flatMap((e) => (e.type === 'device.sync' && e.data.sn === sn ? [String(e.data.sync.state)] : []));
}

t.test('a sync state change whose device.sync event could not be stored is announced by the outbox sweep', async (t) => {
  const first = await startApp(t, { config: { longpollS: 0 } });
  const sn = 'SYNCOBX1';
  t.equal(await call(first, 'POST', '/api/devices', { sn }), 201, 'a terminal that never connects');
  fault(true);
  t.equal(await call(first, 'POST', '/api/users', { pin: 1, first_name: 'Ann' }), 201, 'a user: a line is owed to the terminal');
  let stored: string | undefined;
  for (let i = 0; i < 200 && stored !== 'syncing'; i++) {
    await new Promise((r) => setTimeout(r, 25));
    stored = (await first.app.store.terminalSync.get([sn]))[0]?.state;
  }
  t.equal(stored, 'syncing', 'the new state is stored');
  t.same(
    (await first.app.store.terminalSync.unannounced('9999-12-31T00:00:00.000Z', 10)).map((r) => r.sn),
    [sn],
    'its event is owed',
  );
  t.notOk((await syncStates(first, first.locationId, sn)).includes('syncing'), 'and not in the feed');
  await first.close();
  fault(false);

  const second = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  const { store, bus } = second.app;
  const terminals = createTerminalState({ store, clock: systemClock, bus, log: createLogger({ level: 'silent' }) });
  t.teardown(() => terminals.stop());
  t.equal(await terminals.sweepUnannounced('9999-12-31T00:00:00.000Z'), 1, 'the sweep finds the owed event');
  t.ok((await syncStates(second, first.locationId, sn)).includes('syncing'), 'the state reaches the feed');
  t.same(await store.terminalSync.unannounced('9999-12-31T00:00:00.000Z', 10), [], 'nothing owed any more');
  t.equal(await terminals.sweepUnannounced('9999-12-31T00:00:00.000Z'), 0, 'a second sweep has nothing to do');
});
