// A user write and its sync ops are committed together (DESIGN.md "Sync"; issue #13 "Sync is
// consistent, even across crashes"). A real store failure is injected between the two steps with
// the adapter's test fault hook (BIOGATE_TEST_FAULTS, src/store/test-faults.ts): every write still
// commits its outbox entry, a retried write finishes what an earlier one left owed, and after a
// restart on the same store the start-up sweep brings every terminal to the location's active users.
import t, { type Test } from 'tap';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fetchJson, freePort, jsonBody, startApp, waitFor, type StartedApp } from '../helpers/app.js';
import { storeFault } from '../helpers/faults.js';

const fault = storeFault(t, 'commands.enqueueSync');

const api = (app: StartedApp) => async (method: string, path: string, body?: unknown) => {
  const { res, body: parsed } = await fetchJson(
    `${app.url}${path}`,
    body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)),
  );
  return { status: res.status, body: parsed };
};

/** A v2 and a v3 terminal of the app's location, polling `url`. */
async function terminals(t: Test, app: StartedApp, prefix: string): Promise<SimulatedDevice[]> {
  const sims: SimulatedDevice[] = [];
  for (const protocol of ['v2', 'v3'] as const) {
    const sn = `${prefix}${protocol.toUpperCase()}`;
    t.equal((await api(app)('POST', '/api/devices', { sn })).status, 201, `${sn} assigned`);
    const sim = createSimulatedDevice({
      url: app.url,
      sn,
      protocol,
      pollDelayMs: 50,
      fast: true,
      requestTimeoutMs: 10_000,
      retryDelayMs: 100,
    });
    t.teardown(() => sim.stop());
    sim.start();
    sims.push(sim);
  }
  return sims;
}

/** Each terminal holds exactly `pins` (with the given names, when given). */
const holds = (sims: readonly SimulatedDevice[], names: Readonly<Record<string, string>>) => () =>
  sims.every((s) => {
    const held = s.users();
    return held.size === Object.keys(names).length && Object.entries(names).every(([pin, name]) => held.get(pin)?.name === name);
  });

t.test('ops lost between a write and its queueing are recovered at start-up; a retried DELETE converges', async (t) => {
  const port = await freePort();
  const first = await startApp(t, { config: { port, longpollS: 1 } });
  const sims = await terminals(t, first, 'OBX');
  const call = api(first);
  for (const [pin, name] of [
    [1, 'Ann'],
    [2, 'Bob'],
    [3, 'Cid'],
    [4, 'Dee'],
  ] as const)
    t.equal((await call('POST', '/api/users', { pin, first_name: name })).status, 201);
  await waitFor(holds(sims, { 1: 'Ann', 2: 'Bob', 3: 'Cid', 4: 'Dee' }), 30_000, 'the first roster on both terminals');
  // Their entries go once their user.changed is stored, after the requests answered.
  await first.app.outbox.idle();

  // The store fails every sync-op write from here on: the user writes still commit, with their outbox entries.
  fault(true);
  t.equal((await call('DELETE', '/api/users/1')).status, 200, 'delete committed');
  t.equal(
    (await call('DELETE', '/api/users/1')).status,
    200,
    'a retried DELETE whose ops are still owed converges instead of answering 404',
  );
  t.equal((await call('POST', '/api/users', { pin: 2, is_active: false })).status, 200, 'deactivation committed');
  t.equal((await call('POST', '/api/users', { pin: 3, first_name: 'Cyd' })).status, 200, 'update committed');
  t.equal((await call('POST', '/api/users', { pin: 5, first_name: 'Eve' })).status, 201, 'create committed');
  t.equal((await call('GET', '/api/users/1')).status, 404, 'the deleted user is gone from the API');
  const owed = await first.app.store.syncOutbox.due('9999-12-31T00:00:00.000Z', 100);
  t.same(owed.map((e) => e.pin).sort(), [1, 2, 3, 5], 'every change left its outbox entry');

  // "Crash": the node stops with the ops still owed; it comes back on the same store, fault cleared.
  await first.close();
  fault(false);
  const second = await startApp(t, { storeUrl: first.storeUrl, config: { port, longpollS: 1 } });
  await waitFor(holds(sims, { 3: 'Cyd', 4: 'Dee', 5: 'Eve' }), 30_000, 'every terminal to hold exactly the active users after the restart');
  await second.app.outbox.idle();
  t.same(await second.app.store.syncOutbox.due('9999-12-31T00:00:00.000Z', 100), [], 'nothing left owed');
  t.equal((await call('DELETE', '/api/users/1')).status, 404, 'once its ops are queued, a deleted user is simply not found');
});

t.test('a retried write that changes nothing queues what the earlier write left owed', async (t) => {
  const app = await startApp(t, { config: { longpollS: 1 } });
  const sims = await terminals(t, app, 'RTY');
  const call = api(app);
  t.equal((await call('POST', '/api/users', { pin: 7, first_name: 'Gus' })).status, 201);
  await waitFor(holds(sims, { 7: 'Gus' }), 30_000, 'the first user on both terminals');

  fault(true);
  t.equal((await call('POST', '/api/users', { pin: 8, first_name: 'Hal' })).status, 201, 'created; its ops could not be queued');
  t.equal((await call('POST', '/api/users', { pin: 7, is_active: false })).status, 200, 'deactivated; its ops could not be queued');
  fault(false);
  // The integrator retries both writes: nothing changes in the store, the owed ops are queued now.
  t.equal((await call('POST', '/api/users', { pin: 8, first_name: 'Hal' })).status, 200, 'retry answers "unchanged"');
  t.equal((await call('POST', '/api/users', { pin: 7, is_active: false })).status, 200, 'retry answers "unchanged"');
  await waitFor(holds(sims, { 8: 'Hal' }), 30_000, 'both terminals to converge without a restart');
  t.pass('converged');
});
