// Issue #32 item 11 for an operator's device changes: assigning and unassigning a terminal
// (POST/DELETE /api/devices) store the device, then `device.updated` goes to the feed. The store's
// feed append is made to fail with the adapter's test fault hook (BIOGATE_TEST_FAULTS=cluster.appendEvents,
// src/store/test-faults.ts) right after the device was written: it keeps its outbox marker, and the
// feed's sweep stores the event at the next start, once, in the feed of the location it concerns, with
// the device as stored. Runs on the store of BIOGATE_TEST_API_STORE (SQLite by default; MongoDB with
// BIOGATE_TEST_API_STORE=mongodb).
import t from 'tap';
import type * as Tap from 'tap';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { bearer, fetchJson, jsonBody, startApp, waitFor, type StartedApp } from '../helpers/app.js';
import { storeFault } from '../helpers/faults.js';
import { feedEvents } from '../helpers/feed.js';

const fault = storeFault(t, 'cluster.appendEvents');

/** The device.updated events of one serial in a location's feed, as a consumer resuming from seq 0 reads them. */
async function deviceEvents(app: StartedApp, sn: string, locationId: number): Promise<AnyFeedEvent[]> {
  const seen = await feedEvents(app.app, locationId);
  return seen.filter((e) => e.type === 'device.updated' && e.data.sn === sn);
}

const located = (events: readonly AnyFeedEvent[]) =>
  events.map((e) => (e.type === 'device.updated' ? e.data.device['location_id'] : undefined));

t.test('assign and unassign whose feed append fails: their device.updated are stored at the next start, once', async (t) => {
  const first = await startApp(t, { config: { longpollS: 0 } });
  const api = (method: string, path: string, body?: unknown) =>
    fetchJson(
      `${first.url}${path}`,
      body === undefined ? { method, headers: bearer(first.token) } : jsonBody(method, body, bearer(first.token)),
    );
  fault(true);
  t.equal((await api('POST', '/api/devices', { sn: 'DEVOUT01', name: 'Front door' })).res.status, 201, 'assigned');
  t.equal((await api('POST', '/api/devices', { sn: 'DEVOUT02' })).res.status, 201);
  t.equal((await api('DELETE', '/api/devices/DEVOUT02')).res.status, 200, 'unassigned');
  await first.app.feed.settled();
  t.same(located(await deviceEvents(first, 'DEVOUT01', first.locationId)), [], 'no event stored yet');
  t.same(
    (await first.app.store.devices.unannounced(10)).map((u) => [u.record.serial_number, u.location_id]).sort(),
    [
      ['DEVOUT01', first.locationId],
      ['DEVOUT02', first.locationId],
    ],
    'both devices owe their event to the location',
  );
  await first.close();
  fault(false);

  const second = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  const assigned = await deviceEvents(second, 'DEVOUT01', first.locationId);
  t.same(located(assigned), [first.locationId], 'the assignment reaches the feed after the restart');
  const view = (await fetchJson(`${second.url}/api/devices/DEVOUT01`, { headers: bearer(first.token) })).body as Record<string, unknown>;
  const data: Record<string, unknown> = assigned[0]?.type === 'device.updated' ? assigned[0].data.device : {};
  t.same([data['name'], data['location_id']], [view['name'], first.locationId], 'the device as stored');
  t.equal(view['name'], 'Front door');
  t.same(
    located(await deviceEvents(second, 'DEVOUT02', first.locationId)),
    [null],
    'the unassignment, in the feed of the location it left',
  );
  t.same(await second.app.store.devices.unannounced(10), [], 'nothing owed any more');
  const ids = (await deviceEvents(second, 'DEVOUT01', first.locationId)).map((e) => e.id);
  await second.close();

  const third = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  t.same(
    (await deviceEvents(third, 'DEVOUT01', first.locationId)).map((e) => e.id),
    ids,
    'another restart adds nothing',
  );
});

t.test('a live assignment clears its marker with its event', async (t) => {
  const app = await startApp(t, { config: { longpollS: 0 } });
  t.equal((await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn: 'DEVOUT03' }, bearer(app.token)))).res.status, 201);
  t.same(located(await deviceEvents(app, 'DEVOUT03', app.locationId)), [app.locationId]);
  t.same(await app.app.store.devices.unannounced(10), [], 'no device owes an event');
  t.equal(await app.app.feed.sweep(), 0);
});

t.test("a terminal's own update whose feed append fails: its device.updated is stored at the next start", async (t) => {
  const first = await startApp(t, { config: { longpollS: 0 } });
  const sn = 'DEVOUT09';
  t.equal((await fetchJson(`${first.url}/api/devices`, jsonBody('POST', { sn }, bearer(first.token)))).res.status, 201);
  await first.app.feed.settled();
  const before = (await deviceEvents(first, sn, first.locationId)).length;
  fault(true);
  // [PUSH-v2 §4.1] the handshake reports the terminal's firmware and options: a session update of its device.
  const hello = await fetch(`${first.url}/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1&language=83`);
  t.equal(hello.status, 200, 'the terminal is answered');
  await hello.text();
  await first.app.feed.settled();
  t.equal((await deviceEvents(first, sn, first.locationId)).length, before, 'its event is not in the feed');
  t.same(
    (await first.app.store.devices.unannounced(10)).map((u) => [u.record.serial_number, u.location_id]),
    [[sn, first.locationId]],
    'the device owes it to its location',
  );
  await first.close();
  fault(false);

  const second = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  t.equal((await deviceEvents(second, sn, first.locationId)).length, before + 1, 'the update reaches the feed after the restart');
  t.same(await second.app.store.devices.unannounced(10), [], 'nothing owed any more');
});

const EVER = '9999-12-31T00:00:00.000Z';

/** The presence events `app`'s store owes, once `settled` holds of them (polled every 25 ms, at most 5 s). */
async function owedPresence(app: StartedApp, settled: (owed: readonly OwedPresence[]) => boolean): Promise<readonly OwedPresence[]> {
  let owed = await app.app.store.cluster.unannouncedPresence(EVER, 10);
  for (let i = 0; i < 200 && !settled(owed); i++) {
    await new Promise((r) => setTimeout(r, 25));
    owed = await app.app.store.cluster.unannouncedPresence(EVER, 10);
  }
  return owed;
}
type OwedPresence = Awaited<ReturnType<StartedApp['app']['store']['cluster']['unannouncedPresence']>>[number];

/** How many device.online events of `sn` a consumer of `locationId`'s feed reads on `app`. */
const onlineEvents = async (app: StartedApp, locationId: number, sn: string) =>
  (await feedEvents(app.app, locationId)).filter((e) => e.type === 'device.online' && e.data.sn === sn).length;

/**
 * `first` owes one device.online it did not store: closed, then started again on its store without the fault,
 * the presence outbox sweep stores it, once (`online` counts it in a feed).
 */
async function announcedAfterRestart(t: Tap.Test, first: StartedApp, online: (app: StartedApp) => Promise<number>): Promise<void> {
  t.equal(await online(first), 0, 'not in the feed');
  await first.close();
  fault(false);
  const second = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  t.equal(await second.app.hub.presence.sweepUnannounced(EVER), 1, 'the sweep finds it');
  t.equal(await online(second), 1, 'device.online reaches the feed, once');
  t.same(await second.app.store.cluster.unannouncedPresence(EVER, 10), [], 'nothing owed any more');
}

t.test('a presence change whose event the feed could not store is announced by the outbox sweep', async (t) => {
  const first = await startApp(t, { config: { longpollS: 0 } });
  const sn = 'DEVOUT10';
  t.equal((await fetchJson(`${first.url}/api/devices`, jsonBody('POST', { sn }, bearer(first.token)))).res.status, 201);
  fault(true);
  await (await fetch(`${first.url}/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1`)).text();
  t.match(await owedPresence(first, (o) => o.length > 0), [{ sn, presence: 'online' }], 'online is stored, its event owed');
  const online = (app: StartedApp) => onlineEvents(app, first.locationId, sn);
  await announcedAfterRestart(t, first, online);
});

t.test(
  'a terminal assigned while online whose device.online the feed could not store: the sweep announces it to its location',
  async (t) => {
    const first = await startApp(t, { config: { longpollS: 0 } });
    const sn = 'DEVOUT11';
    const poll = async (app: StartedApp) => (await fetch(`${app.url}/iclock/getrequest?SN=${sn}`)).text();
    await (await fetch(`${first.url}/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1`)).text();
    await waitFor(() => first.app.hub.presence.isOnline(sn), 5_000, 'online, unassigned');
    await first.app.feed.settled();
    await owedPresence(first, (o) => o.length === 0);
    const online = (app: StartedApp) => onlineEvents(app, first.locationId, sn);
    fault(true);
    t.equal((await fetchJson(`${first.url}/api/devices`, jsonBody('POST', { sn }, bearer(first.token)))).res.status, 201, 'assigned');
    await poll(first);
    t.match(
      await owedPresence(first, (o) => o.length > 0),
      [{ sn, location_id: first.locationId, presence: 'online' }],
      "its location's device.online is owed",
    );
    await announcedAfterRestart(t, first, online);
  },
);
