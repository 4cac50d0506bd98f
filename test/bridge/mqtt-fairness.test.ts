/**
 * Issue #32 item 8: on the embedded broker one tenant's client cannot disconnect another's by
 * reusing its client id (ids are namespaced per identity; an identity still takes over its own
 * session [MQTT-3.1.4-2]), a client holds at most MAX_FILTERS_PER_CLIENT subscription filters, and
 * command requests draw on the same per-token bucket as the REST API (BIOGATE_RATE_LIMIT_RPS).
 * Real `mqtt` clients against the real app; the fake clock stands still, so buckets do not refill.
 */
import t, { type Test } from 'tap';
import { MAX_FILTERS_PER_CLIENT } from '../../src/bridge/mqtt/embedded.js';
import type { MqttClient } from 'mqtt';
import { ADMIN_TOKEN, bearer, fakeClock, fetchJson, jsonBody, startApp, waitFor, within } from '../helpers/app.js';
import { connect, subscribeGrants } from './mqtt-client.js';

async function rig(t: Test, config: Record<string, unknown> = {}) {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const started = await startApp(t, { clock, config: { mqtt: 'embedded', mqttPort: 0, adminToken: ADMIN_TOKEN, ...config } });
  const url = `mqtt://127.0.0.1:${started.app.mqtt?.port ?? 0}`;
  const other = await started.app.locations.create({ name: 'Other' });
  return {
    started,
    clock,
    url,
    a: { id: started.locationId, token: started.token },
    b: { id: other.location.id, token: other.token.token },
  };
}

/** A SUBSCRIBE round trip: a connection the broker cut fails it (the bound only keeps a failing run short). */
const served = (client: MqttClient, filter: string) => within(5000, `a SUBACK for ${filter}`, client.subscribeAsync(filter));

t.test("a client of another location reusing a client id does not disconnect the first; the same location's does", async (t) => {
  const r = await rig(t);
  const a1 = await connect(t, r.url, { username: String(r.a.id), password: r.a.token, clientId: 'dashboard' });
  let a1Closed = false;
  a1.client.on('close', () => (a1Closed = true));

  const b = await connect(t, r.url, { username: String(r.b.id), password: r.b.token, clientId: 'dashboard' });
  let bClosed = false;
  b.client.on('close', () => (bClosed = true));
  // A round trip on each connection after B's CONNACK: a connection the broker cut fails it.
  await t.resolves(served(a1.client, `biogate/${r.a.id}/#`), 'A is still served after B used its client id');
  await t.resolves(served(b.client, `biogate/${r.b.id}/#`), 'B is served');
  t.notOk(a1Closed, 'A was not disconnected');
  t.ok(a1.client.connected && b.client.connected, 'both stay connected');

  // The admin with the same id is another identity too.
  const admin = await connect(t, r.url, { username: 'admin', password: ADMIN_TOKEN, clientId: 'dashboard' });
  await t.resolves(served(a1.client, `biogate/${r.a.id}/attendance`), 'A is still served after the admin used the id');
  await t.resolves(served(b.client, `biogate/${r.b.id}/attendance`), 'B too');
  t.ok(admin.client.connected);

  // Location A again with its own id: MQTT's session take-over [MQTT-3.1.4-2] still applies within an identity.
  const a2 = await connect(t, r.url, { username: String(r.a.id), password: r.a.token, clientId: 'dashboard' });
  await waitFor(() => a1Closed, 5000, 'the earlier connection of A with the same id to be closed');
  t.ok(a2.client.connected, 'the newer connection of A is served');
  await t.resolves(served(b.client, `biogate/${r.b.id}/commands/#`), "B's connection is untouched by A's take-over");
  t.notOk(bClosed);
});

t.test(`a client holds at most ${MAX_FILTERS_PER_CLIENT} subscription filters; more are refused in the SUBACK`, async (t) => {
  const r = await rig(t);
  const a = await connect(t, r.url, { username: String(r.a.id), password: r.a.token });
  const filters = (from: number, n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`biogate/${r.a.id}/devices/SN${from + i}/state`, { qos: 0 as const }]));

  const first = await subscribeGrants(a.client, filters(0, 60));
  t.equal(first.filter((g) => g === 0).length, 60, '60 filters granted');
  const second = await subscribeGrants(a.client, filters(60, 10));
  t.strictSame(second, [0, 0, 0, 0, 128, 128, 128, 128, 128, 128], 'up to 64 in all: the extra ones get 0x80');
  t.ok(a.client.connected, 'a refused filter does not disconnect');

  const again = await subscribeGrants(a.client, filters(0, 2));
  t.strictSame(again, [0, 0], 'subscribing again to a held filter takes no new slot');

  await a.client.unsubscribeAsync(Object.keys(filters(0, 3)));
  const after = await subscribeGrants(a.client, filters(100, 4));
  t.strictSame(after, [0, 0, 0, 128], 'an unsubscribe frees its slots');

  const many = await subscribeGrants(a.client, filters(1000, 5000));
  t.equal(many.filter((g) => g === 0).length, 0, '5,000 more filters in one SUBSCRIBE: none granted');
  const fresh = await connect(t, r.url, { username: String(r.a.id), password: r.a.token });
  const grants = await subscribeGrants(fresh.client, filters(0, 100));
  t.equal(grants.filter((g) => g === 0).length, MAX_FILTERS_PER_CLIENT, 'the bound is per client: another client has its own');
  const admin = await connect(t, r.url, { username: 'admin', password: ADMIN_TOKEN });
  const adminGrants = await subscribeGrants(admin.client, filters(0, 100));
  t.equal(adminGrants.filter((g) => g === 0).length, MAX_FILTERS_PER_CLIENT, 'the admin too');
});

t.test('command requests over MQTT draw on the same per-token bucket as the REST API', async (t) => {
  // 1 request/s with bursts of 2; the fake clock stands still, so nothing refills until it moves.
  const r = await rig(t, { rateLimitRps: 1 });
  const api = async (token: string, method: string, path: string, body?: unknown) =>
    (
      await fetchJson(
        `${r.started.url}${path}`,
        body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)),
      )
    ).res.status;
  const response = `biogate/${r.a.id}/response/command`;
  const request = `biogate/${r.a.id}/request/command`;
  const tokenX = await r.started.app.locations.issueToken({ location_id: r.a.id, scope: 'full', expires_in_days: null, label: null });
  const tokenY = await r.started.app.locations.issueToken({ location_id: r.a.id, scope: 'full', expires_in_days: null, label: null });

  // REST first: two requests empty X's bucket, then an MQTT request with X is refused.
  const x = await connect(t, r.url, { username: String(r.a.id), password: tokenX.token });
  await x.client.subscribeAsync(response);
  t.equal(await api(tokenX.token, 'GET', '/api/me'), 200);
  t.equal(await api(tokenX.token, 'GET', '/api/me'), 200);
  t.equal(await api(tokenX.token, 'GET', '/api/me'), 429, 'REST: the third request within the second is refused');
  await x.client.publishAsync(request, JSON.stringify({ sn: 'NOPE1', command: 'reboot', transaction: 'x1' }), { qos: 1 });
  const refused = x.json<{ status: string; error: { code: string }; transaction: string }>(await x.next(response));
  t.equal(refused.status, 'error');
  t.equal(refused.error.code, 'RATE_LIMITED', 'MQTT: the same bucket is empty');
  t.equal(refused.transaction, 'x1', 'the refusal carries the transaction');

  // MQTT first: two requests empty Y's bucket, then REST with Y gets 429.
  const y = await connect(t, r.url, { username: String(r.a.id), password: tokenY.token });
  await y.client.subscribeAsync(response);
  const before = y.on(response).length;
  for (const n of [1, 2, 3]) {
    await y.client.publishAsync(request, JSON.stringify({ sn: 'NOPE1', command: 'reboot', transaction: `y${n}` }), { qos: 1 });
  }
  await waitFor(() => y.on(response).filter((m) => /"transaction":"y\d"/.test(m.text)).length >= 3, 5000, 'three answers to Y');
  const answers = y
    .on(response)
    .slice(before)
    .map((m) => y.json<{ error?: { code: string }; transaction?: string }>(m))
    .filter((m) => typeof m.transaction === 'string' && m.transaction.startsWith('y'))
    .sort((p, q) => String(p.transaction).localeCompare(String(q.transaction)))
    .map((m) => m.error?.code);
  t.strictSame(answers, ['DEVICE_NOT_FOUND', 'DEVICE_NOT_FOUND', 'RATE_LIMITED'], 'MQTT: two within the burst, the third refused');
  t.equal(await api(tokenY.token, 'GET', '/api/me'), 429, 'REST: the same bucket is empty');
  t.equal(await api(r.a.token, 'GET', '/api/me'), 200, 'another token of the location has its own bucket');

  r.clock.advance(1000);
  t.equal(await api(tokenY.token, 'GET', '/api/me'), 200, 'a second later the bucket has refilled one request');
});
