// Issue #32 item 6: failed deliveries are not lost for good. POST /api/webhooks/{id}/redeliver queues a
// subscription's failed deliveries since a time again; re-enabling a webhook does the same for what it kept.
import t from 'tap';
import type * as Tap from 'tap';
import { ADMIN_TOKEN, bearer, fakeClock, fetchJson, jsonBody, startApp, type StartedApp } from '../helpers/app.js';
import { startReceiver } from './receiver.js';

const HOUR = 3_600_000;
const OPEN = { webhookAllowPrivate: 'on', webhookAllowHttp: 'on', adminToken: ADMIN_TOKEN } as const;

function client(app: StartedApp, token = app.token) {
  return (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));
}

async function subscribe(t: Tap.Test, app: StartedApp, url: string): Promise<number> {
  const { res, body } = await client(app)('POST', '/api/webhooks', { url, events: ['user.changed'] });
  t.equal(res.status, 201, 'webhook created');
  return (body as { id: number }).id;
}

async function userChanged(app: StartedApp, pin: number): Promise<void> {
  const { res } = await client(app)('POST', '/api/users', { pin, first_name: `U${pin}` });
  if (res.status !== 201) throw new Error(`user ${pin}: ${res.status}`);
  await app.app.feed.settled();
}

const pinsOf = (body: string) => (JSON.parse(body) as { data: { pins: number[] } }).data.pins;

async function deliveries(app: StartedApp, id: number) {
  return ((await client(app)('GET', `/api/webhooks/${id}/deliveries?limit=100`)).body as { data: Record<string, unknown>[] }).data;
}

t.test('redeliver: failed deliveries since a time go again, with a new 24 h of retries; 202 with the count', async (t) => {
  const clock = fakeClock();
  const app = await startApp(t, { clock, config: OPEN });
  let refuse = true;
  // The receiver refuses pin 1 (HTTP 400) until fixed; everything else is taken.
  const rx = await startReceiver(t, (_n, r) => (refuse && pinsOf(r.body)[0] === 1 ? { status: 400 } : { status: 204 }));
  const hook = await subscribe(t, app, rx.url);
  const start = clock.now().toISOString();
  await userChanged(app, 1);
  await app.app.webhooks.runOnce();
  clock.advance(12 * HOUR);
  await userChanged(app, 2); // delivered: the subscription is not failing as a whole
  await app.app.webhooks.runOnce();
  for (let i = 0; i < 3; i++) {
    clock.advance(6 * HOUR);
    await app.app.webhooks.runOnce();
  }
  const failed = (await deliveries(app, hook)).find((d) => d['status'] === 'failed');
  t.match(failed, { status: 'failed', last_status_code: 400, next_attempt_at: null, requeued_at: null }, 'pin 1 gave up after 24 h');
  t.match((await client(app)('GET', `/api/webhooks/${hook}`)).body, { enabled: true }, 'the subscription stays enabled');
  const attemptsBefore = Number(failed?.['attempts']);
  const received = rx.received.length;

  const api = client(app);
  t.match(
    await api('POST', `/api/webhooks/${hook}/redeliver`, { since: clock.now().toISOString() }),
    { res: { status: 202 }, body: { count: 0 } },
    'none since now',
  );
  t.match(
    await api('POST', `/api/webhooks/${hook}/redeliver`, { since: '2020-01-01T00:00:00Z', until: start }),
    { res: { status: 202 }, body: { count: 0 } },
    'none before it was created (until is exclusive)',
  );
  refuse = false;
  const { res, body } = await api('POST', `/api/webhooks/${hook}/redeliver`, { since: start });
  t.equal(res.status, 202);
  t.same(body, { count: 1 }, 'the failed one is queued again (the delivered one is not)');
  t.same(((await api('POST', `/api/webhooks/${hook}/redeliver`, { since: start })).body as { count: number }).count, 0, 'queued once');
  await app.app.webhooks.runOnce();
  t.equal(rx.received.length, received + 1, 'sent again');
  t.same(pinsOf(rx.received.at(-1)?.body ?? '{}'), [1]);
  t.equal(rx.received.at(-1)?.headers['webhook-id'], rx.received[0]?.headers['webhook-id'], 'the same webhook-id as before');
  const again = (await deliveries(app, hook)).find((d) => d['id'] === failed?.['id']);
  t.match(again, { status: 'delivered', attempts: attemptsBefore + 1, requeued_at: clock.now().toISOString() });
});

t.test('redeliver: scope, validation, not found', async (t) => {
  const app = await startApp(t, { config: OPEN });
  const rx = await startReceiver(t);
  const hook = await subscribe(t, app, rx.url);
  const read = await fetchJson(
    `${app.url}/admin/locations/${app.locationId}/tokens`,
    jsonBody('POST', { scope: 'read' }, bearer(ADMIN_TOKEN)),
  );
  const readToken = (read.body as { token: string }).token;
  t.match(await client(app, readToken)('POST', `/api/webhooks/${hook}/redeliver`, { since: '2026-01-01T00:00:00Z' }), {
    res: { status: 403 },
    body: { code: 'SCOPE_DENIED' },
  });
  const api = client(app);
  t.match(
    await api('POST', `/api/webhooks/${hook}/redeliver`, {}),
    { res: { status: 422 }, body: { code: 'VALIDATION_FAILED' } },
    'since is required',
  );
  t.match(await api('POST', `/api/webhooks/${hook}/redeliver`, { since: 'yesterday' }), { res: { status: 422 } }, 'an ISO time');
  t.match(
    await api('POST', `/api/webhooks/${hook}/redeliver`, { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' }),
    { res: { status: 422 }, body: { detail: [{ loc: ['body', 'until'] }] } },
    'until after since',
  );
  t.match(await api('POST', '/api/webhooks/999999/redeliver', { since: '2026-01-01T00:00:00Z' }), {
    res: { status: 404 },
    body: { code: 'WEBHOOK_NOT_FOUND' },
  });
});

t.test('re-enabling a disabled webhook queues its failed deliveries again', async (t) => {
  const clock = fakeClock();
  const app = await startApp(t, { clock, config: OPEN });
  const rx = await startReceiver(t, () => ({ status: 500 }));
  const hook = await subscribe(t, app, rx.url);
  await userChanged(app, 1);
  await app.app.webhooks.runOnce();
  for (let i = 0; i < 3; i++) {
    clock.advance(9 * HOUR);
    await app.app.webhooks.runOnce();
  }
  t.match((await client(app)('GET', `/api/webhooks/${hook}`)).body, { enabled: false, disabled_reason: /failed for 24 h/ });
  t.match(await deliveries(app, hook), [{ status: 'failed' }]);
  rx.answer = () => ({ status: 204 });
  const received = rx.received.length;
  t.match((await client(app)('PATCH', `/api/webhooks/${hook}`, { enabled: true })).body, { enabled: true, paused_until: null });
  await app.app.webhooks.runOnce();
  t.equal(rx.received.length, received + 1, 'the failed delivery went again');
  t.match(await deliveries(app, hook), [{ status: 'delivered', requeued_at: /^\d{4}-/ }]);
  t.match(
    (await client(app)('PATCH', `/api/webhooks/${hook}`, { enabled: true })).res,
    { status: 200 },
    'enabling an enabled one queues nothing',
  );
  await app.app.webhooks.runOnce();
  t.equal(rx.received.length, received + 1);
});
