/** The store contract against the SQLite adapter, plus what only SQLite has (migrations, WAL). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { migrate, openDatabase } from '../../src/store/sqlite/db.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { storeContract } from './store-contract.js';

const dir = await mkdtemp(join(tmpdir(), 'biogate-contract-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
let n = 0;

t.test('store contract (SQLite file)', async (t) => {
  storeContract(t, async () => openSqliteStore(join(dir, `contract-${++n}.db`)));
});

t.test('store contract (SQLite :memory:) opens', async (t) => {
  const store = openSqliteStore(':memory:');
  t.equal(store.kind, 'sqlite');
  await t.resolves(store.ping());
  await store.close();
});

t.test('sqlite: migrations are recorded once; reopening runs none; WAL is on', async (t) => {
  const file = join(dir, 'nested', 'deeper', 'migrations.db');
  const db = openDatabase(file);
  const rows = db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all() as { version: number; name: string; applied_at: string }[];
  t.same(rows.map((r) => [r.version, r.name]), MIGRATIONS.map((m) => [m.version, m.name]), 'every migration recorded, in order');
  t.ok(rows.every((r) => !Number.isNaN(Date.parse(r.applied_at))), 'with the time it ran');
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  t.equal(db.pragma('foreign_keys', { simple: true }), 1);
  t.same(migrate(db), [], 'nothing pending on the same connection');
  db.close();

  const again = openDatabase(file);
  t.same(migrate(again), [], 'nothing pending after reopening');
  t.equal((again.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n, MIGRATIONS.length, 'no duplicate rows');
  again.close();

  const store = openSqliteStore(file);
  t.equal(store.kind, 'sqlite');
  await store.close();
});
