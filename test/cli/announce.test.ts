/**
 * Issue #20: what the CLI changes reaches a running gateway through the event feed, as if another
 * node had done it. The CLI stores its events (`command.updated`, `device.updated`, `user.changed`,
 * and the system signal `location.changed`), the gateway follows them (SQLite: the shared file is
 * watched; MongoDB: the change stream): a terminal's held poll gets a command queued by
 * `biogate command send` long before its hold ends, a terminal unassigned or a location disabled
 * by the CLI is answered at once, and the feed's consumers see the CLI's events.
 *
 * Held polls last 30 s and the gateway trusts the feed for 60 s here, so only the feed (or, for
 * MongoDB without change streams, the store re-check of an untrusted feed) can bring these in time.
 */
import t from 'tap';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { bearer, fetchJson, jsonBody, startApp, waitFor, type StartedApp } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';

/** One raw v2 `getrequest`; undefined when it was still held after `abortMs`. */
async function poll(app: StartedApp, sn: string, abortMs: number): Promise<string | undefined> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), abortMs);
  try {
    return await (await fetch(`${app.url}/iclock/getrequest?SN=${sn}`, { signal: ac.signal })).text();
  } catch (err) {
    if (ac.signal.aborted) return undefined;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** Polls an asynchronous condition until it holds (or fails after `ms`). */
async function eventually(condition: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function setup(tt: Parameters<typeof startApp>[0]) {
  const app = await startApp(tt, { config: { longpollS: 30 }, runtime: { pollTrust: { untrustedMs: 1_000, trustedMs: 60_000 } } });
  const env = { BIOGATE_STORE: app.storeUrl };
  const events: AnyFeedEvent[] = [];
  const sub = app.app.feed.subscribe({ locationId: null }, (e) => void events.push(e));
  tt.teardown(() => sub.close());
  const assign = async (sn: string) => {
    const r = await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn }, bearer(app.token)));
    if (r.res.status !== 201) throw new Error(`assigning ${sn}: ${r.res.status}`);
  };
  /** Starts a poll that the gateway holds (resolves once it does, with the poll's answer to come). */
  const held = async (sn: string) => {
    const answer = poll(app, sn, 20_000);
    await waitFor(() => app.app.hub.presence.isOnline(sn), 5_000, `${sn}'s poll held`);
    await new Promise((r) => setTimeout(r, 100));
    return { answer };
  };
  const fromCli = (type: string) => events.filter((e) => e.type === type && e.node.startsWith('cli-'));
  return { app, env, events, assign, held, fromCli, L: String(app.locationId) };
}

t.test('biogate command send: the held poll gets the command at once; the feed has its pending event', async (t) => {
  const { app, env, assign, held, fromCli, L } = await setup(t);
  await assign('ANN00001');
  t.equal(await poll(app, 'ANN00001', 300), undefined, 'assigned and idle: the poll is held');
  const { answer } = await held('ANN00001');
  const sent = await cli(['command', 'send', '--location', L, '--sn', 'ANN00001', 'info', '--json'], env);
  t.equal(sent.code, 0, sent.stderr);
  const id = (JSON.parse(sent.stdout) as { id: number }).id;
  t.match(await answer, new RegExp(`^C:${id}:INFO`), 'the held poll answered with it, long before its 30 s hold');
  if (!app.app.feed.clustered)
    return t.comment('this MongoDB offers no change streams: the CLI\'s events reach no gateway (README "Several nodes")');
  await waitFor(() => fromCli('command.updated').length > 0, 5_000, "the CLI's event");
  t.match(
    fromCli('command.updated')[0],
    { location_id: app.locationId, data: { command: { id, status: 'pending', sn: 'ANN00001' } } },
    'command.updated (pending) from the CLI',
  );
});

t.test('biogate device unassign and location disable: the next polls are answered at once; device.updated from the CLI', async (t) => {
  const { app, env, assign, fromCli, L } = await setup(t);
  for (const sn of ['ANN00002', 'ANN00003']) await assign(sn);
  t.equal(await poll(app, 'ANN00002', 300), undefined, 'assigned and idle: the poll is held');
  t.equal((await cli(['device', 'unassign', '--location', L, '--sn', 'ANN00002'], env)).code, 0);
  t.equal(await poll(app, 'ANN00002', 5_000), 'OK', 'unassigned by the CLI: the next poll is answered at once');

  t.equal(await poll(app, 'ANN00003', 300), undefined, 'the other one is still held');
  t.same(await cli(['location', 'disable', '--id', L], env), { code: 0, stdout: `Location ${L} "Default" disabled.\n`, stderr: '' });
  t.equal(await poll(app, 'ANN00003', 5_000), 'OK', 'its location disabled by the CLI: answered at once');
  if (!app.app.feed.clustered) return t.comment("this MongoDB offers no change streams: the CLI's events reach no gateway");
  await waitFor(() => fromCli('device.updated').length > 0, 5_000, "the CLI's event");
  t.match(fromCli('device.updated')[0], { data: { device: { serial_number: 'ANN00002' } } }, 'device.updated from the CLI');
});

t.test("biogate users import: user.changed events from the CLI reach the feed's consumers", async (t) => {
  const { app, env, fromCli, L } = await setup(t);
  if (!app.app.feed.clustered) return t.plan(0, 'this MongoDB offers no change streams');
  const dir = t.testdir({ 'users.csv': 'pin,first_name\n501,Ann\n502,Bo\n' });
  const r = await cli(['users', 'import', `${dir}/users.csv`, '--location', L], env);
  t.equal(r.code, 0, r.stderr);
  await waitFor(() => fromCli('user.changed').length > 0, 5_000, "the CLI's events");
  t.same(
    fromCli('user.changed')
      .flatMap((e) => (e.data as { pins: number[] }).pins)
      .sort(),
    [501, 502],
  );
});

t.test(
  "biogate token revoke and location disable: the gateway refuses the token at once, though it keeps callers' tokens for a minute",
  async (t) => {
    const { app, env, L } = await setup(t);
    const issued = JSON.parse((await cli(['token', 'create', '--location', L, '--json'], env)).stdout) as { id: number; token: string };
    const me = async (token: string) => (await fetchJson(`${app.url}/api/me`, { headers: bearer(token) })).res.status;
    t.equal(await me(issued.token), 200, 'the new token works (and is kept now)');
    t.equal((await cli(['token', 'revoke', '--id', String(issued.id)], env)).code, 0);
    await eventually(async () => (await me(issued.token)) === 401, 3_000, 'the revoked token refused');
    t.pass('revoked by the CLI: refused');
    t.equal(await me(app.token), 200, "the location's other token still works");
    t.equal((await cli(['location', 'disable', '--id', L], env)).code, 0);
    await eventually(async () => (await me(app.token)) === 403, 3_000, "the disabled location's token refused");
    t.pass('location disabled by the CLI: 403');
  },
);
