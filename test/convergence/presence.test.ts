// Issue #31 item 5, presence everywhere: a terminal polling any node is online on every node's API, with
// no `offline` sample while it moves between nodes (two gateways on one MongoDB: the test server of
// BIOGATE_TEST_MONGO_URL); a terminal assigned while it is already polling is online to its location at
// once (MQTT availability, the `device.online` event and its webhook), assigned through the API or the CLI.
import t from 'tap';
import { createServer, connect as tcpConnect, type Socket } from 'node:net';
import { MongoClient } from 'mongodb';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { connect } from '../bridge/mqtt-client.js';
import { cli } from '../helpers/cli.js';
import {
  ADMIN_TOKEN,
  bearer,
  fakeClock,
  fetchJson,
  jsonBody,
  startApp,
  waitFor,
  type FakeClock,
  type StartedApp,
  type Teardown,
} from '../helpers/app.js';
import { startControlledMongo } from '../helpers/mongo-control.js';
import { startReceiver } from '../webhooks/receiver.js';

const MONGO = process.env['BIOGATE_TEST_MONGO_URL'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const api = (app: StartedApp, method: string, path: string, body?: unknown, token = app.token) =>
  fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));
const poll = async (app: StartedApp, sn: string) => (await fetch(`${app.url}/iclock/getrequest?SN=${sn}`)).text();

let databases = 0;

/**
 * Two gateway nodes on one fresh MongoDB database, or why not: on a test server of this test's own
 * (deploy/test-mongo, as the other two-node tests), else on the one of BIOGATE_TEST_MONGO_URL.
 */
export async function twoNodes(
  t: Teardown,
  config: Record<string, unknown>,
  clock?: FakeClock,
): Promise<[StartedApp, StartedApp] | string> {
  const own = await startControlledMongo(t);
  const server = typeof own === 'string' ? MONGO : `${own.server}/biogate_test`;
  if (!server) return `two nodes need a MongoDB server: ${String(own)}, and BIOGATE_TEST_MONGO_URL is not set`;
  const name = `biogate_test_presence_${process.pid}_${databases++}`;
  const storeUrl = server.replace(/^(mongodb:\/\/[^/?]*)(\/[^?]*)?/, `$1/${name}`);
  const at = clock ? { clock } : {};
  const a = await startApp(t, { storeUrl, ...at, config: { ...config, nodeId: `${name}-a`, bootstrap: 'on' } });
  const b = await startApp(t, { storeUrl, ...at, config: { ...config, nodeId: `${name}-b`, bootstrap: 'off' } });
  t.teardown(async () => {
    await b.close();
    await a.close();
    const client = new MongoClient(server);
    try {
      await client.db(name).dropDatabase();
    } finally {
      await client.close();
    }
  });
  for (const n of [a, b]) await waitFor(() => n.app.feed.clustered, 5_000, 'change stream open');
  return [a, b];
}

t.test('two nodes: a terminal moving from node B to node A is online on both nodes all along', async (t) => {
  // One fake clock for both nodes: the terminal's requests and the samples happen at chosen instants, so
  // how fast this machine runs changes nothing. The threshold (5 s) is as long as the write-behind period
  // of last_seen: neither node can lean on the store's value alone.
  const clock = fakeClock();
  const nodes = await twoNodes(t, { onlineThresholdS: 5, longpollS: 0 }, clock);
  if (typeof nodes === 'string') return t.plan(0, nodes); // a visible skip
  const [a, b] = nodes;
  const SN = 'PRESMOVE01';
  t.equal((await api(a, 'POST', '/api/devices', { sn: SN })).res.status, 201);
  const heardOnA: AnyFeedEvent[] = [];
  a.app.feed.subscribe({ locationId: a.locationId }, (e) => void heardOnA.push(e));
  const samples: { node: string; at: string; online: boolean }[] = [];
  const sample = async () => {
    for (const [node, app] of [
      ['A', a],
      ['B', b],
    ] as const) {
      const { body } = await api(app, 'GET', `/api/devices/${SN}`, undefined, a.token);
      samples.push({ node, at: clock.now().toISOString(), online: (body as { is_active: boolean }).is_active });
    }
  };

  // On B: a request every second for 5 s (B writes its last_seen behind, as it does).
  for (let i = 0; i < 5; i++) {
    await poll(b, SN);
    if (i === 0) {
      await waitFor(() => b.app.hub.presence.isOnline(SN), 10_000, 'online on B');
      // Its first contact reaches A through the event feed (a change stream).
      await waitFor(() => heardOnA.some((e) => e.type === 'device.online' && e.data.sn === SN), 30_000, "B's device.online on A");
      await b.app.hub.presence.flush();
    }
    await sample();
    clock.advance(1_000);
  }
  // The load balancer moves it to A: its next request is A's, and B lets it go.
  await poll(a, SN);
  await waitFor(() => !b.app.hub.presence.isOnline(SN), 30_000, 'B let the terminal go');
  for (let i = 0; i < 6; i++) {
    clock.advance(i === 0 ? 500 : 1_000);
    await sample();
    await poll(a, SN);
  }
  t.same(
    samples.filter((s) => !s.online),
    [],
    `no offline sample on either node (${samples.length} samples)`,
  );
});

t.test(
  'a terminal assigned while it polls is online to its location at once: MQTT availability, device.online and its webhook',
  async (t) => {
    const app = await startApp(t, {
      config: { mqtt: 'embedded', mqttPort: 0, adminToken: ADMIN_TOKEN, longpollS: 0, webhookAllowPrivate: 'on', webhookAllowHttp: 'on' },
    });
    const rx = await startReceiver(t);
    t.equal((await api(app, 'POST', '/api/webhooks', { url: rx.url, events: ['device.online'] })).res.status, 201);
    const feed: AnyFeedEvent[] = [];
    app.app.feed.subscribe({ locationId: app.locationId }, (e) => void feed.push(e));
    const w = await connect(t, `mqtt://127.0.0.1:${app.app.mqtt?.port ?? 0}`, { username: String(app.locationId), password: app.token });
    await w.client.subscribeAsync(`biogate/${app.locationId}/devices/+/availability`);

    const viaApi = 'ASSIGNAPI1';
    const viaCli = 'ASSIGNCLI1';
    for (const sn of [viaApi, viaCli]) t.equal(await poll(app, sn), 'OK', `${sn} polls, unassigned`);
    await waitFor(() => app.app.hub.presence.isOnline(viaApi) && app.app.hub.presence.isOnline(viaCli), 5_000, 'seen');
    // Polling on: the terminals stay online while they are assigned.
    let polling = true;
    const terminals = (async () => {
      while (polling) {
        for (const sn of [viaApi, viaCli]) await poll(app, sn);
        await sleep(200);
      }
    })();
    t.teardown(async () => {
      polling = false;
      await terminals;
    });

    t.equal((await api(app, 'POST', '/api/devices', { sn: viaApi })).res.status, 201, 'assigned through the API');
    const cliRun = await cli(['device', 'assign', '--location', String(app.locationId), '--sn', viaCli], { BIOGATE_STORE: app.storeUrl });
    t.equal(cliRun.code, 0, 'assigned through the CLI');
    for (const sn of [viaApi, viaCli]) {
      await w.until(`biogate/${app.locationId}/devices/${sn}/availability`, (m) => m.text === 'online', `${sn}: availability online`);
      await waitFor(() => feed.some((e) => e.type === 'device.online' && e.data.sn === sn), 5_000, `${sn}: device.online in the feed`);
      await waitFor(() => rx.received.some((r) => r.body.includes('"device.online"') && r.body.includes(sn)), 10_000, `${sn}: webhook`);
      t.pass(`${sn}: availability online, device.online and its webhook`);
    }
    t.equal(feed.filter((e) => e.type === 'device.online' && e.data.sn === viaApi).length, 1, 'announced once');
  },
);

/**
 * A TCP relay to a node whose way back can be cut silently: after `cut()` the node's replies are read and
 * dropped and the terminal's side may go away unnoticed, as a half-open connection looks to the node.
 */
async function relay(t: Teardown, to: StartedApp): Promise<{ url: string; cut(): void }> {
  let cut = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const up = tcpConnect(to.port, '127.0.0.1');
    for (const s of [client, up]) {
      sockets.add(s);
      s.on('error', () => undefined);
    }
    client.on('data', (d) => void up.write(d));
    up.on('data', (d) => void (cut || client.write(d)));
    client.on('close', () => void (cut || up.destroy()));
    up.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, cut: () => void (cut = true) };
}

t.test('two nodes: commands B wrote into a half-open connection go again on A (repeatable) or fail at once (the rest)', async (t) => {
  const nodes = await twoNodes(t, { longpollS: 20 });
  if (typeof nodes === 'string') return t.plan(0, nodes);
  const [a, b] = nodes;
  const SN = 'HALFOPEN01';
  t.equal((await api(a, 'POST', '/api/devices', { sn: SN })).res.status, 201);
  const queue = async (body: Record<string, unknown>) =>
    ((await api(a, 'POST', '/api/commands', { sn: SN, ...body })).body as { id: number }).id;
  const info = await queue({ command: 'info', priority: 10 });
  const door = await queue({ command: 'clear-alarm' });
  t.equal((await api(a, 'POST', '/api/users', { pin: 4711, first_name: 'Half' })).res.status, 201);
  const status = async (id: number) =>
    (await api(a, 'GET', `/api/commands/${id}`)).body as { status: string; error_message: string | null };
  const syncOp = async () =>
    ((await api(a, 'GET', `/api/commands?sn=${SN}&command=sync-users`)).body as { data?: { id: number; status: string }[] }).data?.[0];

  // The failover: the terminal's connection to B is half-open (B's replies go nowhere, B does not notice).
  const viaRelay = await relay(t, b);
  viaRelay.cut();
  const ac = new AbortController();
  const lost = fetch(`${viaRelay.url}/iclock/getrequest?SN=${SN}`, { signal: ac.signal }).then(
    (r) => r.text(),
    () => 'aborted',
  );
  const allSent = async () =>
    (await status(info)).status === 'sent' && (await status(door)).status === 'sent' && (await syncOp())?.status === 'sent';
  for (let i = 0; i < 400 && !(await allSent()); i++) await sleep(50);
  t.equal((await status(info)).status, 'sent', 'B wrote info into the dead connection');
  t.match(await status(door), { status: 'sent' }, 'and the alarm clearing');
  t.equal((await syncOp())?.status, 'sent', "and the user's sync line");
  ac.abort();
  t.equal(await lost, 'aborted', 'the terminal never got the reply');

  // The terminal polls A: the lease moves, and this very poll settles what B handed out.
  const reply = await (await fetch(`${a.url}/iclock/getrequest?SN=${SN}`)).text();
  const op = (await syncOp())?.id ?? -1;
  t.match(reply, new RegExp(`^C:${info}:INFO`, 'm'), 'info goes again, on A');
  t.match(reply, new RegExp(`^C:${op}:DATA UPDATE USERINFO PIN=4711`, 'm'), 'the sync line goes again');
  t.notMatch(reply, new RegExp(`^C:${door}:`, 'm'), 'the alarm clearing (not read-only) is not repeated');
  t.match(
    await status(door),
    { status: 'failed', error_message: 'delivery not confirmed' },
    'it failed at once, not after the ack timeout',
  );
});
