// Issue #32 item 6: one lane per subscription. A receiver that never answers (until the test releases it)
// holds only its own subscription; nothing here is timed: every wait is for an event (a request arriving),
// bounded only so that a failure ends the test.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import t from 'tap';
import type * as Tap from 'tap';
import { ADMIN_TOKEN, bearer, fakeClock, fetchJson, jsonBody, logCapture, startApp, waitFor, type StartedApp } from '../helpers/app.js';
import { startReceiver } from './receiver.js';

const OPEN = { webhookAllowPrivate: 'on', webhookAllowHttp: 'on', adminToken: ADMIN_TOKEN } as const;
/** Generous bound for a wait that succeeds at once when the gateway is right. */
const BOUND_MS = 20_000;

/** A receiver that answers nothing until `release()`. */
async function heldReceiver(t: Tap.Test) {
  const open: { req: IncomingMessage; res: ServerResponse }[] = [];
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      open.push({ req, res });
    });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    received: () => received,
    /** Requests not answered whose connection is still open. */
    waiting: () => open.filter((o) => !o.req.socket.destroyed).length,
    release(status = 200) {
      for (const o of open.splice(0)) if (!o.req.socket.destroyed) o.res.writeHead(status).end();
    },
  };
}

function client(app: StartedApp, token: string) {
  return (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));
}

async function secondTenant(app: StartedApp): Promise<string> {
  const { res, body } = await fetchJson(`${app.url}/admin/locations`, jsonBody('POST', { name: 'Tenant B' }, bearer(ADMIN_TOKEN)));
  if (res.status !== 201) throw new Error(`location: ${res.status}`);
  return (body as { token: string }).token;
}

async function subscribe(app: StartedApp, token: string, url: string): Promise<number> {
  const { res, body } = await client(app, token)('POST', '/api/webhooks', { url, events: ['user.changed'] });
  if (res.status !== 201) throw new Error(`subscribe: ${res.status}`);
  return (body as { id: number }).id;
}

async function userChanged(app: StartedApp, token: string, pin: number): Promise<void> {
  const { res } = await client(app, token)('POST', '/api/users', { pin, first_name: `U${pin}` });
  if (res.status !== 201) throw new Error(`user ${pin}: ${res.status}`);
  await app.app.feed.settled();
}

t.test("tenant A's receivers never answer: every delivery of tenant B arrives meanwhile, and A's once released", async (t) => {
  const clock = fakeClock();
  const app = await startApp(t, { clock, config: OPEN });
  const slow = await heldReceiver(t);
  const fast = await startReceiver(t);
  // Five subscriptions of A (more than a pass used to serve at once), then B's.
  const aHooks: number[] = [];
  for (let i = 0; i < 5; i++) aHooks.push(await subscribe(app, app.token, slow.url));
  const tokenB = await secondTenant(app);
  await subscribe(app, tokenB, fast.url);

  await userChanged(app, app.token, 1);
  for (const pin of [1, 2, 3]) await userChanged(app, tokenB, pin);
  const first = app.app.webhooks.runOnce(); // waits for A's lanes too: not awaited until A is released
  await waitFor(() => slow.waiting() >= 4, BOUND_MS, "A's requests under way");
  await waitFor(() => fast.received.length === 3, BOUND_MS, "B's three deliveries while A's receivers hold theirs");
  t.equal(fast.received.length, 3, "B's deliveries arrived");
  t.equal(slow.waiting(), 5, 'while all five A requests were still open, unanswered (none had timed out)');
  t.equal(slow.received(), 5, 'one request per A subscription (each lane sends one at a time)');

  // New events of B while A still holds: a later run serves B again; nothing waits for A's lanes.
  for (const pin of [4, 5]) await userChanged(app, tokenB, pin);
  void app.app.webhooks.runOnce();
  await waitFor(() => fast.received.length === 5, BOUND_MS, "B's later deliveries");
  t.same(
    fast.received.map((r) => (JSON.parse(r.body) as { data: { pins: number[] } }).data.pins[0]),
    [1, 2, 3, 4, 5],
    'B in feed order',
  );
  t.equal(slow.received(), 5, 'A got nothing more: its lanes are still waiting for their answers');

  slow.release();
  await first;
  await app.app.webhooks.runOnce();
  for (const id of aHooks) {
    const list = (await client(app, app.token)('GET', `/api/webhooks/${id}/deliveries`)).body as { data: { status: string }[] };
    t.match(list.data, [{ status: 'delivered' }], `A's subscription ${id}: delivered once released`);
  }
});

t.test('the socket cap: slow requests cannot fill it; past it they are cut off, and a ready lane still goes', async (t) => {
  const clock = fakeClock();
  const app = await startApp(t, { clock, config: { ...OPEN, webhookSockets: 2 } });
  const slow = await heldReceiver(t);
  const fast = await startReceiver(t);
  const aHooks: number[] = [];
  for (let i = 0; i < 6; i++) aHooks.push(await subscribe(app, app.token, slow.url));
  const tokenB = await secondTenant(app);
  const bHook = await subscribe(app, tokenB, fast.url);
  await userChanged(app, app.token, 1);
  await userChanged(app, tokenB, 1);
  void app.app.webhooks.runOnce(); // never resolves while two A requests hold their slow slots
  await waitFor(() => fast.received.length === 1, BOUND_MS, "B's delivery past six held A requests");
  await waitFor(() => slow.received() === 6 && slow.waiting() === 2, BOUND_MS, 'every A lane tried; two still held');
  t.match(
    await app.app.metrics.render(),
    /biogate_webhook_requests_in_flight\{age="slow",node="[^"]+"\} 2/,
    'two slow requests open (BIOGATE_WEBHOOK_SOCKETS=2)',
  );
  const views = async () =>
    Promise.all(aHooks.map(async (id) => (await client(app, app.token)('GET', `/api/webhooks/${id}`)).body as Record<string, unknown>));
  let cut: Record<string, unknown>[] = [];
  for (let i = 0; i < 400 && cut.length < 4; i++) {
    cut = (await views()).filter((v) => /cut off/.test(String(v['last_error'])));
    if (cut.length < 4) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.equal(cut.length, 4, 'the four A requests that found the slow slots taken were cut off');
  for (const v of cut) t.match(v, { paused_until: /^\d{4}-/, enabled: true }, 'cut off: paused until its retry, still enabled');
  t.match((await client(app, tokenB)('GET', `/api/webhooks/${bHook}`)).body, { paused_until: null, last_error: null });
  slow.release();
});

t.test('a receiver over its time budget is paused, reported, and resumes after the back-off', async (t) => {
  const clock = fakeClock();
  const logs = logCapture();
  const app = await startApp(t, { clock, logs, config: OPEN });
  const slow = await heldReceiver(t);
  const hook = await subscribe(app, app.token, slow.url);
  for (const pin of [1, 2, 3, 4]) await userChanged(app, app.token, pin);
  const run = app.app.webhooks.runOnce();
  // Three deliveries in a row take 6 s each (on the injected clock): the budget is 3 of 5 s or more.
  for (let n = 1; n <= 3; n++) {
    await waitFor(() => slow.received() === n, BOUND_MS, `request ${n}`);
    clock.advance(6_000);
    slow.release();
  }
  await run;
  t.equal(slow.received(), 3, 'the fourth waits: the lane is paused');
  const view = (await client(app, app.token)('GET', `/api/webhooks/${hook}`)).body as Record<string, unknown>;
  t.match(view, { enabled: true, paused_until: new Date(clock.now().getTime() + 60_000).toISOString(), last_error: /^slow: 3 deliveries/ });
  t.ok(
    logs.entries().some((e) => e['msg'] === 'webhook.paused' && e['webhook_id'] === hook && e['reason'] === 'slow'),
    'a webhook.paused log line',
  );
  t.match(await app.app.metrics.render(), /biogate_webhook_paused_total\{reason="slow",node="[^"]+"\} 1/);
  await app.app.webhooks.runOnce();
  t.equal(slow.received(), 3, 'nothing is sent while paused');
  clock.advance(61_000);
  const resumed = app.app.webhooks.runOnce();
  await waitFor(() => slow.received() === 4, BOUND_MS, 'the fourth after the pause');
  slow.release();
  await resumed;
  t.match(
    (await client(app, app.token)('GET', `/api/webhooks/${hook}`)).body,
    { paused_until: null, last_error: null },
    'a fast delivery clears it',
  );
});
