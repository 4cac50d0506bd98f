// The v2 access-window scheduler keeps its high-water mark in the store (sync/access-window-job.ts):
// after a restart it neither repeats the edges it already applied (the old in-memory mark looked
// back a day again) nor skips the edges that passed while it was down for longer than a day; of two
// nodes on one store, one sweeps a window.
import t from 'tap';
import { bearer, DAY_MS, fakeClock, fetchJson, jsonBody, startApp } from '../helpers/app.js';

t.test('a restart neither repeats nor skips a window edge; two nodes sweep a window once', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const first = await startApp(t, { clock });
  const post = (path: string, body: unknown) => fetchJson(`${first.url}${path}`, jsonBody('POST', body, bearer(first.token)));
  t.equal((await post('/api/devices', { sn: 'MARK0002' })).res.status, 201);
  // Pin 1's window closed at 06:00 today; pin 2's closes at 20:00 tomorrow (2 March).
  t.equal((await post('/api/users', { pin: 1, first_name: 'Early', end_time: '2026-03-01T06:00:00Z' })).res.status, 201);
  t.equal((await post('/api/users', { pin: 2, first_name: 'Later', end_time: '2026-03-02T20:00:00Z' })).res.status, 201);

  t.equal(await first.app.hub.sweepAccessWindows(), 1, 'the first sweep applies the edge of pin 1 (within the last day)');
  t.equal(await first.app.hub.sweepAccessWindows(), 0, 'nothing new');
  await first.close();

  const second = await startApp(t, { clock, storeUrl: first.storeUrl });
  t.equal(await second.app.hub.sweepAccessWindows(), 0, 'after a restart, the edge already applied is not applied again');
  await second.close();

  // Down for three days: pin 2's edge (2 March 20:00) passed more than a day before the restart.
  clock.advance(3 * DAY_MS);
  const third = await startApp(t, { clock, storeUrl: first.storeUrl });
  const fourth = await startApp(t, { clock, storeUrl: first.storeUrl });
  const swept = await Promise.all([third.app.hub.sweepAccessWindows(), fourth.app.hub.sweepAccessWindows()]);
  t.same(swept.sort(), [0, 1], 'the edge passed during the downtime is applied, by one of the two nodes');
});
