/**
 * Presence after punches (issue #35 item 2), end to end: a simulated terminal's in/out punches become
 * `presence.changed` on the feed, the retained MQTT topics `biogate/<loc>/presence` and `…/presence/<pin>` on the
 * embedded broker (a real `mqtt` client), the stream's `presence/<pin>` with a retained snapshot for a late
 * subscriber (a real WebSocket client), and Home Assistant's head count sensor; another location hears none of it,
 * and a restarted gateway publishes who is in again from the store. Runs on MongoDB too (test/mongo-api-leg.mjs).
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { connect } from '../bridge/mqtt-client.js';
import { bearer, fakeClock, fetchJson, jsonBody, startApp, waitFor } from '../helpers/app.js';
import { openStream } from '../realtime/stream-client.js';

const ADMIN_TOKEN = 'presence-feed-admin-token-0123456789';
const START = '2026-03-02T08:00:00.000Z';

interface PresenceMsg {
  pin: string;
  name: string | null;
  state: string;
  since: string;
  sn: string;
}

t.test('punches → presence.changed → retained MQTT topics, the stream and the HA head count; isolated per location', async (t) => {
  const clock = fakeClock(START);
  const config = { mqtt: 'embedded', mqttPort: 0, mqttHaDiscovery: 'on', adminToken: ADMIN_TOKEN, longpollS: 0 };
  const started = await startApp(t, { clock, config });
  const a = { id: started.locationId, token: started.token };
  const other = await started.app.locations.create({ name: 'Other' });
  const b = { id: other.location.id, token: other.token.token };
  const api = async (method: string, path: string, body?: unknown) =>
    (
      await fetchJson(
        `${started.url}${path}`,
        body === undefined ? { method, headers: bearer(a.token) } : jsonBody(method, body, bearer(a.token)),
      )
    ).res.status;
  const events: AnyFeedEvent[] = [];
  started.app.feed.subscribe({ locationId: null }, (e) => void events.push(e));
  const presenceEvents = () => events.flatMap((e) => (e.type === 'presence.changed' ? [e] : []));

  const url = `mqtt://127.0.0.1:${started.app.mqtt?.port ?? 0}`;
  const mine = await connect(t, url, { username: String(a.id), password: a.token });
  await mine.client.subscribeAsync([`biogate/${a.id}/presence/#`, 'homeassistant/sensor/#']);
  const theirs = await connect(t, url, { username: String(b.id), password: b.token });
  await theirs.client.subscribeAsync([`biogate/${b.id}/#`, 'homeassistant/#']);

  t.equal(await api('POST', '/api/users', { pin: 101, first_name: 'Ada' }), 201);
  t.equal(await api('POST', '/api/users', { pin: 102, first_name: 'Bo' }), 201);
  t.equal(await api('POST', '/api/devices', { sn: 'PRES1' }), 201);
  const sim = createSimulatedDevice({ url: started.url, sn: 'PRES1', protocol: 'v2', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();

  // Both check in (state 0 on a terminal that gives states: 101 and 102 are in).
  t.ok(await sim.punch('101', '2026-03-02 08:00:00', 0));
  t.ok(await sim.punch('102', '2026-03-02 08:01:00', 0));
  await waitFor(() => presenceEvents().some((e) => e.data.count === 2), 10_000, 'presence.changed: two in');
  const two = presenceEvents().find((e) => e.data.count === 2);
  t.equal(two?.location_id, a.id);
  t.match(
    two?.data.users,
    [{ pin: '101', name: 'Ada', state: 'in', sn: 'PRES1', since: '2026-03-02T08:00:00+00:00' }],
    'the event names the punched users',
  );
  await mine.until(`biogate/${a.id}/presence`, (m) => mine.json(m)['count'] === 2, 'head count 2');
  const late = await connect(t, url, { username: String(a.id), password: a.token });
  await late.client.subscribeAsync(`biogate/${a.id}/presence`);
  const count = await late.next(`biogate/${a.id}/presence`, 'the retained head count');
  t.ok(count.retain, 'the head count is retained: a later subscriber gets it');
  t.same(late.json(count), { count: 2 });
  const ada = mine.json<PresenceMsg>(await mine.next(`biogate/${a.id}/presence/101`));
  t.match(ada, { pin: '101', name: 'Ada', state: 'in', sn: 'PRES1' });

  // 101 checks out: out, one in.
  t.ok(await sim.punch('101', '2026-03-02 08:30:00', 1));
  await mine.until(`biogate/${a.id}/presence/101`, (m) => mine.json(m)['state'] === 'out', '101 out');
  await mine.until(`biogate/${a.id}/presence`, (m) => mine.json(m)['count'] === 1, 'head count 1');

  // Home Assistant: the location's head count sensor on the retained count.
  const sensor = mine.json(await mine.next(`homeassistant/sensor/biogate_${a.id}_presence/head_count/config`));
  t.match(sensor, {
    state_topic: `biogate/${a.id}/presence`,
    value_template: '{{ value_json.count }}',
    unique_id: `biogate_${a.id}_head_count`,
    state_class: 'measurement',
    device: { identifiers: [`biogate_location_${a.id}`] },
  });

  // A late stream subscriber gets who is in first (retained), then the live changes.
  const stream = await openStream(t, started.url, { token: a.token });
  stream.send({ op: 'subscribe', topics: ['presence/#'] });
  const snapCount = await stream.next((m) => m.topic === 'presence', 'retained head count');
  t.match(snapCount, { payload: { count: 1 }, retained: true });
  const snap102 = await stream.next((m) => m.topic === 'presence/102', 'retained 102');
  t.match(snap102, { payload: { state: 'in', name: 'Bo' } });
  t.ok(await sim.punch('102', '2026-03-02 09:00:00', 1));
  const live = await stream.next((m) => m.topic === 'presence/102' && (m.payload as PresenceMsg).state === 'out', 'live 102 out');
  t.notOk(live['retained'], 'a live message');
  await mine.until(`biogate/${a.id}/presence`, (m) => mine.json(m)['count'] === 0, 'head count 0');

  // Another location hears nothing of A's presence, on its topics or in the discovery tree. Its own head count (0, from
  // the start-up seed when that reads the locations after B was created) is its own business.
  const presenceTopics = theirs.messages.filter((m) => m.topic.includes('presence')).map((m) => m.topic);
  t.same(
    presenceTopics.filter((topic) => topic.includes(`biogate/${a.id}/`) || topic.includes(`biogate_${a.id}_`)),
    [],
    'location B received none of A’s presence topics',
  );
  for (const m of theirs.messages.filter((m) => m.topic === `biogate/${b.id}/presence`)) {
    t.same(theirs.json(m), { count: 0 }, 'B’s own head count, if published, is B’s (nobody punched there)');
  }

  // A restarted gateway (the embedded broker holds nothing) publishes who is in from the store.
  await started.close();
  const again = await startApp(t, {
    clock,
    config,
    ...(started.storePath ? { storePath: started.storePath } : { storeUrl: started.storeUrl }),
  });
  const fresh = await connect(t, `mqtt://127.0.0.1:${again.app.mqtt?.port ?? 0}`, { username: String(a.id), password: a.token });
  await fresh.client.subscribeAsync(`biogate/${a.id}/presence/#`);
  const seeded = await fresh.next(`biogate/${a.id}/presence/101`, 'seeded 101');
  t.match(fresh.json(seeded), { state: 'out', name: 'Ada' }, 'seeded from the store');
  t.match(fresh.json(await fresh.next(`biogate/${a.id}/presence`)), { count: 0 });
  // The start-up seed may reach a subscriber live (it subscribed first): a later one gets it retained.
  const later = await connect(t, `mqtt://127.0.0.1:${again.app.mqtt?.port ?? 0}`, { username: String(a.id), password: a.token });
  await later.client.subscribeAsync(`biogate/${a.id}/presence/101`);
  t.ok((await later.next(`biogate/${a.id}/presence/101`, 'retained 101')).retain, 'held by the broker as retained');
});

t.test('a new working day empties presence: who was present is announced absent, once, and their topics cleared', async (t) => {
  const clock = fakeClock(START);
  const started = await startApp(t, { clock, config: { mqtt: 'embedded', mqttPort: 0, adminToken: ADMIN_TOKEN, longpollS: 0 } });
  const a = { id: started.locationId, token: started.token };
  const api = async (method: string, path: string, body: unknown) =>
    (await fetchJson(`${started.url}${path}`, jsonBody(method, body, bearer(a.token)))).res.status;
  const events: AnyFeedEvent[] = [];
  started.app.feed.subscribe({ locationId: null }, (e) => void events.push(e));
  const presenceEvents = () => events.flatMap((e) => (e.type === 'presence.changed' ? [e] : []));
  const mine = await connect(t, `mqtt://127.0.0.1:${started.app.mqtt?.port ?? 0}`, { username: String(a.id), password: a.token });
  await mine.client.subscribeAsync(`biogate/${a.id}/presence/#`);

  t.equal(await api('POST', '/api/users', { pin: 101, first_name: 'Ada' }), 201);
  t.equal(await api('POST', '/api/users', { pin: 102, first_name: 'Bo' }), 201);
  t.equal(await api('POST', '/api/devices', { sn: 'PRES-DAY' }), 201);
  const sim = createSimulatedDevice({ url: started.url, sn: 'PRES-DAY', protocol: 'v2', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  t.ok(await sim.punch('101', '2026-03-02 08:00:00', 0));
  t.ok(await sim.punch('102', '2026-03-02 08:01:00', 0));
  t.ok(await sim.punch('102', '2026-03-02 08:30:00', 1));
  await mine.until(`biogate/${a.id}/presence`, (m) => mine.json(m)['count'] === 1, 'head count 1');
  await mine.until(`biogate/${a.id}/presence/102`, (m) => m.text !== '' && mine.json(m)['state'] === 'out', '102 out');

  t.equal(await started.app.presence.rollover(), 0, 'the first run only sets the mark');
  clock.set('2026-03-02T23:59:00.000Z');
  t.equal(await started.app.presence.rollover(), 0, 'the same working day: nothing');
  clock.set('2026-03-03T00:00:30.000Z');
  t.equal(await started.app.presence.rollover(), 1, 'the working day turned');
  t.equal(await started.app.presence.rollover(), 0, 'announced once (the mark is in the store, shared by every node)');
  await started.app.presence.idle();
  // The feed delivers through the store (on MongoDB a few seconds behind): wait for the day's first event.
  await waitFor(() => presenceEvents().at(-1)?.data.count === 0, 15_000, 'the new day’s presence.changed');
  const turn = presenceEvents().at(-1);
  t.match(turn?.data, { count: 0, users: [], absent: ['101', '102'] }, 'who was present is absent on the new day');
  await mine.until(`biogate/${a.id}/presence/101`, (m) => m.text === '', 'the retained 101 cleared');
  await mine.until(`biogate/${a.id}/presence`, (m) => mine.json(m)['count'] === 0, 'head count 0');
});
