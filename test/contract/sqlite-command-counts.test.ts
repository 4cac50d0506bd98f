// Commands by status on SQLite (migration 48): the `biogate_commands` gauge reads counts that triggers keep in the
// writing transaction, no longer a scan of every command kept. The migration counts what a database already holds;
// the triggers follow inserts, status changes and prunes (the store contract checks those on both stores).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';

const dir = await mkdtemp(join(tmpdir(), 'biogate-counts-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

t.test('migration 48 counts the commands a database holds; child lines are not counted', async (t) => {
  const file = join(dir, 'at-47.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const m of MIGRATIONS.filter((m) => m.version <= 47)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-03-01T00:00:00.000Z');
  }
  db.prepare("INSERT INTO locations (name, timezone, created_at) VALUES ('L', 'UTC', '2026-03-01T00:00:00.000Z')").run();
  const insert = db.prepare(
    "INSERT INTO commands (location_id, sn, command, priority, origin, status, parent_id, created_at) VALUES (1, 'SN1', 'info', 0, 'api', ?, ?, '2026-03-01T00:00:00.000Z') RETURNING id",
  );
  const parent = (insert.get('success', null) as { id: number }).id;
  insert.run('success', parent);
  insert.run('success', parent);
  for (const status of ['pending', 'pending', 'sent', 'failed', 'success']) insert.run(status, null);
  db.close();

  const store = openSqliteStore(file);
  t.teardown(() => store.close());
  t.same(await store.commands.countByStatus(), { pending: 2, sent: 1, success: 2, failed: 1 });
  const created = await store.commands.create(
    { location_id: 1, sn: 'SN1', command: 'info', params: null, priority: 0, origin: 'api', expires_at: null },
    '2026-03-01T00:01:00.000Z',
  );
  await store.commands.finish(created.id, { status: 'failed', error_message: 'x' }, '2026-03-01T00:02:00.000Z');
  t.same(await store.commands.countByStatus(), { pending: 2, sent: 1, success: 2, failed: 2 }, 'then kept by the triggers');
  const check = new Database(file, { readonly: true });
  t.teardown(() => check.close());
  t.same(check.prepare('SELECT COUNT(*) AS n FROM command_counts').get(), { n: 4 }, 'one row per status');
});
