/**
 * Issue #32 item 18: guessing the admin token is throttled per client address, over the admin API,
 * /metrics and the MQTT user `admin` alike (one back-off, src/auth/failure-backoff.ts): after
 * FREE_FAILURES wrong tokens an address gets 429 RATE_LIMITED with Retry-After (a CONNACK refusal on
 * MQTT), even with the right token, until the back-off has passed; then the right token works. The
 * fake clock decides when the back-off passes. Client addresses come from X-Forwarded-For through
 * a trusted proxy (BIOGATE_TRUSTED_PROXIES=127.0.0.1), the way a deployment behind nginx sees them.
 */
import t from 'tap';
import { createFailureBackoff, FREE_FAILURES, MAX_ADDRESSES } from '../../src/auth/failure-backoff.js';
import { ADMIN_TOKEN, bearer, fakeClock, startApp } from '../helpers/app.js';
import { connectCode } from '../bridge/mqtt-client.js';

const WRONG = 'not-the-admin-token-0123456789';

async function rig(t: Parameters<typeof startApp>[0]) {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const started = await startApp(t, {
    clock,
    config: { adminToken: ADMIN_TOKEN, trustedProxies: '127.0.0.1', mqtt: 'embedded', mqttPort: 0 },
  });
  const request = async (path: string, token: string | null, from?: string) => {
    const headers: Record<string, string> = { ...(token === null ? {} : bearer(token)), ...(from ? { 'x-forwarded-for': from } : {}) };
    const res = await fetch(`${started.url}${path}`, { headers });
    const body = (await res.text()) || '{}';
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      code: res.ok ? null : (JSON.parse(body) as { code?: string }).code,
    };
  };
  const mqttUrl = `mqtt://127.0.0.1:${started.app.mqtt?.port ?? 0}`;
  const mqttAdmin = (password: string) => connectCode(mqttUrl, { username: 'admin', password });
  return { clock, started, request, mqttAdmin };
}

t.test('admin API: after the free failures an address backs off (429, Retry-After), even with the right token', async (t) => {
  const r = await rig(t);
  const from = '203.0.113.7';
  for (let i = 0; i < FREE_FAILURES; i++)
    t.equal((await r.request('/admin/locations', WRONG, from)).status, 401, `wrong token ${i + 1}: 401`);
  const throttled = await r.request('/admin/locations', ADMIN_TOKEN, from);
  t.equal(throttled.status, 429, 'the next attempt is refused, the right token included');
  t.equal(throttled.code, 'RATE_LIMITED');
  t.equal(throttled.retryAfter, '1', 'Retry-After says when');

  t.equal((await r.request('/admin/locations', ADMIN_TOKEN, '203.0.113.8')).status, 200, 'another address is not affected');
  t.equal((await r.request('/admin/locations', null, from)).status, 401, 'no token at all is no attempt: 401');

  r.clock.advance(1000);
  t.equal((await r.request('/admin/locations', WRONG, from)).status, 401, 'after the back-off a wrong token is checked again');
  const doubled = await r.request('/admin/locations', ADMIN_TOKEN, from);
  t.equal(doubled.status, 429, 'and the address backs off again');
  t.equal(doubled.retryAfter, '2', 'twice as long');

  r.clock.advance(2000);
  t.equal((await r.request('/admin/locations', ADMIN_TOKEN, from)).status, 200, 'after the back-off the right token works');
  for (let i = 0; i < FREE_FAILURES - 1; i++) await r.request('/admin/locations', WRONG, from);
  t.equal((await r.request('/admin/locations', ADMIN_TOKEN, from)).status, 200, 'a success forgot the earlier failures');
});

t.test('/metrics, the admin API and MQTT user admin share the back-off of an address', async (t) => {
  const r = await rig(t);
  // Without X-Forwarded-For, HTTP sees the peer 127.0.0.1, as the MQTT listener does.
  for (let i = 0; i < FREE_FAILURES - 2; i++) t.equal((await r.request('/metrics', WRONG)).status, 401, `/metrics wrong token ${i + 1}`);
  t.equal(await r.mqttAdmin(WRONG), 4, 'MQTT: a wrong admin password is CONNACK 4');
  t.equal((await r.request('/admin/locations', WRONG)).status, 401, 'the fifth failure, on the admin API');
  const metrics = await r.request('/metrics', ADMIN_TOKEN);
  t.equal(metrics.status, 429, '/metrics refuses the address now');
  t.equal(metrics.code, 'RATE_LIMITED');
  t.ok(metrics.retryAfter !== null, 'with Retry-After');
  t.equal(await r.mqttAdmin(ADMIN_TOKEN), 5, 'MQTT: the right admin password is refused too (CONNACK 5, not authorized)');
  t.equal((await r.request('/admin/locations', ADMIN_TOKEN)).status, 429);

  r.clock.advance(1000);
  t.equal(await r.mqttAdmin(ADMIN_TOKEN), 0, 'MQTT: after the back-off the admin logs in');
  t.equal((await r.request('/metrics', ADMIN_TOKEN)).status, 200, '/metrics answers');
});

t.test('memory stays bounded however many addresses fail', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const backoff = createFailureBackoff(clock);
  for (let i = 0; i < 3 * MAX_ADDRESSES; i++) backoff.failed(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  t.equal(backoff.size(), MAX_ADDRESSES, `at most ${MAX_ADDRESSES} addresses are tracked`);
  for (let i = 0; i < FREE_FAILURES; i++) backoff.failed('198.51.100.1');
  t.ok(backoff.waitMs('198.51.100.1') > 0, 'the address failing now is tracked');
  t.equal(backoff.waitMs('10.0.0.0'), 0, 'the stalest ones were forgotten (which only forgives)');

  for (let i = 0; i < FREE_FAILURES; i++) backoff.failed(`2001:db8:1:2::${i + 1}`);
  t.ok(backoff.waitMs('2001:db8:1:2:ffff::9') > 0, 'IPv6 addresses count per /64');
  t.equal(backoff.waitMs('2001:db8:1:3::1'), 0, 'another /64 is another client');
  for (let i = 0; i < FREE_FAILURES; i++) backoff.failed('::ffff:192.0.2.9');
  t.ok(backoff.waitMs('192.0.2.9') > 0, 'an IPv4-mapped address is its IPv4 address');

  clock.advance(2 * 60 * 60_000);
  t.equal(backoff.waitMs('198.51.100.1'), 0, 'failures are forgotten after a quiet hour');
});
