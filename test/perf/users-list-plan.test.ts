// Issue #20: GET /api/users?limit=100 is served by an index with a cheap total, and GET /api/me's counts
// are maintained, not recounted. The query plans are checked here (a dropped index fails this test, not
// only a benchmark); the maintained counts are checked against a recount after a mixed, concurrent
// workload on two apps sharing one store (SQLite here; MongoDB under `node test/mongo-api-leg.mjs`).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openDatabase, type Db } from '../../src/store/sqlite/db.js';
import { sqliteDevices } from '../../src/store/sqlite/devices.js';
import { sqliteLocations } from '../../src/store/sqlite/locations.js';
import { sqliteUsers } from '../../src/store/sqlite/users.js';
import { bearer, fetchJson, jsonBody, startApp, TEST_STORE, type StartedApp } from '../helpers/app.js';

/** Every SQL text the adapter prepares while `fn` runs. */
async function statementsOf(db: Db, fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    seen.push(sql);
    return prepare(sql);
  }) as Db['prepare'];
  try {
    await fn();
  } finally {
    db.prepare = prepare;
  }
  return seen;
}

const planOf = (db: Db, sql: string, args: unknown[]): string =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' | ');

t.test(
  'sqlite: the user list page comes from the (location_id, pin) index in order; the total and /api/me counts read one row',
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'biogate-plan-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const db = openDatabase(join(dir, 'plan.db'));
    t.teardown(() => db.close());
    const now = new Date().toISOString();
    const locations = sqliteLocations(db);
    const location = await locations.create({ name: 'plan', timezone: 'UTC' }, now);
    const users = sqliteUsers(db);
    const devices = sqliteDevices(db);
    await users.upsertMany(
      location.id,
      Array.from({ length: 2_000 }, (_, i) => ({ pin: i + 1, fields: { first_name: `U${i + 1}` } })),
      now,
    );
    db.exec('ANALYZE');

    const listed = await statementsOf(db, async () => {
      const page = await users.list(location.id, {}, { offset: 0, limit: 100 });
      t.equal(page.total, 2_000);
      t.same(
        page.items.map((u) => u.pin),
        Array.from({ length: 100 }, (_, i) => i + 1),
        'first page in pin order',
      );
    });
    const select = listed.find((s) => /FROM users .*ORDER BY pin LIMIT/.test(s));
    t.ok(select, 'the page query was seen');
    const plan = planOf(db, select ?? '', [location.id, 100, 0]);
    t.match(plan, /USING (COVERING )?INDEX sqlite_autoindex_users_1 \(location_id=\?\)/, `page by index: ${plan}`);
    t.notMatch(plan, /TEMP B-TREE/, "no sort of the location's users");
    t.notOk(
      listed.some((s) => /COUNT\(\*\)/i.test(s)),
      'no COUNT(*) for an unfiltered total',
    );

    const counted = await statementsOf(db, async () => {
      t.equal(await users.count(location.id), 2_000);
      t.equal(await devices.count(location.id), 0);
      t.same(await locations.counts(location.id), { users: 2_000, devices: 0 }, 'both counts at once (GET /api/me)');
    });
    for (const sql of counted) {
      const p = planOf(db, sql, [location.id]);
      t.match(p, /^SEARCH location_counts USING INTEGER PRIMARY KEY/, `one row: ${p}`);
    }
  },
);

interface Page {
  total: number;
}

t.test(`counts stay exact under concurrent writers on two apps (${TEST_STORE})`, async (t) => {
  const a = await startApp(t);
  const b = await startApp(t, { storeUrl: a.storeUrl, config: { bootstrap: 'off', nodeId: 'node-b' } });
  // 30 s per call: the MongoDB-compatible test server on a loaded CI machine may take longer than fetchJson's 5 s.
  const call = (app: StartedApp, method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, {
      ...(body === undefined ? { method, headers: bearer(a.token) } : jsonBody(method, body, bearer(a.token))),
      signal: AbortSignal.timeout(30_000),
    });
  const nodes = [a, b];
  const work: (() => Promise<unknown>)[] = [];
  /** Two writers at a time, one per app. */
  const inPairs = async (jobs: (() => Promise<unknown>)[]) => {
    for (let i = 0; i < jobs.length; i += 2) await Promise.all(jobs.slice(i, i + 2).map((j) => j()));
  };
  // Users: overlapping imports and single writes of the same PINs on both apps, then deletes.
  for (let k = 0; k < 6; k++) {
    const app = nodes[k % 2] as StartedApp;
    work.push(() =>
      call(
        app,
        'POST',
        '/api/users/import',
        Array.from({ length: 40 }, (_, i) => ({ pin: k * 30 + i + 1, first_name: `K${k}` })),
      ),
    );
    for (let i = 0; i < 3; i++) work.push(() => call(app, 'POST', '/api/users', { pin: 5_000 + i, first_name: `S${k}` }));
  }
  // Devices: assigned on both apps, some twice; some unassigned meanwhile.
  for (let i = 0; i < 20; i++)
    work.push(() => call(nodes[i % 2] as StartedApp, 'POST', '/api/devices', { sn: `CNT${String(i % 14).padStart(4, '0')}` }));
  await inPairs(work);
  const more: (() => Promise<unknown>)[] = [];
  for (let pin = 1; pin <= 60; pin += 3) more.push(() => call(nodes[pin % 2] as StartedApp, 'DELETE', `/api/users/${pin}`));
  for (let i = 0; i < 14; i += 4)
    more.push(() => call(nodes[i % 2] as StartedApp, 'DELETE', `/api/devices/CNT${String(i).padStart(4, '0')}`));
  more.push(() => call(b, 'POST', '/api/users', { pin: 9_999, first_name: 'Late', is_active: false }));
  await inPairs(more);

  // Recounts through filtered queries (a filter is always counted, never read from the maintained count).
  const active = ((await call(a, 'GET', '/api/users?is_active=true&limit=1')).body as Page).total;
  const inactive = ((await call(a, 'GET', '/api/users?is_active=false&limit=1')).body as Page).total;
  const devices = ((await call(a, 'GET', '/api/devices?limit=1')).body as Page).total;
  t.equal(active + inactive, 190 + 3 - 20 + 1, 'recount: 190 imported PINs + 3 single PINs, 20 deleted, 1 late');
  t.equal(devices, 14 - 4, 'recount: 14 distinct serials, 4 unassigned');
  for (const app of nodes) {
    const me = (await call(app, 'GET', '/api/me')).body as { users_count: number; devices_count: number };
    t.equal(me.users_count, active + inactive, 'users_count equals the recount');
    t.equal(me.devices_count, devices, 'devices_count equals the recount');
    t.equal(((await call(app, 'GET', '/api/users?limit=1')).body as Page).total, active + inactive, 'the list total too');
  }
});
