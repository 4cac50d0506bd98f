/**
 * Issue #12 "Nothing kills the process": every body route of the API, given JSON nested
 * 100,000 levels deep (as an array, as an object, and as one item inside the users import
 * array), answers 400 naming the depth limit; the process lives on and earlier data is intact.
 */
import t from 'tap';
import { MAX_JSON_DEPTH } from '../../src/validation/input.js';
import { ADMIN_TOKEN, bearer } from '../helpers/app.js';
import { gateway, type Json } from '../api/client.js';

const DEPTH = 100_000;
const deepArray = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const deepObject = '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);
/** A plausible import with one item whose field nests 6,000 levels (the shape from the issue) ... */
const nestedItem = (depth: number) => `[{"pin":7,"first_name":"Ok"},{"pin":8,"first_name":${'['.repeat(depth)}"x"${']'.repeat(depth)}}]`;

t.test('every body route × deep JSON → 400 naming the limit; the process lives on, data intact', async (t) => {
  const { a, started, url } = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  await a.api('POST', '/api/devices', { body: { sn: 'DEEP1' } });
  await a.api('POST', '/api/users/import', {
    body: [
      { pin: 1, first_name: 'One' },
      { pin: 2, first_name: 'Two' },
    ],
  });
  const before = {
    users: (await a.api('GET', '/api/users')).body,
    devices: (await a.api('GET', '/api/devices')).body,
    locations: (await a.api('GET', '/admin/locations', { token: ADMIN_TOKEN })).body,
  };

  const values: Record<string, string> = { id: String(a.id), device_serial: 'DEEP1', pin: '1', command_id: '1' };
  const routes = started.app.apiRoutes.filter((r) => r.body !== undefined);
  t.ok(routes.length >= 8, `body routes found: ${routes.map((r) => `${r.method} ${r.path}`).join(', ')}`);
  const bodies: [string, string][] = [
    ['100,000-deep array', deepArray],
    ['100,000-deep object', deepObject],
    ['import array with a 100,000-deep item', nestedItem(DEPTH)],
    ['import array with a 6,000-deep item', nestedItem(6000)],
  ];
  for (const route of routes) {
    const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? '1');
    const token = route.auth === 'admin' ? ADMIN_TOKEN : a.token;
    for (const [what, raw] of bodies) {
      const res = await fetch(`${url}${path}`, {
        method: route.method,
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: raw,
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await res.json()) as Json;
      t.equal(res.status, 400, `${route.method} ${route.path}, ${what}: 400`);
      t.strictSame(
        body,
        { detail: `Body nests JSON arrays/objects deeper than ${MAX_JSON_DEPTH} levels`, code: 'BAD_REQUEST' },
        `${route.method} ${route.path}, ${what}: names the limit`,
      );
    }
  }

  // Alive: later requests work, and nothing changed.
  t.equal((await fetch(`${url}/healthz`)).status, 200, 'the process answers');
  t.strictSame((await a.api('GET', '/api/users')).body, before.users, 'users intact');
  t.strictSame((await a.api('GET', '/api/devices')).body, before.devices, 'devices intact');
  t.strictSame((await a.api('GET', '/admin/locations', { token: ADMIN_TOKEN })).body, before.locations, 'locations intact');
});

t.test('nesting at the limit is accepted; brackets inside strings do not count', async (t) => {
  const { a } = await gateway(t);
  // The import item's extra field is nested to exactly the limit (array + item object + 62 levels).
  const atLimit = `[{"pin":9,"first_name":"Deep","x":${'['.repeat(MAX_JSON_DEPTH - 2)}${']'.repeat(MAX_JSON_DEPTH - 2)}}]`;
  const r = await a.api('POST', '/api/users/import', { raw: atLimit });
  t.not(r.status, 400, 'depth 64 is not refused as too deep');
  const brackets = await a.api('POST', '/api/users', {
    raw: '{"pin":10,"first_name":"' + '['.repeat(20) + '\\"' + '{'.repeat(20) + '","last_name":"' + '['.repeat(70) + '"}',
  });
  t.equal(brackets.status, 201, 'brackets and escaped quotes inside a string are text', { body: brackets.body });
});
