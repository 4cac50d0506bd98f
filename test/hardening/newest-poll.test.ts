/**
 * Issue #32 (18, low): several held polls of one serial. A terminal listens on its latest request, so
 * the newest getrequest wins: an older held poll of the same serial is answered at once with the empty
 * reply when a newer one arrives, and commands go only to the newest.
 */
import t from 'tap';
import { startApp, waitFor, within } from '../helpers/app.js';
import { client } from '../api/client.js';

t.test('a newer getrequest answers the older held one empty; the command goes to the newest', async (t) => {
  // Held 60 s: unless the older poll is let go when the newer arrives, `within` below ends first.
  const started = await startApp(t, { config: { longpollS: 60 } });
  const api = client(started.url, started.token);
  const sn = 'NEWPOLL1';
  t.equal((await api('POST', '/api/devices', { body: { sn } })).status, 201);
  const hs = await fetch(`${started.url}/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1`);
  t.equal(hs.status, 200);
  await hs.text();
  const presence = started.app.hub.presence;
  const poll = () => fetch(`${started.url}/iclock/getrequest?SN=${sn}`, { signal: AbortSignal.timeout(90_000) }).then((r) => r.text());

  const older = poll();
  await waitFor(() => presence.heldPolls(sn) === 1, 10_000, 'the first poll held');
  const newer = poll();
  t.equal(await within(10_000, 'the older poll answered when the newer one arrived', older), 'OK', 'older: the empty reply');
  await waitFor(() => presence.heldPolls(sn) === 1, 10_000, 'the newer poll held');

  const queued = await api<{ id: number }>('POST', '/api/commands', { body: { sn, command: 'info' } });
  t.equal(queued.status, 201);
  const got = await within(10_000, 'the newer poll gets the command', newer);
  t.match(got, new RegExp(`^C:${queued.body.id}:INFO`), 'the command went to the newest poll');
  t.equal(presence.heldPolls(sn), 0, 'nothing held any more');
});
