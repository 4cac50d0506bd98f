/**
 * Issue #32, Medium 17: the attendance de-duplication key includes the location. A terminal moves
 * from a location in Tokyo to one in New York; at 09:00 New York time a person punches, with the
 * same (serial, PIN, local time, status, verify) as a punch the terminal stored in Tokyo hours
 * before. That is a new punch of the new location: it is stored there (and a re-send of it is
 * still stored once). Real app, raw ATTLOG uploads, the clock faked; both stores
 * (BIOGATE_TEST_API_STORE=mongodb runs it on MongoDB).
 */
import { join } from 'node:path';
import t from 'tap';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { gateway } from '../api/client.js';
import { fakeClock, tempDir } from '../helpers/app.js';

/** The statement `listAfter` runs without filters (src/store/sqlite/attendance.ts). */
const LIST_AFTER_SQL = 'SELECT * FROM attendance WHERE location_id = ? AND id > ? ORDER BY id LIMIT ?';

interface Rec {
  pin: string;
  sn: string;
  timestamp: string;
  local_time: string;
}

t.test('a moved terminal: the same device-local punch in the new location is stored there', async (t) => {
  const clock = fakeClock('2026-03-05T00:30:00.000Z');
  const { a, tenant, started, url } = await gateway(t, { clock });
  await started.app.locations.update(a.id, { timezone: 'Asia/Tokyo' });
  const b = await tenant('New York');
  await started.app.locations.update(b.id, { timezone: 'America/New_York' });
  const upload = async (line: string) => {
    const res = await fetch(`${url}/iclock/cdata?SN=MOVE0001&table=ATTLOG&Stamp=1`, { method: 'POST', body: line });
    return res.text();
  };
  const punch = '1001\t2026-03-05 09:00:00\t0\t1';
  const records = async (api: typeof a.api) => {
    const res = await api<{ data: Rec[] }>('GET', '/api/attendance?limit=100');
    return res.body.data.map((r) => ({ pin: r.pin, timestamp: r.timestamp, local_time: r.local_time }));
  };

  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'MOVE0001' } })).status, 201);
  t.equal(await upload(punch), 'OK: 1', 'Tokyo: 09:00 local');
  t.strictSame(await records(a.api), [{ pin: '1001', timestamp: '2026-03-05T00:00:00.000Z', local_time: '2026-03-05 09:00:00' }]);

  clock.advance(60 * 60_000); // 01:30Z: the terminal moves to New York
  t.equal((await a.api('DELETE', '/api/devices/MOVE0001')).status, 200);
  t.equal((await b.api('POST', '/api/devices', { body: { sn: 'MOVE0001' } })).status, 201);

  clock.advance(13 * 60 * 60_000); // 14:30Z, 09:30 in New York
  t.match(await upload(punch), /^OK/);
  t.strictSame(
    await records(b.api),
    [{ pin: '1001', timestamp: '2026-03-05T14:00:00.000Z', local_time: '2026-03-05 09:00:00' }],
    'New York: the punch at 09:00 local is stored, although Tokyo has one with the same key',
  );
  t.match(await upload(punch), /^OK/);
  t.equal((await records(b.api)).length, 1, 'a re-send is still stored once');
  t.equal((await records(a.api)).length, 1, 'Tokyo keeps its own punch');
});

t.test('SQLite migration 17: rows, ids and the high-water mark kept; the key per location; the feed reads in index order', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'at-16.db');
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const m of MIGRATIONS.filter((m) => m.version <= 16)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString());
  }
  for (const name of ['L1', 'L2'])
    db.prepare("INSERT INTO locations (name, timezone, created_at) VALUES (?, 'UTC', '2026-01-01T00:00:00.000Z')").run(name);
  const insert = db.prepare(
    "INSERT INTO attendance (location_id, sn, pin, user_id, timestamp, local_time, status, verify, work_code, created_at) VALUES (1, 'SN1', ?, NULL, ?, ?, 0, 1, NULL, '2026-01-01T00:00:00.000Z')",
  );
  for (let i = 1; i <= 4; i++) insert.run(String(i), `2026-01-01T08:0${i}:00.000Z`, `2026-01-01 08:0${i}:00`);
  db.prepare('DELETE FROM attendance WHERE id = 4').run(); // pruned: id 4 never comes back
  db.close();

  const store = openSqliteStore(file);
  t.teardown(() => store.close());
  const kept = await store.attendance.listAfter(1, null, {}, 10, '2026-01-02T00:00:00.000Z');
  t.strictSame(
    kept.map((a) => [a.id, a.pin]),
    [
      [1, '1'],
      [2, '2'],
      [3, '3'],
    ],
    'rows and ids kept',
  );
  const again = { sn: 'SN1', pin: '2', user_id: null, timestamp: '2026-01-01T08:02:00.000Z', local_time: '2026-01-01 08:02:00' };
  const base = { status: 0, verify: 1, work_code: null };
  t.strictSame(await store.attendance.record([{ ...again, ...base, location_id: 1 }], '2026-01-02T00:00:00.000Z'), [], 'still a duplicate');
  const moved = await store.attendance.record([{ ...again, ...base, location_id: 2 }], '2026-01-02T00:00:00.000Z');
  t.equal(moved.length, 1, 'the same key in another location is a new punch');
  t.ok((moved[0]?.id ?? 0) > 4, `a new punch takes an id above the pruned one (${moved[0]?.id})`);

  const check = new Database(file, { readonly: true });
  t.teardown(() => check.close());
  const plan = (check.prepare(`EXPLAIN QUERY PLAN ${LIST_AFTER_SQL}`).all(1, 0, 1000) as { detail: string }[])
    .map((r) => r.detail)
    .join(' | ');
  t.match(plan, /attendance_arrival \(location_id=\? AND id>\?\)/, `the cursor feed reads (location_id, id) in order: ${plan}`);
  t.notMatch(plan, /TEMP B-TREE/, 'without a temporary sort');
});
