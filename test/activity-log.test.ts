// The operator's info lines [issue #19 "Logs and metrics"]: device registered (first contact of an
// unknown serial), assigned, online, offline, unassigned; a command's final status; an import's
// summary. A real app on a real store, a simulated terminal over real HTTP, the log captured as JSON.
import t from 'tap';
import { createSimulatedDevice } from '../src/simulator/index.js';
import { bearer, fakeClock, fetchJson, jsonBody, logCapture, startApp, waitFor } from './helpers/app.js';

type Entry = Record<string, unknown>;

t.test('an operator follows a terminal and its commands at info level', async (t) => {
  const logs = logCapture();
  const clock = fakeClock();
  const app = await startApp(t, { logs, clock, config: { onlineThresholdS: 60 } });
  const auth = bearer(app.token);
  const lines = (msg: string): Entry[] => logs.entries().filter((e) => e['msg'] === msg);
  const one = async (msg: string, match: (e: Entry) => boolean = () => true): Promise<Entry> => {
    await waitFor(() => lines(msg).some(match), 5_000, `a "${msg}" log line`);
    return lines(msg).find(match)!;
  };

  const sim = createSimulatedDevice({ url: app.url, sn: 'LOGV2', protocol: 'v2', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  const registered = await one('unknown device registered: waiting to be assigned');
  t.equal(registered['sn'], 'LOGV2', 'first contact names the serial');
  t.equal(registered['level'], 'info', 'at info');

  const assign = await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn: 'LOGV2' }, auth));
  t.equal(assign.res.status, 201);
  t.match(await one('device assigned'), { sn: 'LOGV2', location_id: Number });
  await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn: 'LOGV2' }, auth));
  t.equal(lines('device assigned').length, 1, 'assigning again (200, nothing changed) is not a new line');

  await sim.pollOnce();
  t.match(await one('device online'), { sn: 'LOGV2' });

  const ok = await fetchJson(`${app.url}/api/commands`, jsonBody('POST', { sn: 'LOGV2', command: 'info' }, auth));
  const bad = await fetchJson(
    `${app.url}/api/commands`,
    jsonBody('POST', { sn: 'LOGV2', command: 'custom', params: { command: 'NO SUCH COMMAND' } }, auth),
  );
  const okId = (ok.body as { id: number }).id;
  const badId = (bad.body as { id: number }).id;
  for (let i = 0; i < 10 && lines('command failed').length + lines('command succeeded').length < 2; i++) await sim.pollOnce();
  t.match(await one('command succeeded', (e) => e['id'] === okId), { sn: 'LOGV2', command: 'info', status: 'success', origin: 'api' });
  const failed = await one('command failed', (e) => e['id'] === badId);
  t.match(failed, { sn: 'LOGV2', command: 'custom', status: 'failed', error: String });
  t.notOk('response' in failed, "the device's raw answer is not logged");
  t.notOk(
    logs.entries().some((e) => e['msg'] === 'command succeeded' && e['origin'] === 'sync'),
    'roster sync ops are not logged one by one',
  );

  const imported = await fetchJson(`${app.url}/api/users/import`, jsonBody('POST', [{ pin: 1, first_name: 'Ann' }, { pin: 'x' }], auth));
  t.equal(imported.res.status, 200);
  t.match(await one('users imported'), { items: 2, written: 1, errors: 1, dry_run: false });

  clock.advance(120_000);
  await app.app.hub.sweepPresence();
  t.match(await one('device offline'), { sn: 'LOGV2' });

  await fetchJson(`${app.url}/api/devices/LOGV2`, { method: 'DELETE', headers: auth });
  t.match(await one('device unassigned'), { sn: 'LOGV2' });

  t.notOk(logs.text().includes(app.token), 'the token never appears in the log');
  t.notOk(
    logs.entries().some((e) => e['msg'] === 'api request' && String(e['path'] ?? e['route']).includes('getrequest')),
    'device polls are not logged at info',
  );
});
