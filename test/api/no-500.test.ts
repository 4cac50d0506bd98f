/**
 * A bounded, seeded fuzz of every /api route: junk bodies (wrong types, huge numbers,
 * nested junk, unicode, NUL bytes, invalid UTF-8, prototype keys), junk query strings
 * and path segments, odd headers. The gateway may refuse anything, but never with a
 * 500, always with the JSON error body, and the store still answers afterwards.
 * A failure names the seed and the request, so it can be replayed.
 */
import t from 'tap';
import type { ApiRoute } from '../../src/api/route.js';
import { gateway, prng, type Json } from './client.js';

const SEEDS = [20260301, 7];
const REQUESTS_PER_SEED = 160;

const SCALARS: readonly unknown[] = [
  0,
  -1,
  1,
  1.5,
  -0.5,
  99_999_999,
  100_000_000,
  2 ** 31,
  2 ** 53 + 1,
  1e308,
  -1e308,
  Number.MIN_VALUE,
  '',
  ' ',
  'x',
  '0',
  '1',
  '-1',
  '1e3',
  'true',
  'false',
  'null',
  'NaN',
  'Infinity',
  '\u0000',
  'a\u0000b',
  '\t',
  '\r\n',
  'a\tb\nc',
  '🙂',
  'Zoë Ångström',
  '\uD800',
  '\uFEFF',
  '%',
  '_',
  '%_\\',
  "'; DROP TABLE users; --",
  '"',
  '{}',
  '[]',
  'x'.repeat(5000),
  '9007199254740993',
  '614891469123651721',
  '100000000000000000000',
  '1000000000',
  '2026-02-30',
  '2026-03-01T08:00:00Z',
  '2026-03-01T25:61:00+99:99',
  'https://example.com/f.bin',
  'http://x',
  'C:1:INFO',
  '../../etc/passwd',
  'reboot',
  'restart',
  'rebot',
  'custom',
  'door-open',
  'enroll-biometric',
  'sync-users',
  'firmware-upgrade',
  'biometrics',
  'FUZZ1',
  true,
  false,
  null,
];
const KEYS = [
  'pin',
  'first_name',
  'last_name',
  'card_no',
  'password',
  'is_active',
  'start_time',
  'end_time',
  'privilege',
  'group',
  'super_authorize',
  'sn',
  'name',
  'version',
  'comm_key',
  'command',
  'priority',
  'params',
  'expires_in',
  'pins',
  'door_id',
  'duration',
  'user_id',
  'type',
  'fid',
  'retry',
  'overwrite',
  'startDate',
  'endDate',
  'url',
  'checksum',
  'size',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '',
];
const RAW_BODIES = [
  '',
  ' ',
  '{',
  '}',
  '[',
  '{"pin": }',
  '{"pin": 1e400, "first_name": "x"}',
  '{"pin": -0, "first_name": "x"}',
  '{"pin": 1.0, "first_name": "x"}',
  '{"pin": 12345678901234567890, "first_name": "x"}',
  '{"__proto__": {"pin": 1}, "pin": 2, "first_name": "x"}',
  '{"pin": 1, "pin": "dup"}',
  'null',
  'true',
  '0',
  '"str"',
  '\u0000',
  '{"first_name": "a\u0000b", "pin": 3}',
  '['.repeat(2000) + ']'.repeat(2000),
  '{"a":'.repeat(500) + '1' + '}'.repeat(500),
  JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ pin: i, first_name: i % 7 === 0 ? null : 'x' }))),
];
const SEGMENTS = [
  '0',
  '-1',
  '1',
  '1.5',
  '1e3',
  '99999999',
  '100000000',
  '18446744073709551616',
  'x',
  '%00',
  '%20',
  '%F0%9F%99%82',
  '%C3%28',
  '%',
  '%zz',
  'a%2Fb',
  '..',
  'clear',
  'status',
  'FUZZ1',
  'fuzz-1',
  'A'.repeat(300),
  '%E2%80%AE',
  'null',
  'undefined',
  'constructor',
  '__proto__',
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

/** encodeURIComponent, but a lone surrogate becomes the bytes of one (invalid UTF-8) instead of throwing. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text
      .replace(/[\uD800-\uDFFF]/g, '%ED%A0%80')
      .replace(/[^%A-Za-z0-9]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  }
}

t.test('bounded fuzz of every /api route: never a 500', async (t) => {
  const { a, started } = await gateway(t);
  // Something real to aim at: a device, users, a command.
  await a.api('POST', '/api/devices', { body: { sn: 'FUZZ1' } });
  await a.api('POST', '/api/users/import', {
    body: [
      { pin: 1, first_name: 'One' },
      { pin: 1001, first_name: 'Thousand' },
    ],
  });
  await a.api('POST', '/api/commands', { body: { sn: 'FUZZ1', command: 'reboot' } });
  const routes = started.app.apiRoutes.filter((r) => r.path.startsWith('/api/'));
  const readOnly = await started.app.locations.issueToken({ location_id: a.id, scope: 'read' });
  const operator = await started.app.locations.issueToken({ location_id: a.id, scope: 'operator' });

  /** Valid bodies per route, mutated by the fuzzer (more of it then reaches the handlers). */
  const BASES: Record<string, unknown> = {
    'POST /api/users': { pin: 1001, first_name: 'F', start_time: '2026-01-01', end_time: '2026-12-31' },
    'POST /api/users/import': [
      { pin: '2', first_name: 'A' },
      { pin: 3, first_name: 'B', privilege: 14 },
    ],
    'DELETE /api/users/clear': { pins: [1] },
    'POST /api/devices': { sn: 'FUZZ2', name: 'N', version: '2.0.0' },
    'POST /api/devices/{device_serial}/command': { command: 'door-open', params: { door_id: 1, duration: 5 } },
    'POST /api/commands': { sn: 'FUZZ1', command: 'enroll-biometric', params: { pin: 1, user_id: 1 }, priority: 5 },
  };

  let total = 0;
  const statuses = new Map<number, number>();
  for (const seed of SEEDS) {
    const rnd = prng(seed);
    const int = (n: number) => Math.floor(rnd() * n);
    const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
    const junk = (depth: number): unknown => {
      const roll = rnd();
      if (depth <= 0 || roll < 0.55) return pick(SCALARS);
      if (roll < 0.75) return Array.from({ length: int(4) }, () => junk(depth - 1));
      const o: Json = {};
      for (let i = int(5); i > 0; i--)
        Object.defineProperty(o, pick(KEYS), { value: junk(depth - 1), enumerable: true, configurable: true, writable: true });
      return o;
    };
    /** Replaces one field somewhere in a valid body with junk. */
    const mutate = (value: unknown): unknown => {
      const copy = structuredClone(value);
      const at = (node: unknown): void => {
        if (Array.isArray(node) && node.length > 0) {
          const i = int(node.length);
          if (rnd() < 0.5 && typeof node[i] === 'object' && node[i] !== null) return at(node[i]);
          node[i] = junk(2);
        } else if (node !== null && typeof node === 'object') {
          const keys = Object.keys(node);
          const key = rnd() < 0.8 && keys.length > 0 ? pick(keys) : pick(KEYS);
          const rec = node as Json;
          if (rnd() < 0.4 && typeof rec[key] === 'object' && rec[key] !== null) return at(rec[key]);
          Object.defineProperty(rec, key, { value: junk(2), enumerable: true, configurable: true, writable: true });
        }
      };
      at(copy);
      return copy;
    };

    for (let n = 0; n < REQUESTS_PER_SEED; n++) {
      const route: ApiRoute = pick(routes);
      const method = rnd() < 0.9 ? route.method : pick(METHODS);
      const path = route.path.replace(/\{[^}]+\}/g, () => (rnd() < 0.3 ? pick(['1', '1001', 'FUZZ1']) : pick(SEGMENTS)));
      const names = Object.keys((route.query as { properties?: Json } | undefined)?.properties ?? {});
      const query: string[] = [];
      for (let i = int(4); i > 0; i--) {
        const name = rnd() < 0.8 && names.length > 0 ? pick(names) : pick(KEYS);
        const value = rnd() < 0.7 ? String(pick(SCALARS)) : pick(SEGMENTS);
        query.push(`${encode(name)}=${rnd() < 0.5 ? encode(value) : value.replace(/[#&\s]/g, '')}`);
      }
      const url = `${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;

      let raw: string | Uint8Array | undefined;
      const base = BASES[`${route.method} ${route.path}`];
      const kind = rnd();
      if (method === 'GET' || method === 'HEAD') raw = undefined;
      else if (kind < 0.4 && base !== undefined) raw = JSON.stringify(mutate(base));
      else if (kind < 0.65) raw = JSON.stringify(junk(4));
      else if (kind < 0.85) raw = pick(RAW_BODIES);
      else if (kind < 0.95) raw = Uint8Array.from({ length: 1 + int(64) }, () => int(256));
      else raw = JSON.stringify(base ?? {});

      const headers: Record<string, string> = {};
      if (rnd() < 0.2) headers['idempotency-key'] = pick(['k1', 'k2', ' ', 'x'.repeat(200), 'ü', '']).replace(/[^\x20-\x7e]/g, '?');
      if (rnd() < 0.1) headers['content-type'] = pick(['text/plain', 'application/xml', 'application/json; charset=latin1']);
      const tokenRoll = rnd();
      const token =
        tokenRoll < 0.8
          ? a.token
          : tokenRoll < 0.87
            ? operator.token
            : tokenRoll < 0.94
              ? readOnly.token
              : pick([null, 'bg_' + 'x'.repeat(32), '']);

      const label = `seed ${seed} #${n}: ${method} ${url.slice(0, 160)} ${typeof raw === 'string' ? raw.slice(0, 160) : raw ? `<${raw.length} bytes>` : ''}`;
      const res = await a.api<{ code?: string; detail?: unknown }>(method, url, { ...(raw !== undefined ? { raw } : {}), headers, token });
      total++;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500) {
        t.fail(`${label}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        continue;
      }
      if (
        method !== 'HEAD' &&
        res.status >= 400 &&
        (typeof res.body !== 'object' || typeof res.body.code !== 'string' || res.body.detail === undefined)
      ) {
        t.fail(`${label}: ${res.status} without the JSON error body`);
      }
    }
  }
  t.equal(total, SEEDS.length * REQUESTS_PER_SEED, `${total} requests, none answered with a 5xx`);
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([x], [y]) => x - y)))}`);
  t.ok(
    [...statuses.keys()].some((s) => s < 300),
    'some requests got through to a success',
  );

  // The store still answers.
  await t.resolves(started.app.store.ping(), 'the store answers a ping');
  const me = await a.api<{ id: number }>('GET', '/api/me');
  t.equal(me.status, 200);
  t.equal(me.body.id, a.id);
  t.equal((await a.api('GET', '/api/users?limit=100')).status, 200);
  // (The fuzz may legitimately DELETE /api/devices/FUZZ1: the device list must still answer.)
  t.equal((await a.api('GET', '/api/devices')).status, 200);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 424242, first_name: 'After' } })).status, 201, 'and takes writes');
});
