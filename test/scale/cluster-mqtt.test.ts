// Issue #15 on several nodes (issue #14): two BioGate nodes on one MongoDB publishing to one external
// broker (Debian mosquitto) publish each event once (the node leading `mqtt-bridge` publishes); when
// it stops, the other takes over and the events keep coming. A client of node A's embedded broker
// sees the success of a command a terminal on node B executed.
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fetchJson, jsonBody, startApp, waitFor, ADMIN_TOKEN, type StartedApp } from '../helpers/app.js';
import { startControlledMongo } from '../helpers/mongo-control.js';
import { connect } from '../bridge/mqtt-client.js';
import { NO_MOSQUITTO, startMosquitto } from '../bridge/mosquitto.js';

let databases = 0;

t.test('two nodes, one external broker: every event published once; the other node takes over', { skip: NO_MOSQUITTO }, async (t) => {
  const mongo = await startControlledMongo(t);
  if (typeof mongo === 'string') return t.plan(0, mongo); // a visible skip: Java/Maven missing
  const m = await startMosquitto(t);
  const storeUrl = `${mongo.server}/biogate_cluster_mqtt_${process.pid}_${databases++}`;
  const config = { mqtt: m.url, mqttUsername: m.user, mqttPassword: m.password, longpollS: 0 };
  const a = await startApp(t, { storeUrl, config: { ...config, nodeId: 'mq-a' } });
  const b = await startApp(t, { storeUrl, config: { ...config, nodeId: 'mq-b', bootstrap: 'off' } });
  for (const n of [a, b]) await waitFor(() => n.app.feed.clustered, 5_000, 'change stream open');
  const w = await connect(t, m.url, { username: m.user, password: m.password });
  await w.client.subscribeAsync('biogate/+/commands/#');

  const queue = async (via: StartedApp) => {
    const { body } = await fetchJson(`${via.url}/api/commands`, jsonBody('POST', { sn: 'MQNODE', command: 'reboot' }, bearer(a.token)));
    return (body as { id: number }).id;
  };
  t.equal((await fetchJson(`${a.url}/api/devices`, jsonBody('POST', { sn: 'MQNODE' }, bearer(a.token)))).res.status, 201);
  const ids = [await queue(a), await queue(b), await queue(a)];
  for (const id of ids) await w.next(`biogate/${a.locationId}/commands/${id}`, `command ${id}`);
  await new Promise((r) => setTimeout(r, 500)); // a second copy would have come by now
  for (const id of ids) t.equal(w.on(`biogate/${a.locationId}/commands/${id}`).length, 1, `command ${id}: published once by the two nodes`);

  // A started first, so it leads. It stops (a rolling restart): B is told through the feed and takes
  // over at once, sending again what it held back meanwhile; nothing queued around the hand-over is lost.
  const around = queue(b);
  await a.close();
  const later = await queue(b);
  const earlier = await around;
  await w.next(`biogate/${a.locationId}/commands/${earlier}`, `command ${earlier} queued during the hand-over`, 1, 5_000);
  await w.next(`biogate/${a.locationId}/commands/${later}`, `command ${later} after the hand-over`, 1, 5_000);
  await new Promise((r) => setTimeout(r, 500));
  t.equal(w.on(`biogate/${a.locationId}/commands/${later}`).length, 1, 'published once by the remaining node');
});

t.test("a client of node A's embedded broker sees the success of a command node B delivered", async (t) => {
  const mongo = await startControlledMongo(t);
  if (typeof mongo === 'string') return t.plan(0, mongo);
  const storeUrl = `${mongo.server}/biogate_cluster_mqtt_${process.pid}_${databases++}`;
  const a = await startApp(t, { storeUrl, config: { mqtt: 'embedded', mqttPort: 0, nodeId: 'em-a', adminToken: ADMIN_TOKEN } });
  const b = await startApp(t, { storeUrl, config: { nodeId: 'em-b', bootstrap: 'off' } });
  for (const n of [a, b]) await waitFor(() => n.app.feed.clustered, 5_000, 'change stream open');
  const w = await connect(t, `mqtt://127.0.0.1:${a.app.mqtt?.port ?? 0}`, { username: String(a.locationId), password: a.token });
  await w.client.subscribeAsync(`biogate/${a.locationId}/commands/#`);
  t.equal((await fetchJson(`${a.url}/api/devices`, jsonBody('POST', { sn: 'ONB', version: '3.0.0' }, bearer(a.token)))).res.status, 201);
  const sim = createSimulatedDevice({ url: b.url, sn: 'ONB', protocol: 'v3', pollDelayMs: 20, requestTimeoutMs: 15_000 });
  t.teardown(() => sim.stop());
  sim.start();
  await waitFor(() => sim.stats.online, 10_000, 'terminal on node B');
  const { body } = await fetchJson(`${b.url}/api/commands`, jsonBody('POST', { sn: 'ONB', command: 'info' }, bearer(a.token)));
  const id = (body as { id: number }).id;
  const topic = `biogate/${a.locationId}/commands/${id}`;
  const done = await w.until(
    topic,
    (x) => (JSON.parse(x.text) as { status: string }).status === 'success',
    "success on node A's broker",
    15_000,
  );
  t.match(JSON.parse(done.text), { id, status: 'success', sn: 'ONB' });
  t.same(
    w.on(topic).map((x) => (JSON.parse(x.text) as { status: string }).status),
    ['pending', 'sent', 'success'],
    'every transition, once, in order',
  );
});
