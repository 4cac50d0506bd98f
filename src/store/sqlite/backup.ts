/**
 * Backup, restore and schema status of the SQLite store, for `biogate backup|restore|doctor`.
 *
 * Backup uses SQLite's online backup API (better-sqlite3 `db.backup()`), from a connection of its
 * own while the server keeps running. The API restarts whenever another connection writes between
 * two steps, so a backup in small steps may never finish under load; after the first step this one
 * copies every remaining page in one step, inside one read transaction: a WAL snapshot, consistent,
 * that does not block the server's writers (they append to the WAL meanwhile).
 *
 * The photo files beside the store (`<file>.photos/`) are copied beside the backup and restored with it.
 *
 * Restore replaces the database file. "In use" is decided by SQLite's own locks: every connection
 * to a WAL database holds a shared lock for as long as it is open, so an EXCLUSIVE lock taken with
 * no busy wait fails exactly when a BioGate (or any other program) has the store open.
 */
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import Database from 'better-sqlite3';
import { StoreFileError, type SqliteBackupResult, type SqliteRestoreResult, type SqliteSchemaStatus } from '../store-files.js';
import { createPrivateFile } from './db.js';
import { photoDirOf } from './photos.js';
import { MIGRATIONS } from './migrations.js';

export const LATEST_SQLITE_SCHEMA = Math.max(...MIGRATIONS.map((m) => m.version));

const schemaVersionOf = (db: Database.Database): number => {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) return 0;
  return (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number }).v;
};

/** Opens an existing database file without creating or migrating anything. */
function openExisting(path: string, readonly: boolean): Database.Database {
  if (!existsSync(path)) throw new StoreFileError(`${path} does not exist`);
  try {
    return new Database(path, { readonly, fileMustExist: true });
  } catch (err) {
    throw new StoreFileError(`${path} cannot be opened as a SQLite database: ${(err as Error).message}`);
  }
}

/**
 * Copies the live store at `source` to `out` (which must not exist), then checks the copy
 * (`PRAGMA integrity_check`). Written to a temporary name first: a failed backup leaves no file
 * that looks like a good one.
 */
export async function backupSqlite(source: string, out: string): Promise<SqliteBackupResult> {
  if (existsSync(out)) throw new StoreFileError(`${out} already exists; choose a new file name (a backup never overwrites)`);
  if (!existsSync(dirname(out))) throw new StoreFileError(`the directory ${dirname(out)} does not exist`);
  const db = openExisting(source, true);
  const partial = join(dirname(out), `.${basename(out)}.partial-${process.pid}`);
  try {
    db.pragma('busy_timeout = 5000');
    createPrivateFile(partial); // 0600, and so its journal: a backup holds the store's secrets
    // First call (rate 0) only sizes the job; every later step copies all the pages that remain.
    const { totalPages } = await db.backup(partial, { progress: () => 0x7fffffff });
    const copy = new Database(partial, { fileMustExist: true });
    let schemaVersion: number;
    try {
      const problems = (copy.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
      if (problems.join() !== 'ok') throw new StoreFileError(`the backup failed its integrity check: ${problems.slice(0, 5).join('; ')}`);
      schemaVersion = schemaVersionOf(copy);
      // A backup is one self-contained file: no -wal or -shm beside it.
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    renameSync(partial, out);
    const photos = copyPhotos(photoDirOf(source), photoDirOf(out));
    return { path: out, bytes: statSync(out).size, pages: totalPages, schemaVersion, photos };
  } catch (err) {
    rmSync(partial, { force: true });
    rmSync(`${partial}-journal`, { force: true });
    throw err;
  } finally {
    db.close();
  }
}

/**
 * The photo files beside a store (sqlite/photos.ts) go beside its backup, copied after the database: a photo
 * replaced or deleted meanwhile may be the newer one or missing (its user then has no photo to serve, 404).
 * Returns how many files were copied.
 */
function copyPhotos(from: string, to: string): number {
  if (!existsSync(from)) return 0;
  cpSync(from, to, { recursive: true, filter: (src) => !/\.partial-[0-9a-f]+$/.test(src) });
  chmodSync(to, 0o700);
  return readdirSync(to, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}

/** Schema version and a quick check of a store file, without changing it (doctor, restore). */
export function sqliteSchemaStatus(path: string): SqliteSchemaStatus {
  const db = openExisting(path, true);
  try {
    const check = (db.pragma('quick_check') as { quick_check: string }[])
      .map((r) => r.quick_check)
      .slice(0, 5)
      .join('; ');
    return { version: schemaVersionOf(db), latest: LATEST_SQLITE_SCHEMA, check };
  } catch (err) {
    throw new StoreFileError(`${path} is not a readable SQLite database: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

/** True when some connection (a running BioGate, a `sqlite3` shell) has the database open. */
export function sqliteInUse(path: string): boolean {
  if (!existsSync(path)) return false;
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return false;
  } catch (err) {
    if (err instanceof Database.SqliteError && /^SQLITE_(BUSY|LOCKED)/.test(err.code)) return true;
    throw err;
  } finally {
    db.close();
  }
}

/**
 * Puts the backup `from` in place of the store at `target`. Refuses: a backup that fails its
 * integrity check or comes from a newer BioGate (its schema is unknown here); an existing store
 * unless `force`; a store some process has open, even with `force` (stop the server first). The
 * replaced store is renamed aside (`<file>.replaced-<time>`), not deleted.
 */
export function restoreSqlite(from: string, target: string, options: { force: boolean; now: Date }): SqliteRestoreResult {
  const backup = openExisting(from, true);
  let schemaVersion: number;
  try {
    const problems = (backup.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    if (problems.join() !== 'ok') throw new StoreFileError(`${from} failed its integrity check: ${problems.slice(0, 5).join('; ')}`);
    schemaVersion = schemaVersionOf(backup);
  } catch (err) {
    if (err instanceof StoreFileError) throw err;
    throw new StoreFileError(`${from} is not a BioGate SQLite backup: ${(err as Error).message}`);
  } finally {
    backup.close();
  }
  if (schemaVersion === 0) throw new StoreFileError(`${from} is a SQLite file but not a BioGate store (no schema_migrations table)`);
  if (schemaVersion > LATEST_SQLITE_SCHEMA) {
    throw new StoreFileError(
      `${from} has schema version ${schemaVersion}, newer than this BioGate knows (${LATEST_SQLITE_SCHEMA}); restore it with the BioGate version that wrote it`,
    );
  }
  let previous: string | undefined;
  if (existsSync(target)) {
    if (!options.force)
      throw new StoreFileError(`${target} exists; add --force to replace it (it is kept as ${basename(target)}.replaced-<time>)`);
    if (sqliteInUse(target))
      throw new StoreFileError(`${target} is in use (a BioGate server or another program has it open); stop it, then restore`);
    // The last connection closed: SQLite checkpointed the WAL into the file and removed -wal/-shm.
    previous = `${target}.replaced-${options.now.toISOString().replace(/[:.]/g, '-')}`;
    renameSync(target, previous);
  }
  // A -wal or -shm left beside the name would be read as part of the restored file: never keep one.
  rmSync(`${target}-wal`, { force: true });
  rmSync(`${target}-shm`, { force: true });
  const partial = join(dirname(target), `.${basename(target)}.restoring-${process.pid}`);
  try {
    mkdirSync(dirname(target), { recursive: true }); // as openDatabase does for a new store
    copyFileSync(from, partial);
    chmodSync(partial, 0o600);
    renameSync(partial, target);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
  // The photos go with their database: the replaced store's beside its renamed file, the backup's in place.
  if (existsSync(photoDirOf(target))) {
    if (previous) renameSync(photoDirOf(target), photoDirOf(previous));
    else rmSync(photoDirOf(target), { recursive: true, force: true });
  }
  copyPhotos(photoDirOf(from), photoDirOf(target));
  return { path: target, schemaVersion, previous };
}
