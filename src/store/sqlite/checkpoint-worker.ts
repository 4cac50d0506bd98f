/**
 * The WAL checkpointer's thread (see ./checkpointer.ts): its own connection to the database file,
 * copying committed WAL frames into the file every `intervalMs` with a PASSIVE checkpoint, which
 * waits for no reader or writer. A checkpoint that finds the file busy is simply tried again next
 * time. Stops on the message 'stop'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const port = parentPort;
const db = new Database(path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('synchronous = NORMAL'); // as the writer's connection: the log synced before a checkpoint, the file after

const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // SQLITE_BUSY (another checkpoint running) or the file going away at shutdown: next tick
  }
}, intervalMs);

port?.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  port.close();
});
port?.postMessage('ready');
