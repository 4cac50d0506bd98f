/**
 * WAL checkpoints off the event loop. By default SQLite copies the write-ahead log back
 * into the database file inside the COMMIT that takes the log past 1,000 pages: on the event loop,
 * where it was about a quarter of the time of a 100-record attendance upload (micro-measure: 137,000
 * against 175,000 records/s without it). Here a worker thread with its own connection runs a PASSIVE
 * checkpoint every INTERVAL_MS instead; the writer keeps a checkpoint of its own only as a backstop,
 * should the thread fall behind or fail, so the log stays bounded either way.
 *
 * The thread starts once the log first holds `startAtBytes` (a store that writes little, such as a
 * CLI command's or a test's, never pays for one): the log's size is looked at every `pollMs`.
 */
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';

const INTERVAL_MS = 100;
/** The writer's own checkpoint mark while the thread runs: 4,000 pages, 16 MiB of log. */
const BACKSTOP_PAGES = 4_000;
/** SQLite's default mark, kept until the thread runs and restored when it is gone. */
const DEFAULT_PAGES = 1_000;
const STOP_GRACE_MS = 2_000;

// The thread's module sits beside this one: .ts when run from source (tests), .js when built.
const WORKER = new URL(`./checkpoint-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export interface CheckpointerOptions {
  /** Log size that starts the thread; half the default mark's 4 MiB, so a busy writer reaches it. */
  readonly startAtBytes?: number;
  readonly pollMs?: number;
}

export interface Checkpointer {
  /** Whether the thread runs now. */
  readonly running: boolean;
  /** Ends the thread (after the checkpoint it may be running); the writer checkpoints by itself again. */
  stop(): Promise<void>;
}

export function startCheckpointer(db: Db, path: string, options: CheckpointerOptions = {}): Checkpointer {
  const startAtBytes = options.startAtBytes ?? 2 * 1024 * 1024;
  let worker: Worker | undefined;
  let running = false;
  let stopped = false;

  const spawn = () => {
    const w = new Worker(WORKER, { workerData: { path, intervalMs: INTERVAL_MS } });
    worker = w;
    w.unref(); // never what keeps a process alive
    w.once('message', () => {
      if (stopped || !db.open) return;
      running = true;
      db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    });
    const gone = () => {
      running = false;
      if (db.open) db.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
    };
    w.once('error', gone);
    w.once('exit', gone);
  };

  const poll = setInterval(() => {
    stat(`${path}-wal`).then(
      (s) => {
        if (s.size < startAtBytes || worker !== undefined || stopped) return;
        clearInterval(poll);
        spawn();
      },
      () => undefined, // no log yet
    );
  }, options.pollMs ?? 1_000);
  poll.unref();

  return {
    get running() {
      return running;
    },
    async stop() {
      stopped = true;
      clearInterval(poll);
      const w = worker;
      if (w === undefined || w.threadId === -1) return;
      const exited = once(w, 'exit').catch(() => undefined);
      w.postMessage('stop');
      const timer = setTimeout(() => void w.terminate(), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
