// Issue #12 "Nothing stalls the event loop": POST /api/users/import stores the users (each with its
// sync outbox entry) and answers; the device fan-out is queued in the background by the outbox
// processor in bounded chunks that yield to the event loop, so other requests are served while it
// runs, and a fan-out that fails is finished later from the outbox. Timing is measured by
// test/bench/, not asserted here.
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { TEST_FAULTS_ENV } from '../../src/store/test-faults.js';
import { bearer, fetchJson, jsonBody, startApp, TEST_STORE, waitFor } from '../helpers/app.js';

const ALL = '9999-12-31T00:00:00.000Z';
const previous = process.env[TEST_FAULTS_ENV];
process.env[TEST_FAULTS_ENV] = '';
t.teardown(() => {
  if (previous === undefined) delete process.env[TEST_FAULTS_ENV];
  else process.env[TEST_FAULTS_ENV] = previous;
});

interface Page {
  total: number;
}

t.test('the import answers before its fan-out; requests are served while the fan-out runs', async (t) => {
  const app = await startApp(t);
  const api = async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, {
      ...(body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token))),
      signal: AbortSignal.timeout(60_000),
    });
  // Smaller on the MongoDB leg: the test server (mongo-java-server) writes ops far slower.
  const DEVICES = TEST_STORE === 'mongodb' ? 4 : 10;
  const USERS = TEST_STORE === 'mongodb' ? 1_000 : 4_000;
  for (let i = 0; i < DEVICES; i++)
    t.equal((await api('POST', '/api/devices', { sn: `BGF${String(i).padStart(4, '0')}` })).res.status, 201);

  const imported = await api(
    'POST',
    '/api/users/import',
    Array.from({ length: USERS }, (_, i) => ({ pin: 10_000 + i, first_name: `U${i}` })),
  );
  t.equal(imported.res.status, 200);
  t.match(imported.body, { processed_count: USERS, error_count: 0 });
  t.equal((await fetch(`${app.url}/healthz`)).status, 200, 'another request is served');
  t.ok((await app.app.store.syncOutbox.due(ALL, 1)).length > 0, '... while the fan-out is still running');
  await app.app.outbox.idle();
  t.same(await app.app.store.syncOutbox.due(ALL, 1), [], 'the fan-out finished');
  t.equal(((await api('GET', '/api/commands?status=pending&limit=1')).body as Page).total, USERS * DEVICES, 'one op per user and device');
});

t.test('an import whose fan-out fails is finished from the outbox', async (t) => {
  const app = await startApp(t, { config: { longpollS: 1 } });
  const api = async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  const sims = await Promise.all(
    (['v2', 'v3'] as const).map(async (protocol) => {
      const sn = `BGX${protocol.toUpperCase()}`;
      t.equal((await api('POST', '/api/devices', { sn })).res.status, 201);
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
      return sim;
    }),
  );
  process.env[TEST_FAULTS_ENV] = 'commands.enqueueSync';
  const imported = await api(
    'POST',
    '/api/users/import',
    Array.from({ length: 50 }, (_, i) => ({ pin: 1 + i, first_name: `U${i}`, ...(i % 5 === 0 ? { is_active: false } : {}) })),
  );
  t.equal(imported.res.status, 200, "the users are stored; the fan-out is not the request's");
  await app.app.outbox.idle();
  t.equal((await app.app.store.syncOutbox.due(ALL, 100)).length, 50, 'the failed fan-out left every user owed');
  process.env[TEST_FAULTS_ENV] = '';
  app.app.outbox.kick(); // what the periodic sweep does
  await waitFor(() => sims.every((s) => s.users().size === 40), 30_000, 'both terminals to hold the 40 active users');
  t.pass('converged');
});

t.test('an import before any device is assigned owes nothing; a device assigned later gets the whole roster', async (t) => {
  const app = await startApp(t, { config: { longpollS: 1 } });
  const api = async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  const USERS = TEST_STORE === 'mongodb' ? 300 : 1_200;
  const imported = await api(
    'POST',
    '/api/users/import',
    Array.from({ length: USERS }, (_, i) => ({ pin: 20_000 + i, first_name: `N${i}`, is_active: i % 10 !== 0 })),
  );
  t.match(imported.body, { processed_count: USERS, error_count: 0 });
  await app.app.outbox.idle();
  t.same(await app.app.store.syncOutbox.due(ALL, 1), [], 'the outbox is drained without a device to sync to');
  t.equal(((await api('GET', '/api/commands?limit=1')).body as Page).total, 0, 'no op queued');

  t.equal((await api('POST', '/api/devices', { sn: 'BGN0001' })).res.status, 201);
  const sim = createSimulatedDevice({
    url: app.url,
    sn: 'BGN0001',
    protocol: 'v2',
    pollDelayMs: 20,
    fast: true,
    requestTimeoutMs: 10_000,
    retryDelayMs: 100,
  });
  t.teardown(() => sim.stop());
  sim.start();
  const active = USERS - USERS / 10;
  await waitFor(() => sim.users().size === active, 60_000, 'the terminal holds the active roster');
  t.equal(sim.users().get('20001')?.name, 'N1');
  t.notOk(sim.users().has('20000'), 'an inactive user is not sent');
});
