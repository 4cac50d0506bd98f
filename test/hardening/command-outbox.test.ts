// Issue #32 item 11 for command results: a terminal posts a command's result to /iclock/devicecmd and
// is answered OK; the command's final status is stored, then `command.updated` goes to the feed. The
// store's feed append is made to fail with the adapter's test fault hook
// (BIOGATE_TEST_FAULTS=cluster.appendEvents, src/store/test-faults.ts) right after the result was
// stored: the command keeps its outbox marker, and the feed's sweep stores its event at the next start
// (or, past an outage, on its periodic round) once, as the command stands in the store. Runs on the
// store of BIOGATE_TEST_API_STORE (SQLite by default; MongoDB with BIOGATE_TEST_API_STORE=mongodb).
import t, { type Test } from 'tap';
import { SWEEP_AGE_MS } from '../../src/events/outbox.js';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { bearer, fakeClock, fetchJson, jsonBody, startApp, type FakeClock, type StartedApp } from '../helpers/app.js';
import { storeFault } from '../helpers/faults.js';
import { feedEvents } from '../helpers/feed.js';

const fault = storeFault(t, 'cluster.appendEvents');

const api = (app: StartedApp, method: string, path: string, body?: unknown) =>
  fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));

/** A v2 terminal of the app's location with one `check` command delivered to it: returns the command id. */
async function delivered(t: Test, app: StartedApp, sn: string): Promise<number> {
  t.equal((await api(app, 'POST', '/api/devices', { sn })).res.status, 201);
  const hello = await fetch(`${app.url}/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1`);
  t.equal(hello.status, 200);
  await hello.text();
  const queued = await api(app, 'POST', '/api/commands', { sn, command: 'check' });
  t.equal(queued.res.status, 201);
  const id = (queued.body as { id: number }).id;
  const poll = await (await fetch(`${app.url}/iclock/getrequest?SN=${sn}`)).text();
  t.match(poll, new RegExp(`^C:${id}:`), 'the command goes out');
  await app.app.feed.settled();
  return id;
}

/** The terminal posts the command's result; the gateway answers. */
async function answer(app: StartedApp, sn: string, id: number, code: number): Promise<{ status: number; text: string }> {
  const res = await fetch(`${app.url}/iclock/devicecmd?SN=${sn}`, { method: 'POST', body: `ID=${id}&Return=${code}&CMD=CHECK` });
  return { status: res.status, text: await res.text() };
}

/** The command.updated events of one command in the feed, as a consumer resuming from seq 0 reads them. */
async function commandEvents(app: StartedApp, id: number, locationId = app.locationId): Promise<AnyFeedEvent[]> {
  const seen = await feedEvents(app.app, locationId);
  return seen.filter((e) => e.type === 'command.updated' && e.data.command['id'] === id);
}

const statuses = (events: readonly AnyFeedEvent[]) => events.map((e) => (e.type === 'command.updated' ? e.data.command['status'] : null));

t.test('a result answered OK whose feed append fails: its command.updated is stored at the next start, once, as stored', async (t) => {
  const first = await startApp(t, { config: { longpollS: 0 } });
  const id = await delivered(t, first, 'CMDOUT01');
  t.same(statuses(await commandEvents(first, id)), ['pending', 'sent'], 'queued and sent are in the feed');
  fault(true);
  t.same(await answer(first, 'CMDOUT01', id, 0), { status: 200, text: 'OK' }, 'the terminal is told OK');
  await first.app.feed.settled();
  t.equal((await first.app.store.commands.getById(id))?.status, 'success', 'the result is stored');
  t.same(statuses(await commandEvents(first, id)), ['pending', 'sent'], 'the feed append failed: no success event yet');
  t.same(
    (await first.app.store.commands.unannounced(10)).map((u) => u.record.id),
    [id],
    'the command owes its event',
  );
  await first.close();
  fault(false);

  const second = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  const after = await commandEvents(second, id, first.locationId);
  t.same(statuses(after), ['pending', 'sent', 'success'], 'the success event reaches the feed after the restart');
  // A restarted app makes no token of its own: the first one's is still valid.
  const view = (await fetchJson(`${second.url}/api/commands/${id}`, { headers: bearer(first.token) })).body;
  const swept = after.at(-1);
  t.same(
    swept?.type === 'command.updated' ? swept.data.command : undefined,
    view,
    'the event carries the command as stored (GET shows it)',
  );
  t.same(await second.app.store.commands.unannounced(10), [], 'nothing owed any more');
  await second.close();

  const third = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  const again = await commandEvents(third, id, first.locationId);
  t.same(
    again.map((e) => e.id),
    after.map((e) => e.id),
    'another restart adds nothing: the event is stored once',
  );
});

t.test('past an outage the periodic sweep stores the owed command event, only once its marker is old enough', async (t) => {
  const clock: FakeClock = fakeClock('2026-03-01T08:00:00.000Z');
  const app = await startApp(t, { clock, config: { longpollS: 0 } });
  const id = await delivered(t, app, 'CMDOUT02');
  fault(true);
  t.same(await answer(app, 'CMDOUT02', id, 0), { status: 200, text: 'OK' });
  await app.app.feed.settled();
  fault(false);
  const cutoff = () => new Date(clock.now().getTime() - SWEEP_AGE_MS).toISOString();
  t.equal(await app.app.feed.sweep(cutoff()), 0, 'a marker younger than the sweep age is left to the appender that holds it');
  t.same(statuses(await commandEvents(app, id)), ['pending', 'sent']);
  clock.advance(SWEEP_AGE_MS + 1_000);
  t.equal(await app.app.feed.sweep(cutoff()), 1, 'one command event owed');
  t.same(statuses(await commandEvents(app, id)), ['pending', 'sent', 'success']);
  t.equal(await app.app.feed.sweep(), 0, 'nothing owed any more');
  t.same(statuses(await commandEvents(app, id)), ['pending', 'sent', 'success'], 'stored once');
});

t.test('a live result clears its marker with its event: nothing is owed afterwards', async (t) => {
  const app = await startApp(t, { config: { longpollS: 0 } });
  const id = await delivered(t, app, 'CMDOUT03');
  t.same(await answer(app, 'CMDOUT03', id, 0), { status: 200, text: 'OK' });
  const events = await commandEvents(app, id);
  t.same(statuses(events), ['pending', 'sent', 'success']);
  t.same(await app.app.store.commands.unannounced(10), [], 'no command owes an event');
  t.equal(await app.app.feed.sweep(), 0);
  t.same(statuses(await commandEvents(app, id)), ['pending', 'sent', 'success'], 'a sweep adds nothing');
});

t.test('API-made command changes whose feed append fails are stored at the next start, as the commands stand', async (t) => {
  const first = await startApp(t, { config: { longpollS: 0 } });
  t.equal((await api(first, 'POST', '/api/devices', { sn: 'CMDOUT04' })).res.status, 201);
  fault(true);
  const queued = await api(first, 'POST', '/api/commands', { sn: 'CMDOUT04', command: 'check' });
  t.equal(queued.res.status, 201, 'queued');
  const kept = (queued.body as { id: number }).id;
  const other = await api(first, 'POST', '/api/commands', { sn: 'CMDOUT04', command: 'reboot' });
  const cancelled = (other.body as { id: number }).id;
  t.equal((await api(first, 'DELETE', `/api/commands/${cancelled}`)).res.status, 200, 'cancelled');
  await first.app.feed.settled();
  t.same(statuses(await commandEvents(first, kept)), [], 'no event stored yet');
  t.same(statuses(await commandEvents(first, cancelled)), []);
  await first.close();
  fault(false);

  const second = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  t.same(statuses(await commandEvents(second, kept, first.locationId)), ['pending'], 'the queued command is announced');
  const events = await commandEvents(second, cancelled, first.locationId);
  t.same(statuses(events), ['failed'], 'the cancelled one as it stands: failed (its newer marker replaced the older)');
  const last = events.at(-1);
  t.equal(last?.type === 'command.updated' ? last.data.command['error_message'] : undefined, 'cancelled');
  t.same(await second.app.store.commands.unannounced(10), [], 'nothing owed any more');
});

t.test('a delivery whose sent event the feed could not store: the event is stored at the next start', async (t) => {
  const first = await startApp(t, { config: { longpollS: 0 } });
  const sn = 'CMDOUT09';
  t.equal((await api(first, 'POST', '/api/devices', { sn })).res.status, 201);
  await (await fetch(`${first.url}/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1`)).text();
  const queued = await api(first, 'POST', '/api/commands', { sn, command: 'check' });
  const id = (queued.body as { id: number }).id;
  await first.app.feed.settled();
  t.same(statuses(await commandEvents(first, id)), ['pending'], 'queued: announced');
  fault(true);
  t.match(await (await fetch(`${first.url}/iclock/getrequest?SN=${sn}`)).text(), new RegExp(`^C:${id}:`), 'the command goes out');
  await first.app.feed.settled();
  t.equal((await first.app.store.commands.getById(id))?.status, 'sent', 'the claim is stored');
  await first.close();
  fault(false);

  const second = await startApp(t, { storeUrl: first.storeUrl, config: { longpollS: 0 } });
  await second.app.feed.sweep();
  t.same(
    statuses(await commandEvents(second, id, first.locationId)),
    ['pending', 'sent'],
    'the sent event reaches the feed after the restart',
  );
});
