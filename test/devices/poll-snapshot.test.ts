// Issue #20: an idle poll is answered from the actor's snapshot of its device and location and a
// "nothing pending" hint, not from five store reads, and a held poll does not look at the store on a
// timer while the event feed can be trusted. These tests fail if that serves stale data: a change
// made through the API, by another node, by another process on the SQLite file, or behind every
// event's back must reach the terminal (the last within RuntimeConfig.pollTrust).
import t from 'tap';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { ADMIN_TOKEN, bearer, fetchJson, jsonBody, startApp, TEST_STORE, waitFor, type StartedApp, type Teardown } from '../helpers/app.js';
import { startControlledMongo } from '../helpers/mongo-control.js';

const api = (app: StartedApp, method: string, path: string, body?: unknown, token = app.token) =>
  fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));

/** One raw `getrequest`; `abortMs`: give up (a held poll) after that long, answering undefined. */
async function poll(app: StartedApp, sn: string, abortMs = 10_000, key?: string): Promise<{ status: number; text: string } | undefined> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), abortMs);
  try {
    const res = await fetch(`${app.url}/iclock/getrequest?SN=${sn}${key ? `&ComKey=${key}` : ''}`, { signal: ac.signal });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    if (ac.signal.aborted) return undefined;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a comm key set through the API is required on the very next poll (device.updated drops the snapshot)', async (t) => {
  const app = await startApp(t);
  t.equal((await api(app, 'POST', '/api/devices', { sn: 'SNAP0001' })).res.status, 201);
  for (let i = 0; i < 3; i++)
    t.same(await poll(app, 'SNAP0001'), { status: 200, text: 'OK' }, 'idle polls, answered from the snapshot after the first');
  t.equal(
    (await api(app, 'POST', '/api/devices', { sn: 'SNAP0001', comm_key: '20261124' })).res.status,
    200,
    're-assigned with a comm key',
  );
  t.equal((await poll(app, 'SNAP0001'))?.status, 401, 'the next poll without the key is refused');
  t.same(await poll(app, 'SNAP0001', 10_000, '20261124'), { status: 200, text: 'OK' }, 'with it, answered');
});

t.test('a command queued through the API goes out on the very next poll after idle polls (the pending hint is dropped)', async (t) => {
  const app = await startApp(t);
  t.equal((await api(app, 'POST', '/api/devices', { sn: 'SNAP0002' })).res.status, 201);
  for (let i = 0; i < 3; i++) t.same(await poll(app, 'SNAP0002'), { status: 200, text: 'OK' });
  const { res, body } = await api(app, 'POST', '/api/commands', { sn: 'SNAP0002', command: 'info' });
  t.equal(res.status, 201);
  t.match((await poll(app, 'SNAP0002'))?.text, new RegExp(`^C:${(body as { id: number }).id}:INFO`), 'delivered at once');
});

t.test("a command written behind every event's back is still delivered, within the trust period", async (t) => {
  const trustedMs = 1_500;
  const app = await startApp(t, { runtime: { pollTrust: { untrustedMs: 1_000, trustedMs } } });
  t.equal((await api(app, 'POST', '/api/devices', { sn: 'SNAP0003' })).res.status, 201);
  t.same(await poll(app, 'SNAP0003'), { status: 200, text: 'OK' }, 'idle: "nothing pending" noted');
  // Straight into the store, on the gateway's own connection: no mailbox.changed, no feed event, no
  // other process's write (a bug of a writer that announces nothing).
  const command = await app.app.store.commands.create(
    { location_id: app.locationId, sn: 'SNAP0003', command: 'info', params: null, priority: 0, origin: 'api', expires_at: null },
    new Date().toISOString(),
  );
  await sleep(trustedMs + 100);
  t.match((await poll(app, 'SNAP0003'))?.text, new RegExp(`^C:${command.id}:INFO`), 'the store was asked again');
});

t.test(
  'SQLite: a command another process writes without announcing it reaches a held poll (the file is watched)',
  { skip: TEST_STORE === 'mongodb' && 'SQLite only: another connection to the same file' },
  async (t) => {
    // Held for 30 s and trusted for 60: only the watch of the file can bring the command in time.
    const app = await startApp(t, { config: { longpollS: 30 }, runtime: { pollTrust: { untrustedMs: 1_000, trustedMs: 60_000 } } });
    t.ok(app.app.feed.clustered, 'the feed follows the other processes on the file');
    t.equal((await api(app, 'POST', '/api/devices', { sn: 'SNAP0006' })).res.status, 201);
    t.equal(await poll(app, 'SNAP0006', 300), undefined, 'assigned and idle: the poll is held');
    const held = poll(app, 'SNAP0006', 20_000);
    await waitFor(() => app.app.hub.presence.isOnline('SNAP0006'), 5_000, 'the poll held');
    await sleep(200);
    const other = openSqliteStore(app.storePath as string);
    const command = await other.commands.create(
      { location_id: app.locationId, sn: 'SNAP0006', command: 'info', params: null, priority: 0, origin: 'api', expires_at: null },
      new Date().toISOString(),
    );
    await other.close();
    t.match((await held)?.text, new RegExp(`^C:${command.id}:INFO`), 'the held poll answered with it, long before its 30 s');
  },
);

t.test('a disabled location and an unassigned device are seen on the next poll: answered at once, not held', async (t) => {
  const app = await startApp(t, { config: { adminToken: ADMIN_TOKEN, longpollS: 30 } });
  for (const sn of ['SNAP0004', 'SNAP0005']) t.equal((await api(app, 'POST', '/api/devices', { sn })).res.status, 201);
  t.equal(await poll(app, 'SNAP0004', 300), undefined, 'assigned and idle: the poll is held');
  t.equal(await poll(app, 'SNAP0005', 300), undefined, 'assigned and idle: the poll is held');

  t.equal((await api(app, 'DELETE', '/api/devices/SNAP0005')).res.status, 200, 'unassigned');
  t.same(await poll(app, 'SNAP0005', 5_000), { status: 200, text: 'OK' }, 'unassigned: answered at once');

  t.equal(
    (await api(app, 'PATCH', `/admin/locations/${app.locationId}`, { is_active: false }, ADMIN_TOKEN)).res.status,
    200,
    'location disabled',
  );
  t.same(await poll(app, 'SNAP0004', 5_000), { status: 200, text: 'OK' }, 'its terminal: answered at once');
});

/** Two nodes on one MongoDB database (change streams), or why not. */
async function twoNodes(t: Teardown): Promise<StartedApp[] | string> {
  const mongo = await startControlledMongo(t);
  if (typeof mongo === 'string') return mongo;
  const storeUrl = `${mongo.server}/biogate_snapshot_${process.pid}`;
  const nodes = [
    await startApp(t, { storeUrl, config: { nodeId: 'node-a', bootstrap: 'on' } }),
    await startApp(t, { storeUrl, config: { nodeId: 'node-b', bootstrap: 'off' } }),
  ];
  for (const n of nodes) await waitFor(() => n.app.feed.clustered, 5_000, 'change stream open');
  return nodes;
}

t.test('two nodes: a command queued on A reaches the terminal polling B, a comm key set on A is required by B', async (t) => {
  const nodes = await twoNodes(t);
  if (typeof nodes === 'string') return t.plan(0, nodes); // a visible skip
  const [a, b] = nodes as [StartedApp, StartedApp];
  const token = a.token;
  t.equal((await api(a, 'POST', '/api/devices', { sn: 'SNAPNODE1' }, token)).res.status, 201);
  for (let i = 0; i < 3; i++) t.same(await poll(b, 'SNAPNODE1'), { status: 200, text: 'OK' }, 'idle on B');

  const { body } = await api(a, 'POST', '/api/commands', { sn: 'SNAPNODE1', command: 'info' }, token);
  const id = (body as { id: number }).id;
  let got: string | undefined;
  const deadline = Date.now() + 5_000;
  while (got === undefined && Date.now() < deadline) {
    const r = await poll(b, 'SNAPNODE1');
    if (r?.text.startsWith(`C:${id}:`)) got = r.text;
    else await sleep(50);
  }
  t.match(got, /^C:\d+:INFO/, 'B delivered the command queued on A');

  t.equal((await api(a, 'POST', '/api/devices', { sn: 'SNAPNODE1', comm_key: '11223344' }, token)).res.status, 200);
  let refused = false;
  while (!refused && Date.now() < deadline + 5_000) {
    refused = (await poll(b, 'SNAPNODE1'))?.status === 401;
    if (!refused) await sleep(50);
  }
  t.ok(refused, 'B requires the comm key set on A');

  // The API's kept credentials (issue #20): a token revoked on A is refused by B at once.
  const issued = await a.app.locations.issueToken({ location_id: a.locationId });
  const meOnB = async () => (await api(b, 'GET', '/api/me', undefined, issued.token)).res.status;
  t.equal(await meOnB(), 200, 'B accepts the new token (and keeps it)');
  await a.app.locations.revokeToken(issued.id);
  let refusedOnB = false;
  for (const until = Date.now() + 5_000; !refusedOnB && Date.now() < until;) {
    refusedOnB = (await meOnB()) === 401;
    if (!refusedOnB) await sleep(50);
  }
  t.ok(refusedOnB, 'B refuses the token A revoked');
});

t.test("idle polls answered from the actor's state still check the comm key (throttled like any) and count as seen", async (t) => {
  const app = await startApp(t);
  t.equal((await api(app, 'POST', '/api/devices', { sn: 'SNAP0007', comm_key: '4242' })).res.status, 201);
  for (let i = 0; i < 5; i++) t.same(await poll(app, 'SNAP0007', 10_000, '4242'), { status: 200, text: 'OK' }, 'with its key: answered');
  const seen = await api(app, 'GET', '/api/devices/SNAP0007');
  t.match(seen.body, { serial_number: 'SNAP0007', is_active: true }, 'online: the idle polls counted as seen');
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await poll(app, 'SNAP0007', 10_000, '9999'))?.status ?? 0);
  t.same(statuses, [401, 401, 401, 401], 'a wrong key: refused every time');
  t.equal(
    (await poll(app, 'SNAP0007', 10_000, '4242'))?.status,
    401,
    'after repeated wrong keys the serial is throttled: even the right key waits',
  );
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  t.match(metrics, /biogate_device_auth_refused_total\{[^}]*reason="comm_key"[^}]*\} 4\b/, 'each wrong key counted once');
});
