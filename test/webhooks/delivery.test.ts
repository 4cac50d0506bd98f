// Issue #16 "Verified by": webhooks through the real app, a real receiver on loopback and a fake
// clock. Signatures are checked with an independent Standard Webhooks implementation (receiver.ts).
import t from 'tap';
import type * as Tap from 'tap';
import { ADMIN_TOKEN, bearer, fakeClock, fetchJson, freePort, jsonBody, logCapture, startApp, type StartedApp } from '../helpers/app.js';
import { startReceiver, verifySignature } from './receiver.js';

const HOUR = 3_600_000;
const OPEN = { webhookAllowPrivate: 'on', webhookAllowHttp: 'on', adminToken: ADMIN_TOKEN } as const;

interface Created {
  id: number;
  secret: string;
}

function client(app: StartedApp, token = app.token) {
  return (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));
}

async function subscribe(t: Tap.Test, app: StartedApp, url: string, events: string[] = ['user.changed']): Promise<Created> {
  const { res, body } = await client(app)('POST', '/api/webhooks', { url, events, description: 'payroll' });
  t.equal(res.status, 201, 'webhook created');
  return body as Created;
}

/** A feed event: a user written through the API (`user.changed`). */
async function userChanged(app: StartedApp, pin: number, token = app.token): Promise<void> {
  const { res } = await client(app, token)('POST', '/api/users', { pin, first_name: `U${pin}` });
  if (res.status !== 201) throw new Error(`user ${pin}: ${res.status}`);
  await app.app.feed.settled();
}

async function deliveries(app: StartedApp, id: number, token = app.token) {
  return (await client(app, token)('GET', `/api/webhooks/${id}/deliveries?limit=100`)).body as {
    total: number;
    data: Record<string, unknown>[];
  };
}

t.test('signed with the Standard Webhooks scheme; body shape; secret shown once; rotation signs with both secrets for 24 h', async (t) => {
  const clock = fakeClock();
  const logs = logCapture();
  const app = await startApp(t, { clock, logs, config: OPEN });
  const rx = await startReceiver(t);
  const hook = await subscribe(t, app, rx.url);
  t.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'whsec_ + base64 of 32 bytes');

  const listed = (await client(app)('GET', '/api/webhooks')).body as { data: Record<string, unknown>[] };
  t.match(listed.data, [
    { id: hook.id, url: rx.url, events: ['user.changed'], description: 'payroll', enabled: true, disabled_reason: null },
  ]);
  t.notOk(JSON.stringify(listed).includes(hook.secret), 'the list never shows the secret');
  t.notOk(JSON.stringify((await client(app)('GET', `/api/webhooks/${hook.id}`)).body).includes('whsec_'), 'nor does GET one');

  await userChanged(app, 1);
  await app.app.webhooks.runOnce();
  t.equal(rx.received.length, 1, 'one POST');
  const [first] = rx.received;
  if (!first) return;
  t.equal(first.headers['content-type'], 'application/json');
  t.ok(verifySignature(hook.secret, first.headers, first.body), 'the signature verifies with the secret (independent HMAC)');
  t.notOk(verifySignature(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, first.headers, first.body), 'and not with another secret');
  t.notOk(verifySignature(hook.secret, first.headers, first.body.replace('"upserted"', '"deleted"')), 'nor for a changed body');
  t.equal(first.headers['webhook-timestamp'], String(Math.floor(clock.now().getTime() / 1000)), 'timestamp in seconds');
  const body = JSON.parse(first.body) as Record<string, unknown>;
  t.match(body, {
    id: first.headers['webhook-id'],
    type: 'user.changed',
    location_id: app.locationId,
    data: { pins: [1], change: 'upserted' },
  });
  t.same(Object.keys(body).sort(), ['created_at', 'data', 'id', 'location_id', 'type']);

  // Rotation: the new secret is returned once; for 24 h both sign.
  const rotated = (await client(app)('POST', `/api/webhooks/${hook.id}/rotate-secret`)).body as Created & {
    previous_secret_valid_until: string;
  };
  t.not(rotated.secret, hook.secret);
  t.equal(rotated.previous_secret_valid_until, new Date(clock.now().getTime() + 24 * HOUR).toISOString());
  const ping = await client(app)('POST', `/api/webhooks/${hook.id}/test`);
  t.equal(ping.res.status, 202, 'test ping queued');
  await app.app.webhooks.runOnce();
  const during = rx.received[1];
  t.equal(JSON.parse(during?.body ?? '{}').type, 'ping');
  t.equal(String(during?.headers['webhook-signature']).split(' ').length, 2, 'two signatures');
  t.ok(during && verifySignature(rotated.secret, during.headers, during.body), 'the new secret verifies');
  t.ok(during && verifySignature(hook.secret, during.headers, during.body), 'the old one still does');
  clock.advance(24 * HOUR + 1000);
  await client(app)('POST', `/api/webhooks/${hook.id}/test`);
  await app.app.webhooks.runOnce();
  const after = rx.received[2];
  t.ok(after && verifySignature(rotated.secret, after.headers, after.body), 'after 24 h: the new secret');
  t.notOk(after && verifySignature(hook.secret, after.headers, after.body), 'the old one no longer');
  t.notOk(logs.text().includes(hook.secret.slice(6)) || logs.text().includes(rotated.secret.slice(6)), 'no secret in any log line');
});

t.test('a receiver that fails 5 times then succeeds gets the event once more, attempts = 6, on the back-off schedule', async (t) => {
  const clock = fakeClock();
  const app = await startApp(t, { clock, config: OPEN });
  const rx = await startReceiver(t, (n) => (n < 5 ? { status: 500, body: 'x'.repeat(10_000) } : { status: 200 }));
  const hook = await subscribe(t, app, rx.url);
  await userChanged(app, 1);
  await app.app.webhooks.runOnce();
  let [d] = (await deliveries(app, hook.id)).data;
  t.match(d, { status: 'pending', attempts: 1, last_status_code: 500 });
  t.ok(String(d?.['last_error']).length < 220, 'the error keeps a short part of the response only');
  const retryIn = Date.parse(String(d?.['next_attempt_at'])) - clock.now().getTime();
  t.ok(retryIn >= 4_000 && retryIn <= 6_000, `first retry after 5 s ± 20 % (${retryIn} ms)`);
  await app.app.webhooks.runOnce();
  t.equal(rx.received.length, 1, 'not before it is due');
  for (let i = 0; i < 5; i++) {
    clock.advance(2 * HOUR); // past every delay up to the 5th (1 h ± 20 %)
    await app.app.webhooks.runOnce();
  }
  t.equal(rx.received.length, 6, 'six attempts reached the receiver');
  t.equal(new Set(rx.received.map((r) => r.headers['webhook-id'])).size, 1, 'all with the same webhook-id');
  t.equal(new Set(rx.received.map((r) => r.body)).size, 1, 'and the same body');
  [d] = (await deliveries(app, hook.id)).data;
  t.match(d, { status: 'delivered', attempts: 6, last_status_code: 200, last_error: null, next_attempt_at: null });
  t.equal((await deliveries(app, hook.id)).total, 1, 'one delivery');
  const metrics = await app.app.metrics.render();
  t.match(metrics, /biogate_webhook_deliveries_total\{outcome="retrying",node="[^"]+"\} 5/);
  t.match(metrics, /biogate_webhook_deliveries_total\{outcome="delivered",node="[^"]+"\} 1/);
  t.match(metrics, /biogate_webhook_queue_depth\{node="[^"]+"\} 0/);
});

t.test('Retry-After is honoured', async (t) => {
  const clock = fakeClock();
  const app = await startApp(t, { clock, config: OPEN });
  const rx = await startReceiver(t, () => ({ status: 503, headers: { 'retry-after': '7200' } }));
  const hook = await subscribe(t, app, rx.url);
  await userChanged(app, 1);
  await app.app.webhooks.runOnce();
  const [d] = (await deliveries(app, hook.id)).data;
  t.equal(d?.['next_attempt_at'], new Date(clock.now().getTime() + 2 * HOUR).toISOString(), 'next attempt exactly when the receiver asked');
  t.match(await app.app.metrics.render(), /biogate_webhook_queue_depth\{node="[^"]+"\} 1/, 'queue depth counts it');
  t.equal(rx.received.length, 1);
});

t.test('an unreachable receiver: one attempt per pass, the other deliveries wait with it', async (t) => {
  const clock = fakeClock();
  const app = await startApp(t, { clock, config: OPEN });
  const hook = await subscribe(t, app, `http://127.0.0.1:${await freePort()}/hook`); // nothing listens there
  for (const pin of [1, 2, 3]) await userChanged(app, pin);
  await app.app.webhooks.runOnce();
  let list = (await deliveries(app, hook.id)).data;
  t.same(list.map((d) => d['attempts']).sort(), [0, 0, 1], 'the first failed without an answer; the others were not tried');
  t.match(
    list.find((d) => d['attempts'] === 1),
    { status: 'pending', last_status_code: null, last_error: /ECONNREFUSED/ },
  );
  clock.advance(10_000);
  await app.app.webhooks.runOnce();
  list = (await deliveries(app, hook.id)).data;
  t.same(list.map((d) => d['attempts']).sort(), [0, 0, 2], 'next pass: the first again, after its back-off');
});

t.test('410 Gone disables the subscription; a PATCH re-enables it', async (t) => {
  const clock = fakeClock();
  const logs = logCapture();
  const app = await startApp(t, { clock, logs, config: OPEN });
  const rx = await startReceiver(t, () => ({ status: 410 }));
  const hook = await subscribe(t, app, rx.url);
  await userChanged(app, 1);
  await app.app.webhooks.runOnce();
  const view = (await client(app)('GET', `/api/webhooks/${hook.id}`)).body as Record<string, unknown>;
  t.match(view, { enabled: false, disabled_reason: /410 Gone/ });
  t.match((await deliveries(app, hook.id)).data, [{ status: 'failed', attempts: 1, last_status_code: 410 }]);
  t.ok(
    logs.entries().some((e) => e['msg'] === 'webhook subscription disabled' && e['webhook_id'] === hook.id),
    'a log line says so',
  );
  await userChanged(app, 2);
  clock.advance(HOUR);
  await app.app.webhooks.runOnce();
  t.equal(rx.received.length, 1, 'nothing more is sent');
  rx.answer = () => ({ status: 200 });
  const patched = (await client(app)('PATCH', `/api/webhooks/${hook.id}`, { enabled: true })).body as Record<string, unknown>;
  t.match(patched, { enabled: true, disabled_reason: null });
  await app.app.webhooks.runOnce();
  // Issue #32: re-enabling no longer drops the failed delivery: it goes again, before the newer event.
  t.equal(rx.received.length, 3, 're-enabled: the failed delivery is re-queued and the event the feed still keeps is delivered');
  t.match(JSON.parse(rx.received[1]?.body ?? '{}'), { data: { pins: [1] } });
  t.match(JSON.parse(rx.received[2]?.body ?? '{}'), { data: { pins: [2] } });
});

t.test('failing for the whole 24 h window: the delivery fails and the subscription is disabled with a reason', async (t) => {
  const clock = fakeClock();
  const logs = logCapture();
  const app = await startApp(t, { clock, logs, config: OPEN });
  const rx = await startReceiver(t, () => ({ status: 500 }));
  const hook = await subscribe(t, app, rx.url);
  await userChanged(app, 1);
  await app.app.webhooks.runOnce();
  for (let i = 0; i < 3; i++) {
    clock.advance(9 * HOUR);
    await app.app.webhooks.runOnce();
    if (i < 2)
      t.equal(
        ((await client(app)('GET', `/api/webhooks/${hook.id}`)).body as { enabled: boolean }).enabled,
        true,
        `still enabled after ${(i + 1) * 9} h`,
      );
  }
  t.match((await deliveries(app, hook.id)).data, [{ status: 'failed', attempts: 4, next_attempt_at: null }], 'given up after 24 h');
  t.match((await client(app)('GET', `/api/webhooks/${hook.id}`)).body, { enabled: false, disabled_reason: /failed for 24 h.*HTTP 500/ });
  t.ok(
    logs.entries().some((e) => e['msg'] === 'webhook subscription disabled' && /24 h/.test(String(e['reason']))),
    'and a log line',
  );
  t.match(await app.app.metrics.render(), /biogate_webhook_deliveries_total\{outcome="failed",node="[^"]+"\} 1/);
});

t.test('destinations: private addresses and plain http are refused unless allowed; checked again at connect time', async (t) => {
  const rx = await startReceiver(t);
  const port = new URL(rx.url).port;
  const strict = await startApp(t, { config: { webhookAllowHttp: 'on' } });
  const api = client(strict);
  for (const url of [
    rx.url,
    `http://localhost:${port}/hook`,
    'http://[::1]/x',
    'http://169.254.169.254/latest/meta-data',
    'http://10.1.2.3/',
    'http://[::ffff:192.168.1.1]/',
  ]) {
    const { res, body } = await api('POST', '/api/webhooks', { url, events: ['user.changed'] });
    t.equal(res.status, 422, `${url}: refused`);
    t.match(body, { code: 'VALIDATION_FAILED', detail: [{ loc: ['body', 'url'], msg: /BIOGATE_WEBHOOK_ALLOW_PRIVATE/ }] });
  }
  const noHttp = await startApp(t, { config: { webhookAllowPrivate: 'on' } });
  const plain = await client(noHttp)('POST', '/api/webhooks', { url: rx.url, events: ['user.changed'] });
  t.match(plain.body, { code: 'VALIDATION_FAILED', detail: [{ msg: /BIOGATE_WEBHOOK_ALLOW_HTTP/ }] }, 'http:// needs the setting');
  t.match(
    (await client(noHttp)('POST', '/api/webhooks', { url: 'https://u:p@example.com/', events: ['user.changed'] })).body,
    { code: 'VALIDATION_FAILED' },
    'no credentials in URLs',
  );

  // Created while allowed, then the operator turns it off: the connection is refused (resolved address checked).
  const clock = fakeClock();
  const open = await startApp(t, { clock, config: OPEN });
  const hook = await subscribe(t, open, `http://localhost:${port}/hook`);
  await open.close();
  const closed = await startApp(t, { clock, storeUrl: open.storeUrl, config: { webhookAllowHttp: 'on' } });
  await userChanged(closed, 1, open.token);
  await closed.app.webhooks.runOnce();
  t.equal(rx.received.length, 0, 'nothing reached the private address');
  const [d] = (await deliveries(closed, hook.id, open.token)).data;
  t.match(d, {
    status: 'pending',
    attempts: 1,
    last_status_code: null,
    last_error: /refused: .*(127\.0\.0\.1|::1).*BIOGATE_WEBHOOK_ALLOW_PRIVATE/,
  });
});

t.test('scopes, validation and not-found answers', async (t) => {
  const app = await startApp(t, { config: OPEN });
  const issue = async (scope: string) =>
    (
      (await fetchJson(`${app.url}/admin/locations/${app.locationId}/tokens`, jsonBody('POST', { scope }, bearer(ADMIN_TOKEN)))).body as {
        token: string;
      }
    ).token;
  const read = client(app, await issue('read'));
  const operator = client(app, await issue('operator'));
  const rx = await startReceiver(t);
  const hook = await subscribe(t, app, rx.url);
  t.equal((await read('GET', '/api/webhooks')).res.status, 200, 'read lists');
  t.equal((await read('GET', `/api/webhooks/${hook.id}/deliveries`)).res.status, 200, 'read sees deliveries');
  t.match((await read('POST', '/api/webhooks', { url: rx.url, events: ['ping'] })).body, { code: 'SCOPE_DENIED' });
  t.match(
    (await operator('POST', '/api/webhooks', { url: rx.url, events: ['user.changed'] })).body,
    { code: 'SCOPE_DENIED' },
    'operator may not manage',
  );
  t.match((await operator('DELETE', `/api/webhooks/${hook.id}`)).body, { code: 'SCOPE_DENIED' });
  t.match((await operator('POST', `/api/webhooks/${hook.id}/rotate-secret`)).body, { code: 'SCOPE_DENIED' });
  const api = client(app);
  t.match((await api('POST', '/api/webhooks', { url: rx.url, events: ['nope'] })).body, { code: 'VALIDATION_FAILED' });
  t.match((await api('POST', '/api/webhooks', { url: rx.url, events: [] })).body, { code: 'VALIDATION_FAILED' });
  t.match((await api('POST', '/api/webhooks', { url: 'ftp://x/', events: ['user.changed'] })).body, { code: 'VALIDATION_FAILED' });
  t.match((await api('GET', '/api/webhooks/999')).body, { code: 'WEBHOOK_NOT_FOUND' });
  t.equal((await api('DELETE', `/api/webhooks/${hook.id}`)).res.status, 200);
  t.match((await api('DELETE', `/api/webhooks/${hook.id}`)).body, { code: 'WEBHOOK_NOT_FOUND' });
  const other = (
    (await fetchJson(`${app.url}/admin/locations`, jsonBody('POST', { name: 'Other' }, bearer(ADMIN_TOKEN)))).body as { token: string }
  ).token;
  const mine = await subscribe(t, app, rx.url);
  t.match(
    (await client(app, other)('GET', `/api/webhooks/${mine.id}`)).body,
    { code: 'WEBHOOK_NOT_FOUND' },
    'another location cannot see it',
  );
  const doc = (await api('GET', '/api/openapi.json')).body as { paths: Record<string, unknown> };
  t.ok(doc.paths?.['/api/webhooks/{webhook_id}/rotate-secret'], 'in the OpenAPI document');
});
