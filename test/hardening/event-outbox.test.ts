// Issue #32 item 11 "Feed events are written after the data they describe": a terminal told OK for
// its punches and door events must not see their feed events (webhooks, MQTT, the stream) lost to a
// crash or an outage between the data and the event. The store's feed append is made to fail with the
// adapter's test fault hook (BIOGATE_TEST_FAULTS=cluster.appendEvents, src/store/test-faults.ts) right
// after the data committed; the rows keep their outbox marker, and the feed's sweep stores the events
// at the next start (or, past an outage, on its periodic round), each once. Runs on the store of
// BIOGATE_TEST_API_STORE (SQLite by default; MongoDB with BIOGATE_TEST_API_STORE=mongodb).
import t, { type Test } from 'tap';
import { SWEEP_AGE_MS } from '../../src/events/outbox.js';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fakeClock, fetchJson, jsonBody, startApp, type FakeClock, type StartedApp } from '../helpers/app.js';
import { storeFault } from '../helpers/faults.js';
import { feedEvents } from '../helpers/feed.js';

const fault = storeFault(t, 'cluster.appendEvents');

// [PUSH-v3 §7.2] rtlog lines: four door events, one of them (pin 1001, event 0) also a punch.
const RTLOG = [
  'time=2026-03-01 09:00:00\tpin=0\tcardno=0\teventaddr=1\tevent=200\tinoutstatus=0\tverifytype=0\tindex=11',
  'time=2026-03-01 09:00:05\tpin=1001\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=1\tverifytype=15\tindex=12',
  'time=2026-03-01 09:00:09\tpin=0\tcardno=4455667\teventaddr=2\tevent=27\tinoutstatus=0\tverifytype=4\tindex=13',
  'time=2026-03-01 09:01:00\tpin=0\tcardno=0\teventaddr=2\tevent=102\tinoutstatus=0\tverifytype=0\tindex=14',
];

/** A registered v3 terminal of the app's location; `post` sends an upload as its firmware would. */
async function terminal(t: Test, app: StartedApp, sn: string) {
  const created = await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn }, bearer(app.token)));
  if (created.res.status !== 201) throw new Error(`could not assign ${sn}: ${created.res.status}`);
  const sim = createSimulatedDevice({ url: app.url, sn, protocol: 'v3', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  const cookie = `token=${sim.session().token ?? ''}`;
  return async (table: string, lines: readonly string[]) => {
    const res = await fetch(`${app.url}/iclock/cdata?SN=${sn}&table=${table}`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'text/plain' },
      body: lines.join('\n') + '\n',
    });
    return { status: res.status, text: await res.text() };
  };
}

/** The upload's events in the feed, as a resuming consumer (stream, webhooks, MQTT) reads them from seq 0. */
async function uploadEvents(app: StartedApp, locationId = app.locationId): Promise<{ door: number[]; punches: string[]; ids: string[] }> {
  const seen = await feedEvents(app.app, locationId);
  const mine = seen.filter((e) => e.type === 'door.event' || e.type === 'attendance.recorded');
  return {
    door: mine.flatMap((e) => (e.type === 'door.event' ? [e.data.device_index as number] : [])).sort(),
    punches: mine.flatMap((e) => (e.type === 'attendance.recorded' ? e.data.records.map((r) => r.pin) : [])),
    ids: mine.map((e) => e.id),
  };
}

t.test('events of an upload answered OK are not lost when the feed append fails: stored at the next start, once', async (t) => {
  const first = await startApp(t, { config: { longpollS: 0 } });
  const post = await terminal(t, first, 'OUTBOX01');
  fault(true);
  t.same(await post('rtlog', RTLOG), { status: 200, text: 'OK' }, 'the terminal is told OK: the data is stored');
  await first.app.feed.settled();
  t.same((await uploadEvents(first)).door, [], 'the feed append failed: no door event in the feed yet');
  await first.close();
  fault(false);

  const second = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  const after = await uploadEvents(second, first.locationId);
  t.same(after.door, [11, 12, 13, 14], 'every door event reaches the feed after the restart');
  t.same(after.punches, ['1001'], 'and the punch');
  await second.close();

  const third = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  const again = await uploadEvents(third, first.locationId);
  t.same(again.ids, after.ids, 'another restart adds nothing: each event is stored once');
});

t.test('past an outage the periodic sweep stores what the appender gave up on, only once markers are old enough', async (t) => {
  const clock: FakeClock = fakeClock('2026-03-01T08:00:00.000Z');
  const app = await startApp(t, { clock, config: { longpollS: 0 } });
  const post = await terminal(t, app, 'OUTBOX02');
  // The handshake's own device.updated is stored before the outage (it is owed by the outbox as well).
  await app.app.feed.settled();
  fault(true);
  t.same(await post('rtlog', RTLOG.slice(0, 2)), { status: 200, text: 'OK' });
  await app.app.feed.settled();
  fault(false);
  const cutoff = () => new Date(clock.now().getTime() - SWEEP_AGE_MS).toISOString();
  t.equal(await app.app.feed.sweep(cutoff()), 0, 'markers younger than the sweep age are left to the appender that holds them');
  t.same((await uploadEvents(app)).door, []);
  clock.advance(SWEEP_AGE_MS + 1_000);
  t.equal(await app.app.feed.sweep(cutoff()), 3, 'two door events and one punch owed');
  const events = await uploadEvents(app);
  t.same(events.door, [11, 12]);
  t.same(events.punches, ['1001']);
  t.equal(await app.app.feed.sweep(), 0, 'nothing owed any more');
});

t.test('a live upload clears its markers with its events: nothing is owed afterwards', async (t) => {
  const app = await startApp(t, { config: { longpollS: 0 } });
  const post = await terminal(t, app, 'OUTBOX03');
  t.same(await post('rtlog', RTLOG), { status: 200, text: 'OK' });
  const events = await uploadEvents(app);
  t.same(events.door, [11, 12, 13, 14]);
  t.same(await app.app.store.attendance.unannounced(10), [], 'no punch owes an event');
  t.same(await app.app.store.doorEvents.unannounced(10), [], 'no door event owes one');
  t.equal(await app.app.feed.sweep(), 0);
});

t.test('an outbox event offered again is not stored twice (a sweep after a crash between the event and its markers)', async (t) => {
  const app = await startApp(t, { config: { longpollS: 0 } });
  const { store } = app.app;
  const at = '2026-03-01T08:00:00.000Z';
  const [punch] = await store.attendance.record(
    [
      {
        location_id: app.locationId,
        sn: 'OUTBOX04',
        pin: '7',
        user_id: null,
        timestamp: at,
        local_time: '2026-03-01 08:00:00',
        status: 0,
        verify: 1,
        work_code: null,
      },
    ],
    at,
    'marker-1',
  );
  if (!punch) throw new Error('punch not stored');
  t.same(
    (await store.attendance.unannounced(10)).map((u) => [u.marker, u.record.id]),
    [['marker-1', punch.id]],
  );
  const event = {
    id: '9b0c6a8e-1d9f-5a55-8f0e-000000000001',
    location_id: app.locationId,
    type: 'attendance.recorded',
    at,
    node: 'test',
    data: {},
  };
  const settle = [{ event: event.id, table: 'attendance' as const, ids: [punch.id] }];
  t.equal((await store.cluster.appendEvents([event], settle)).length, 1, 'stored, marker cleared');
  t.same(await store.attendance.unannounced(10), []);
  t.equal((await store.cluster.appendEvents([event], settle)).length, 0, 'offered again: not stored twice');
  const stored = await store.cluster.eventsAfter(app.locationId, 0, 100);
  t.equal(stored.filter((e) => e.id === event.id).length, 1);
});
