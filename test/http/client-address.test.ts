/**
 * BIOGATE_TRUSTED_PROXIES (issue #14): from a trusted proxy the client address comes from
 * `Forwarded` (RFC 7239) or else `X-Forwarded-For`, walked right to left past trusted hops; from
 * anyone else the headers are ignored. The unit part covers the parsing, the rest goes through the
 * real app, where a device's allow-list (allowed_networks) shows which address BioGate believed.
 */
import t from 'tap';
import type * as Tap from 'tap';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { clientAddress, forwardedFor, trustedProxies, xForwardedFor } from '../../src/http/client-address.js';
import { bearer, fetchJson, jsonBody, startApp } from '../helpers/app.js';

const PROXY = '10.0.0.5';
const trust = trustedProxies('10.0.0.0/8, ::1');

t.test('Forwarded: for= per element, quoted IPv6 with port, ports stripped, unusable names undefined', async (t) => {
  t.same(forwardedFor('for=192.0.2.60;proto=http;by=203.0.113.43'), ['192.0.2.60']);
  t.same(forwardedFor('for="[2001:db8:cafe::17]:4711", For=198.51.100.17'), ['2001:db8:cafe::17', '198.51.100.17']);
  t.same(forwardedFor('for="192.0.2.43:47011";proto=https'), ['192.0.2.43']);
  t.same(forwardedFor('for=unknown, for=_hidden, proto=http, for="[::1"'), [undefined, undefined, undefined, undefined]);
  t.same(forwardedFor('for=1.2.3.4;for=5.6.7.8'), [undefined], 'a parameter twice in one element is invalid');
  t.same(forwardedFor('for="a,b";by=x, for=9.9.9.9'), [undefined, '9.9.9.9'], 'commas inside quotes do not split');
  t.same(forwardedFor('for=[2001:db8::1]'), [undefined], 'IPv6 must be quoted (brackets are not token characters)');
  t.same(forwardedFor('garbage'), [undefined]);
});

t.test('X-Forwarded-For: addresses left to right, ports and brackets stripped, junk undefined', async (t) => {
  t.same(xForwardedFor('203.0.113.7, 10.0.0.1'), ['203.0.113.7', '10.0.0.1']);
  t.same(xForwardedFor('203.0.113.7:1234,[2001:db8::9]:80, 2001:db8::8'), ['203.0.113.7', '2001:db8::9', '2001:db8::8']);
  t.same(xForwardedFor('not an ip, 999.1.1.1,'), [undefined, undefined, undefined]);
});

t.test('clientAddress: the rightmost untrusted hop; untrusted peers and garbage give the peer', async (t) => {
  t.equal(clientAddress(PROXY, { 'x-forwarded-for': '203.0.113.7' }, trust), '203.0.113.7');
  t.equal(
    clientAddress(PROXY, { 'x-forwarded-for': '1.1.1.1, 203.0.113.7, 10.9.9.9' }, trust),
    '203.0.113.7',
    'trusted hops skipped; what the client wrote further left is not reached',
  );
  t.equal(
    clientAddress(PROXY, { 'x-forwarded-for': 'garbage, 203.0.113.7' }, trust),
    '203.0.113.7',
    'junk left of the client does not matter',
  );
  t.equal(clientAddress(PROXY, { 'x-forwarded-for': '10.1.1.1, 10.2.2.2' }, trust), '10.1.1.1', 'all trusted: the leftmost');
  t.equal(clientAddress(PROXY, { 'x-forwarded-for': '203.0.113.7, garbage' }, trust), PROXY, 'junk where the walk needs it: the peer');
  t.equal(clientAddress(PROXY, { 'x-forwarded-for': '' }, trust), PROXY);
  t.equal(clientAddress(PROXY, {}, trust), PROXY, 'no header: the peer');
  t.equal(
    clientAddress(PROXY, { forwarded: 'for="[2001:db8::7]:9"', 'x-forwarded-for': '198.51.100.1' }, trust),
    '2001:db8::7',
    'Forwarded wins over X-Forwarded-For',
  );
  t.equal(
    clientAddress(PROXY, { forwarded: 'for=unknown', 'x-forwarded-for': '198.51.100.1' }, trust),
    PROXY,
    'an unusable Forwarded is not replaced by X-Forwarded-For',
  );
  t.equal(clientAddress('::1', { forwarded: 'for=192.0.2.1, for=10.3.3.3' }, trust), '192.0.2.1', 'IPv6 peer trusted by ::1');
  t.equal(
    clientAddress('::ffff:10.0.0.5', { 'x-forwarded-for': '192.0.2.2' }, trust),
    '192.0.2.2',
    'an IPv4-mapped peer matches IPv4 networks',
  );
  t.equal(
    clientAddress('192.0.2.99', { 'x-forwarded-for': '203.0.113.7', forwarded: 'for=203.0.113.8' }, trust),
    '192.0.2.99',
    'untrusted peer: headers ignored',
  );
  t.equal(clientAddress(PROXY, { 'x-forwarded-for': '203.0.113.7' }, undefined), PROXY, 'no trusted proxies configured: headers ignored');
  t.equal(trustedProxies(''), undefined, 'an empty list trusts nobody');
  t.equal(trustedProxies(' , '), undefined);
});

t.test('a bad BIOGATE_TRUSTED_PROXIES entry stops startup, naming the variable and every bad entry', async (t) => {
  let err: unknown;
  try {
    loadConfig({ env: { BIOGATE_TRUSTED_PROXIES: '10.0.0.0/8, 10.0.0.300, ::1/129,nope' } });
  } catch (e) {
    err = e;
  }
  t.ok(err instanceof ConfigError, 'startup refused');
  t.same((err as ConfigError).problems, [
    'BIOGATE_TRUSTED_PROXIES: "10.0.0.300" is not an IP address or CIDR',
    'BIOGATE_TRUSTED_PROXIES: "::1/129" is not an IP address or CIDR',
    'BIOGATE_TRUSTED_PROXIES: "nope" is not an IP address or CIDR',
  ]);
  t.equal(
    loadConfig({ env: { BIOGATE_TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1 ,::1' } }).trustedProxies,
    '10.0.0.0/8, 127.0.0.1 ,::1',
    'a good list loads',
  );
});

/** A device whose allow-list admits 203.0.113.0/24 only, with one command waiting for it. */
async function guarded(t: Tap.Test, trustedProxiesSetting: string) {
  const app = await startApp(t, { config: { trustedProxies: trustedProxiesSetting } });
  const made = await fetchJson(
    `${app.url}/api/devices`,
    jsonBody('POST', { sn: 'PROXY001', allowed_networks: ['203.0.113.0/24'] }, bearer(app.token)),
  );
  t.equal(made.res.status, 201);
  const poll = async (headers: Record<string, string>) => {
    const res = await fetch(`${app.url}/iclock/getrequest?SN=PROXY001`, { headers });
    return { status: res.status, text: await res.text() };
  };
  return { app, poll };
}

t.test('through the app: behind a trusted proxy the forwarded address meets the allow-list', async (t) => {
  const { poll } = await guarded(t, '127.0.0.1/32');
  t.equal((await poll({})).status, 403, 'the proxy itself (127.0.0.1) is outside the list');
  t.equal((await poll({ 'x-forwarded-for': '198.51.100.4' })).status, 403, 'a client outside the list is refused');
  t.equal((await poll({ 'x-forwarded-for': '203.0.113.9' })).status, 200, 'a client inside the list is served');
  t.equal((await poll({ forwarded: 'for=203.0.113.10;proto=http' })).status, 200, 'Forwarded too');
  t.equal((await poll({ forwarded: 'for=198.51.100.4', 'x-forwarded-for': '203.0.113.9' })).status, 403, 'Forwarded wins');
  t.equal(
    (await poll({ 'x-forwarded-for': '203.0.113.9, 198.51.100.4' })).status,
    403,
    'the rightmost untrusted hop counts, not what the client prepended',
  );
  t.equal((await poll({ 'x-forwarded-for': '203.0.113.9, 127.0.0.1' })).status, 200, 'a trusted hop is skipped');
  t.equal((await poll({ 'x-forwarded-for': '203.0.113.9, junk' })).status, 403, 'garbage: the peer address');
});

t.test('through the app: a peer that is not a trusted proxy cannot spoof its address', async (t) => {
  for (const setting of ['', '10.0.0.0/8']) {
    const { poll } = await guarded(t, setting);
    t.equal((await poll({ 'x-forwarded-for': '203.0.113.9' })).status, 403, `X-Forwarded-For ignored (trusted: "${setting}")`);
    t.equal((await poll({ forwarded: 'for=203.0.113.9' })).status, 403, `Forwarded ignored (trusted: "${setting}")`);
  }
});
