/** The store contract against the SQLite adapter, plus what only SQLite has (migrations, WAL). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { statSync, existsSync } from 'node:fs';
import { startCheckpointer } from '../../src/store/sqlite/checkpointer.js';
import { WATCH_MS } from '../../src/store/sqlite/cluster.js';
import { migrate, openDatabase } from '../../src/store/sqlite/db.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { storeContract } from './store-contract.js';

const dir = await mkdtemp(join(tmpdir(), 'biogate-contract-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
let n = 0;

/** A database file as a BioGate of schema `version` left it (migrations up to it applied), still open. */
async function databaseAt(name: string, version: number) {
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(join(dir, name));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const m of MIGRATIONS.filter((m) => m.version <= version)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString());
  }
  return { db, file: join(dir, name), Database };
}

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
  const rows = db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all() as {
    version: number;
    name: string;
    applied_at: string;
  }[];
  t.same(
    rows.map((r) => [r.version, r.name]),
    MIGRATIONS.map((m) => [m.version, m.name]),
    'every migration recorded, in order',
  );
  t.ok(
    rows.every((r) => !Number.isNaN(Date.parse(r.applied_at))),
    'with the time it ran',
  );
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

t.test('sqlite: migration 12 keeps the stored events (without the index on their id) and their numbering', async (t) => {
  const { db, file, Database } = await databaseAt('at-11.db', 11);
  db.prepare("INSERT INTO locations (name, timezone, created_at) VALUES ('L', 'UTC', '2026-01-01T00:00:00.000Z')").run();
  for (let seq = 1; seq <= 3; seq++) {
    db.prepare('INSERT INTO events (location_id, seq, id, type, at, node, data) VALUES (1, ?, ?, ?, ?, ?, ?)').run(
      seq,
      `ev-${seq}`,
      'device.updated',
      '2026-01-01T00:00:00.000Z',
      'n1',
      JSON.stringify({ seq }),
    );
  }
  db.prepare('INSERT INTO event_seqs (location_id, seq) VALUES (1, 3)').run();
  db.close();

  const store = openSqliteStore(file);
  t.same(
    (await store.cluster.eventsAfter(1, 0, 10)).map((e) => [e.seq, e.id, e.data]),
    [
      [1, 'ev-1', { seq: 1 }],
      [2, 'ev-2', { seq: 2 }],
      [3, 'ev-3', { seq: 3 }],
    ],
    'kept, in order',
  );
  const [next] = await store.cluster.appendEvents([
    { id: 'ev-4', location_id: 1, type: 'device.updated', at: '2026-01-01T00:00:01.000Z', node: 'n1', data: {} },
  ]);
  t.equal(next?.seq, 4, 'numbering continues');
  await store.close();
  const check = new Database(file, { readonly: true });
  const indexes = (
    check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'").all() as { name: string }[]
  ).map((r) => r.name);
  t.same(
    indexes.filter((n) => !n.startsWith('sqlite_autoindex_events_v12')).sort(),
    ['events_at'],
    'only the time index (the key is the table itself)',
  );
  check.close();
});

t.test('sqlite: a unit of work is one transaction, committed when its function settles or yields to the event loop', async (t) => {
  const file = join(dir, 'unit.db');
  const store = openSqliteStore(file);
  const Database = (await import('better-sqlite3')).default;
  const other = new Database(file, { readonly: true });
  const seen = () => (other.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
  const ev = (i: number) => ({
    id: `u-${i}`,
    location_id: 1,
    type: 'device.updated',
    at: '2026-01-01T00:00:00.000Z',
    node: 'n1',
    data: {},
  });
  await store.unitOfWork(async () => {
    await store.cluster.appendEvents([ev(1)]);
    await store.cluster.appendEvents([ev(2)]);
    t.equal(seen(), 0, 'inside: another connection sees nothing yet (one transaction)');
  });
  t.equal(seen(), 2, 'settled: committed');
  await store.unitOfWork(async () => {
    await store.cluster.appendEvents([ev(3)]);
    await new Promise((r) => setTimeout(r, 5)); // waits for something other than the store
    t.equal(seen(), 3, 'a unit that yields to the event loop has committed what it wrote');
    await store.cluster.appendEvents([ev(4)]);
    t.equal(seen(), 4, 'and writes on call by call');
  });
  other.close();
  await store.close();
});

t.test('sqlite: migration 13 indexes each command status apart; the mailbox, expiry, sent and child reads use them', async (t) => {
  const { db, file, Database } = await databaseAt('at-12.db', 12);
  const insert = db.prepare(
    "INSERT INTO commands (location_id, sn, command, priority, origin, status, expires_at, created_at) VALUES (1, 'SN1', 'info', ?, 'api', ?, ?, '2026-01-01T00:00:00.000Z')",
  );
  insert.run(0, 'pending', '2026-01-02T00:00:00.000Z');
  insert.run(5, 'pending', null);
  insert.run(0, 'success', null);
  db.close();

  const store = openSqliteStore(file);
  t.same(
    (await store.commands.pending('SN1', 10)).map((c) => [c.id, c.priority]),
    [
      [2, 5],
      [1, 0],
    ],
    'the pending rows kept, highest priority first',
  );
  t.same(
    (await store.commands.expire('2026-01-03T00:00:00.000Z')).map((c) => c.id),
    [1],
    'the expiry index finds the pending row with an expiry',
  );
  await store.close();

  const check = new Database(file, { readonly: true });
  const plan = (sql: string, ...args: unknown[]) =>
    (check.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' | ');
  t.match(
    plan(
      "SELECT id FROM commands WHERE sn = ? AND status = 'pending' AND parent_id IS NULL AND composite = 0 ORDER BY priority DESC, id ASC LIMIT 50",
      'SN1',
    ),
    /USING (COVERING )?INDEX commands_mailbox \(sn=\?\)$/,
    'mailbox: by serial, in order, no sort',
  );
  t.match(
    plan("SELECT id FROM commands WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ?", 'x'),
    /INDEX commands_expiry/,
  );
  t.match(
    plan("SELECT id FROM commands WHERE status = 'sent' AND sent_at < ? AND parent_id IS NULL ORDER BY sent_at", 'x'),
    /INDEX commands_sent \(sent_at<\?\)$/,
  );
  t.match(plan('SELECT id FROM commands WHERE parent_id = ? ORDER BY id', 1), /INDEX commands_parent \(parent_id=\?\)/);
  // A terminal's ops of other locations (audits, load-users): three ranges of one index, never a scan of the table.
  t.match(
    plan("SELECT 1 FROM commands WHERE sn = ? AND origin = 'sync' AND parent_id IS NULL AND location_id > ? LIMIT 1", 'SN1', 1),
    /^SEARCH commands USING (COVERING )?INDEX commands_sync_history \(sn=\? AND location_id>\?\)$/,
    'sync history of a terminal: by serial and location',
  );
  t.match(
    plan(
      "SELECT location_id FROM commands WHERE sn = ? AND origin = 'sync' AND parent_id IS NULL AND status IN ('success', 'sent') ORDER BY id",
      'SN1',
    ),
    /^SEARCH commands USING INDEX commands_sync_history \(sn=\?\)/,
    'its delivered ops: by serial',
  );
  const partial = check
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'commands' AND name IN ('commands_mailbox', 'commands_sent', 'commands_finished', 'commands_parent', 'commands_expiry')",
    )
    .all() as { name: string; sql: string }[];
  t.equal(partial.length, 5);
  t.ok(
    partial.every((i) => / WHERE /.test(i.sql)),
    'every one of them partial',
  );
  check.close();
});

t.test(
  'sqlite: migration 14 copies attendance with its ids and high-water mark, the same duplicates, and finds sent commands by device',
  async (t) => {
    const { db, file, Database } = await databaseAt('at-13.db', 13);
    db.prepare("INSERT INTO locations (name, timezone, created_at) VALUES ('L', 'UTC', '2026-01-01T00:00:00.000Z')").run();
    const punch = db.prepare(
      "INSERT INTO attendance (location_id, sn, pin, user_id, timestamp, local_time, status, verify, work_code, created_at) VALUES (1, 'SN1', ?, NULL, ?, ?, 0, 1, NULL, '2026-01-01T00:00:00.000Z')",
    );
    for (let i = 1; i <= 5; i++) punch.run(String(i), `2026-01-01T08:0${i}:00.000Z`, `2026-01-01 08:0${i}:00`);
    db.prepare('DELETE FROM attendance WHERE id >= 4').run(); // the newest rows pruned: ids 4 and 5 must never come back
    db.close();

    const store = openSqliteStore(file);
    const kept = await store.attendance.listAfter(1, null, {}, 10, '2026-01-02T00:00:00.000Z');
    t.same(
      kept.map((a) => [a.id, a.pin, a.local_time]),
      [
        [1, '1', '2026-01-01 08:01:00'],
        [2, '2', '2026-01-01 08:02:00'],
        [3, '3', '2026-01-01 08:03:00'],
      ],
      'rows and ids kept',
    );
    const again = { location_id: 1, sn: 'SN1', user_id: null, status: 0, verify: 1, work_code: null };
    const stored = await store.attendance.record(
      [
        { ...again, pin: '2', timestamp: '2026-01-01T08:02:00.000Z', local_time: '2026-01-01 08:02:00' },
        { ...again, pin: '9', timestamp: '2026-01-01T08:09:00.000Z', local_time: '2026-01-01 08:09:00' },
      ],
      '2026-01-02T00:00:00.000Z',
    );
    t.same(
      stored.map((a) => a.pin),
      ['9'],
      'a copied punch is still a duplicate',
    );
    t.ok((stored[0]?.id ?? 0) > 5, `a new punch takes an id above the pruned ones (${stored[0]?.id})`);
    await store.close();

    const check = new Database(file, { readonly: true });
    const plan = (sql: string, ...args: unknown[]) =>
      (check.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' | ');
    t.match(
      plan(
        "SELECT id FROM commands WHERE sn = ? AND command = ? AND status = 'sent' AND parent_id IS NULL AND location_id = ? ORDER BY sent_at, id LIMIT 1",
        'SN1',
        'reboot',
        1,
      ),
      /INDEX commands_sent_device \(sn=\? AND command=\?\)/,
      'sent commands of a device: by serial and preset',
    );
    const indexes = (
      check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'attendance'").all() as { name: string }[]
    )
      .map((r) => r.name)
      .sort();
    t.same(
      indexes,
      ['attendance_arrival', 'attendance_feed_event', 'attendance_location', 'sqlite_autoindex_attendance_1'],
      'the dedup key and the indexes (attendance_arrival of migration 17, the feed outbox one of migration 20; the timestamp one dropped by 46), nothing left of the old table',
    );
    t.equal(
      (check.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name LIKE 'attendance_v14%' AND type = 'table'").get() as { n: number })
        .n,
      0,
    );
    check.close();
  },
);

t.test(
  'sqlite: LIMIT and OFFSET parameters are cast (so STAT4 does not plan the statement on every run) and keep their meaning',
  async (t) => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE n (v INTEGER)');
    for (let v = 1; v <= 5; v++) db.prepare('INSERT INTO n (v) VALUES (?)').run(v);
    const page = db.prepare('SELECT v FROM n ORDER BY v LIMIT ? OFFSET ?');
    t.equal(page.source, 'SELECT v FROM n ORDER BY v LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)');
    t.same(page.pluck().all(2, 1), [2, 3]);
    t.same(page.pluck().all(10, 4), [5]);
    t.same(page.pluck().all(0, 0), [], 'limit 0');
    t.same(page.pluck().all(-1, 3), [4, 5], 'a negative limit is no limit, as before');
    t.equal(db.prepare('SELECT v FROM n LIMIT 2').source, 'SELECT v FROM n LIMIT 2', 'literals untouched');
    db.close();
  },
);

t.test(
  'sqlite: once the log grows, a thread checkpoints it, not the writer; the writer keeps a backstop and takes over when the thread stops',
  async (t) => {
    const file = join(dir, 'checkpointer.db');
    const db = openDatabase(file);
    const mark = () => db.pragma('wal_autocheckpoint', { simple: true });
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 1_000 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
    };
    const checkpointer = startCheckpointer(db, file, { pollMs: 10 });
    db.exec('CREATE TABLE filler (b BLOB)');
    await new Promise((r) => setTimeout(r, 100));
    t.same([checkpointer.running, mark()], [false, 1000], "a small log: no thread, SQLite's own mark");

    const before = statSync(file).size;
    const insert = db.prepare('INSERT INTO filler (b) VALUES (randomblob(4000))');
    for (let i = 0; i < 600; i++) insert.run(); // 2.4 MB of log: below the writer's mark, so it checkpoints nothing itself
    await until(() => checkpointer.running && mark() === 4000);
    t.same([checkpointer.running, mark()], [true, 4000], "past 2 MiB of log the thread runs, and the writer's mark is a backstop");
    await until(() => statSync(file).size >= before + 2_000_000);
    t.ok(statSync(file).size >= before + 2_000_000, `the thread copied the log into the file (${before} → ${statSync(file).size} bytes)`);

    await checkpointer.stop();
    t.same([checkpointer.running, mark()], [false, 1000], 'stopped: the writer checkpoints by itself again');
    await checkpointer.stop();
    db.close();
    t.notOk(existsSync(`${file}-wal`), "the thread's connection was closed: the writer's close was the last and removed the log");
  },
);

t.test('sqlite: a second close() waits for the first (the forced shutdown path exited before the log was removed)', async (t) => {
  const file = join(dir, 'close-twice.db');
  const store = openSqliteStore(file);
  await store.locations.create({ name: 'Close twice', timezone: 'UTC' }, new Date().toISOString());
  t.ok(existsSync(`${file}-wal`), 'a log to remove');
  const order: string[] = [];
  const first = store.close().then(() => order.push('first'));
  await store.close();
  order.push('second');
  await first;
  t.same(order, ['first', 'second'], 'the second close resolved only once the first was done');
  t.notOk(existsSync(`${file}-wal`), 'closed for real when the second close resolved: the log was checkpointed and removed');
  await t.rejects(store.ping(), /closed/);
});

t.test(
  'sqlite: a unit of work whose COMMIT fails is rolled back and fails, and the next one starts clean (also when it yielded)',
  async (t) => {
    const store = openSqliteStore(join(dir, 'unit-fail.db'));
    const Database = (await import('better-sqlite3')).default;
    // The disk filling up at COMMIT, played by the driver (not by BioGate's code).
    const exec = Database.prototype.exec;
    let failCommits = 0;
    Database.prototype.exec = function (this: InstanceType<typeof Database>, sql: string) {
      if (sql === 'COMMIT' && failCommits > 0) {
        failCommits--;
        throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
      }
      return exec.call(this, sql);
    } as typeof exec;
    t.teardown(() => {
      Database.prototype.exec = exec;
    });
    const ev = (i: number) => ({
      id: `f-${i}`,
      location_id: 1,
      type: 'device.updated',
      at: '2026-01-01T00:00:00.000Z',
      node: 'n1',
      data: {},
    });
    const stored = async () => (await store.cluster.eventsAfter(1, 0, 10)).map((e) => e.id);

    failCommits = 1;
    await t.rejects(
      store.unitOfWork(() => store.cluster.appendEvents([ev(1)])),
      { code: 'SQLITE_FULL' },
    );
    t.same(await stored(), [], 'rolled back');
    await store.unitOfWork(() => store.cluster.appendEvents([ev(2)]));
    t.same(await stored(), ['f-2'], 'the next unit commits');

    failCommits = 1;
    await t.rejects(
      store.unitOfWork(async () => {
        await store.cluster.appendEvents([ev(3)]);
        await new Promise((r) => setTimeout(r, 5)); // the commit of the yield fails, not the process
      }),
      { code: 'SQLITE_FULL' },
    );
    t.same(await stored(), ['f-2'], 'what it wrote before yielding was rolled back');
    await store.cluster.appendEvents([ev(4)]);
    t.same(await stored(), ['f-2', 'f-4'], 'and writes go on outside any transaction');
    await store.close();
  },
);

t.test('sqlite: a watch hands over the events other connections append (the CLI), once each, and says another process wrote', async (t) => {
  const file = join(dir, 'watch.db');
  const gateway = openSqliteStore(file);
  const cli = openSqliteStore(file);
  t.teardown(async () => {
    await gateway.close();
    await cli.close();
  });
  const ev = (location_id: number, id: string) => ({
    id,
    location_id,
    type: 'user.changed',
    at: new Date().toISOString(),
    node: 'x',
    data: {},
  });
  await gateway.cluster.appendEvents([ev(1, 'before')]); // before the watch: not handed over
  const seen: string[] = [];
  let writes = 0;
  const watch = await gateway.cluster.watchEvents(
    (e) => void seen.push(`${e.location_id}:${e.seq}:${e.id}`),
    (err) => t.fail(String(err)),
    () => void writes++,
  );
  t.ok(watch, 'SQLite offers a watch');
  const settle = () => new Promise((r) => setTimeout(r, WATCH_MS * 3));

  await gateway.cluster.appendEvents([ev(1, 'own-1'), ev(1, 'own-2')]);
  await settle();
  t.same(seen, [], 'its own appends are not handed back (the feed delivered them in process)');
  t.equal(writes, 0, 'nor do they count as another process writing');

  await cli.cluster.appendEvents([ev(1, 'cli-1')]);
  await cli.cluster.appendEvents([ev(2, 'cli-2'), ev(2, 'cli-3')]);
  await settle();
  t.same(seen, ['1:4:cli-1', '2:1:cli-2', '2:2:cli-3'], "the other connection's events, in seq order per location, once");
  t.ok(writes >= 1, 'another process wrote');

  await gateway.cluster.appendEvents([ev(1, 'own-3')]);
  await cli.cluster.acquireLease('job:test', 'cli', new Date().toISOString(), new Date(Date.now() + 60_000).toISOString());
  const writesBefore = writes;
  await settle();
  t.same(seen.slice(3), [], 'a write without events hands over nothing (own-3 not either)');
  t.ok(writes > writesBefore, '... but says another process wrote');

  await watch?.close();
  await cli.cluster.appendEvents([ev(1, 'after-close')]);
  await settle();
  t.equal(seen.length, 3, 'closed: nothing more');
});

t.test('sqlite: migration 15 drains the sync outbox in index order (no sort of every due entry per round)', async (t) => {
  const store = openSqliteStore(join(dir, 'outbox-order.db'));
  t.teardown(() => store.close());
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(join(dir, 'outbox-order.db'));
  t.teardown(() => db.close());
  const plan = (
    db
      .prepare(
        'EXPLAIN QUERY PLAN SELECT location_id, pin, rev, since FROM sync_outbox WHERE since <= ? ORDER BY since, location_id, pin LIMIT ?',
      )
      .all('9', 10) as { detail: string }[]
  ).map((r) => r.detail);
  t.match(plan.join('\n'), /USING (COVERING )?INDEX sync_outbox_due/, 'the due entries come from the index');
  t.notMatch(plan.join('\n'), /TEMP B-TREE/, 'in their order: no sort');
  // And the port still answers in that order.
  const now = '2026-01-01T00:00:00.000Z';
  const location = await store.locations.create({ name: 'Outbox', timezone: 'UTC', require_comm_key: false }, now);
  for (const pin of [3, 1, 2]) await store.users.upsert(location.id, pin, { first_name: 'X' }, now);
  t.same(
    (await store.syncOutbox.due('2027-01-01T00:00:00.000Z', 2)).map((e) => e.pin),
    [1, 2],
    'oldest first, then by location and PIN',
  );
});
