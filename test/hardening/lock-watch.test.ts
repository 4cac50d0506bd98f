// The write-lock watch of the SQLite store (src/store/sqlite/lock-watch.ts): once another process kept
// the lock past the busy timeout, writes fail at once; once the lock is gone, the normal wait is back.
// Found as a CI failure of store-outage.test.ts: a write that went through after the lock was released
// left the store failing fast until the next probe (every 250 ms), so a lock another process held for a
// moment right after was refused (503) instead of waited for.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openStore } from '../../src/store/open.js';
import type { SqliteStore } from '../../src/store/sqlite/index.js';

/** A real SQLITE_BUSY, as SQLite raises it once a write gave up waiting for another connection's lock. */
function busyError(path: string): unknown {
  const contender = new Database(path);
  contender.pragma('busy_timeout = 0');
  try {
    contender.exec('BEGIN IMMEDIATE');
  } catch (err) {
    return err;
  } finally {
    contender.close();
  }
  throw new Error('the lock was not held');
}

t.test('a write that goes through ends failing fast at once, without waiting for the probe', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'biogate-lockwatch-'));
  const path = join(dir, 'store.db');
  const store = (await openStore(`sqlite:${path}`)) as SqliteStore;
  const other = new Database(path);
  t.teardown(async () => {
    other.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const now = () => new Date().toISOString();

  other.exec('BEGIN IMMEDIATE');
  // What the store's guard does with a write that waited the whole busy timeout (5 s) for this lock.
  store.locks.noteError(busyError(path));
  t.equal(store.locks.failingFast, true, 'a write that gave up waiting switches the store to fail fast');
  await t.rejects(
    store.locations.create({ name: 'Refused', timezone: 'UTC' }, now()),
    { code: 'STORE_UNAVAILABLE' },
    'while the lock is held, a write fails at once',
  );
  t.equal(await store.locations.get(1), undefined, 'and wrote nothing');
  t.equal(store.locks.failingFast, true, 'reads go on and do not end it: the lock is still held');

  other.exec('ROLLBACK');
  // Only microtasks from here to the check: the probe's timer cannot run in between.
  const written = await store.locations.create({ name: 'After the lock', timezone: 'UTC' }, now());
  t.ok(written.id > 0, 'once the lock is gone, the write goes through');
  t.equal(store.locks.failingFast, false, 'and the normal busy wait is back at once');

  // (That a lock another process then holds for a moment is waited for is store-outage.test.ts's last step.)
});
