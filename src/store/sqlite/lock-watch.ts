/**
 * A write lock held by another process stalls the gateway once, not once per write.
 *
 * better-sqlite3 is synchronous: a write that finds the database locked waits for it inside SQLite's
 * busy handler, on the event loop, for up to the busy timeout. Every request, held poll and timer of
 * the process waits with it. When another process (the CLI, a backup tool, a `sqlite3` shell) keeps
 * the lock, each write of the gateway waited the full timeout in turn, API calls, uploads and the
 * background writers (presence, sync, feed, webhooks) alike: minutes without an answer, and clients
 * cut off (found as a CI timeout of test/hardening/store-outage.test.ts).
 *
 * So the first write that gives up after the whole timeout (plain SQLITE_BUSY) switches the
 * connection to fail at once (busy_timeout 0): writes answer 503 STORE_UNAVAILABLE without waiting,
 * reads go on (WAL readers do not wait for the writer). A probe takes and releases the write lock
 * every PROBE_MS, and at once after any store call that succeeds meanwhile (most likely a write that
 * went through: the lock is gone); once it gets it, the normal timeout is back, so a lock held briefly
 * is waited for again, as before. Without the second, a lock taken again right after a successful
 * write, before the next probe, was refused instead of waited for (a CI failure of
 * test/hardening/store-outage.test.ts; test/hardening/lock-watch.test.ts).
 */
import Database from 'better-sqlite3';
import { BUSY_TIMEOUT_MS, type Db } from './db.js';

const PROBE_MS = 250;

export interface LockWatch {
  /** Whether writes fail at once now, because another connection kept the lock past the busy timeout. */
  readonly failingFast: boolean;
  /** Sees every error a store call failed with; a write that gave up waiting starts failing fast. */
  noteError(err: unknown): void;
  /** Told when a store call succeeded: while failing fast, looks at once whether the lock is free. */
  noteSuccess(): void;
  /** Ends the probe (the connection is about to close). */
  stop(): void;
}

/**
 * Plain SQLITE_BUSY is what SQLite returns once the busy handler gave up; its extended codes
 * (BUSY_SNAPSHOT, BUSY_RECOVERY) come at once and say nothing about a lock being held.
 */
const gaveUpWaiting = (err: unknown): boolean => err instanceof Database.SqliteError && err.code === 'SQLITE_BUSY';

export function watchLocks(db: Db, probeMs = PROBE_MS): LockWatch {
  let probe: NodeJS.Timeout | undefined;

  const recovered = () => {
    clearInterval(probe);
    probe = undefined;
    if (db.open) db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  };
  const tryLock = () => {
    if (!db.open) return recovered();
    // A unit of work of ours is open: it began IMMEDIATE, so it holds the write lock itself.
    if (db.inTransaction) return recovered();
    try {
      db.exec('BEGIN IMMEDIATE');
      db.exec('ROLLBACK');
    } catch {
      return; // still held (or the disk fails: the writes that meet it answer 503 on their own)
    }
    recovered();
  };

  return {
    get failingFast() {
      return probe !== undefined;
    },
    noteError(err) {
      if (probe !== undefined || !gaveUpWaiting(err) || !db.open) return;
      db.pragma('busy_timeout = 0');
      probe = setInterval(tryLock, probeMs);
      probe.unref();
    },
    noteSuccess() {
      if (probe !== undefined) tryLock();
    },
    stop() {
      clearInterval(probe);
      probe = undefined;
    },
  };
}
