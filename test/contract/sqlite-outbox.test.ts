// The punches' feed outbox on SQLite (migration 45, issue #34): the rows of one write owe their event as one
// range of ids in `attendance_owed`, not as a marker on every row. What a sweep reads and what an append clears,
// including rows marked one by one before migration 45 and a write that retention pruned in part.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { NewAttendance } from '../../src/store/ports/index.js';

const dir = await mkdtemp(join(tmpdir(), 'biogate-outbox-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

const punch = (pin: string, minute: number): NewAttendance => {
  const at = `2026-03-01T08:${String(minute).padStart(2, '0')}:00.000Z`;
  return {
    location_id: 1,
    sn: 'OWED01',
    pin,
    user_id: null,
    timestamp: at,
    local_time: at.slice(0, 19).replace('T', ' '),
    status: 0,
    verify: 1,
    work_code: null,
  };
};
const event = (id: string) => ({ id, location_id: 1, type: 'attendance.recorded', at: '2026-03-01T09:00:00.000Z', node: 't', data: {} });
const NOW = '2026-03-01T09:00:00.000Z';

t.test('a write owes one range: swept whole past the page size, cleared by its event, not stored twice', async (t) => {
  const file = join(dir, 'range.db');
  const store = openSqliteStore(file);
  t.teardown(() => store.close());
  const stored = await store.attendance.record([punch('1', 1), punch('2', 2), punch('3', 3)], NOW, 'write-1');
  const check = new Database(file, { readonly: true });
  t.teardown(() => check.close());
  t.same(check.prepare('SELECT first_id, last_id, marker FROM attendance_owed').all(), [
    { first_id: stored[0]?.id, last_id: stored[2]?.id, marker: 'write-1' },
  ]);
  t.equal(
    (check.prepare('SELECT COUNT(*) AS n FROM attendance WHERE feed_event IS NOT NULL').get() as { n: number }).n,
    0,
    'no row marked',
  );
  const owed = await store.attendance.unannounced(1);
  t.same(
    owed.map((u) => [u.marker, u.record.pin]),
    [
      ['write-1', '1'],
      ['write-1', '2'],
      ['write-1', '3'],
    ],
    'a page of 1 still reads the whole write: one event',
  );
  const settle = [{ event: 'e-1', table: 'attendance' as const, ids: stored.map((r) => r.id) }];
  t.equal((await store.cluster.appendEvents([event('e-1')], settle)).length, 1);
  t.same(await store.attendance.unannounced(10), [], 'nothing owed');
  t.equal((await store.cluster.appendEvents([event('e-1')], settle)).length, 0, 'offered again: stored before');
  t.equal((await store.cluster.eventsAfter(1, 0, 10)).length, 1);
});

t.test('a write retention pruned in part is swept as what is left and cleared; one pruned whole is dropped', async (t) => {
  const store = openSqliteStore(join(dir, 'pruned.db'));
  t.teardown(() => store.close());
  const first = await store.attendance.record([punch('1', 1), punch('2', 2), punch('3', 3)], NOW, 'write-1');
  await store.attendance.record([punch('4', 4)], NOW, 'write-2');
  t.equal(await store.attendance.prune('2026-03-01T08:02:00.000Z', 100), 1, 'the oldest punch of the first write pruned');
  const owed = await store.attendance.unannounced(10);
  t.same(
    owed.map((u) => [u.marker, u.record.pin]),
    [
      ['write-1', '2'],
      ['write-1', '3'],
      ['write-2', '4'],
    ],
  );
  const rest = first.slice(1).map((r) => r.id);
  t.equal((await store.cluster.appendEvents([event('e-1')], [{ event: 'e-1', table: 'attendance', ids: rest }])).length, 1);
  t.same(
    (await store.attendance.unannounced(10)).map((u) => u.record.pin),
    ['4'],
    'the first write is settled by what was left of it',
  );
  t.equal(await store.attendance.prune('2026-03-01T09:00:00.000Z', 100), 3);
  t.same(await store.attendance.unannounced(10), [], 'every row of the second write pruned: nothing to announce');
  t.same(await store.attendance.unannounced(10), []);
});

t.test('rows marked one by one before migration 45 are still swept and cleared', async (t) => {
  const file = join(dir, 'legacy.db');
  const old = new Database(file);
  old.pragma('journal_mode = WAL');
  old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const m of MIGRATIONS.filter((m) => m.version <= 44)) {
    old.exec(m.sql);
    old.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, NOW);
  }
  old
    .prepare(
      `INSERT INTO attendance (location_id, sn, pin, timestamp, local_time, status, verify, created_at, feed_event)
       VALUES (1, 'OWED01', '9', '2026-03-01T08:00:00.000Z', '2026-03-01 08:00:00', 0, 1, ?, 'legacy-1')`,
    )
    .run(NOW);
  old.close();
  const store = openSqliteStore(file);
  t.teardown(() => store.close());
  const owed = await store.attendance.unannounced(10);
  t.same(
    owed.map((u) => [u.marker, u.record.pin]),
    [['legacy-1', '9']],
  );
  const ids = owed.map((u) => u.record.id);
  t.equal((await store.cluster.appendEvents([event('e-9')], [{ event: 'e-9', table: 'attendance', ids }])).length, 1);
  t.same(await store.attendance.unannounced(10), [], 'its marker cleared');
  t.equal((await store.cluster.appendEvents([event('e-9')], [{ event: 'e-9', table: 'attendance', ids }])).length, 0);
});
