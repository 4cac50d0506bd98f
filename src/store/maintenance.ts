/**
 * Store maintenance for the operator's commands (`biogate backup`, `restore`, `doctor`), by store URL
 * like ./open.ts: the CLI names no adapter, and the SQLite code stays behind the better-sqlite3 door
 * (src/store/sqlite/backup.ts), loaded only when asked for. MongoDB has its own tools (mongodump,
 * mongorestore): for it these say so instead of copying anything.
 */

/** The store cannot be backed up or restored by BioGate itself; `hint` is the command to use instead. */
export class UseExternalToolError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'UseExternalToolError';
  }
}

export { StoreFileError } from './store-files.js';
export type {
  SqliteBackupResult as BackupResult,
  SqliteRestoreResult as RestoreResult,
  SqliteSchemaStatus as SchemaStatus,
} from './store-files.js';
import type { SqliteBackupResult, SqliteRestoreResult, SqliteSchemaStatus } from './store-files.js';

const sqlitePath = (url: string): string | undefined => (url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : undefined);

/** The URL with any password hidden (it goes into messages). */
const shown = (url: string) => url.replace(/\/\/[^@/]*@/, '//***@');

function mongoOnly(url: string, what: 'backup' | 'restore'): never {
  if (!/^mongodb(\+srv)?:\/\//.test(url)) throw new Error(`BIOGATE_STORE: unsupported store URL "${shown(url)}"`);
  const hint =
    what === 'backup'
      ? `mongodump --uri '${shown(url)}' --gzip --archive=biogate-$(date +%F).archive`
      : `mongorestore --uri '${shown(url)}' --gzip --archive=FILE --drop   (stop BioGate first)`;
  throw new UseExternalToolError(`the store is MongoDB: BioGate does not copy it; use MongoDB's own tool`, hint);
}

export async function backupStore(url: string, out: string): Promise<SqliteBackupResult> {
  const path = sqlitePath(url);
  if (path === undefined) return mongoOnly(url, 'backup');
  const { backupSqlite } = await import('./sqlite/backup.js');
  return backupSqlite(path, out);
}

export async function restoreStore(url: string, from: string, options: { force: boolean; now: Date }): Promise<SqliteRestoreResult> {
  const path = sqlitePath(url);
  if (path === undefined) return mongoOnly(url, 'restore');
  const { restoreSqlite } = await import('./sqlite/backup.js');
  return restoreSqlite(from, path, options);
}

/**
 * The SQLite file's schema version against the latest this BioGate knows, and a quick check;
 * undefined for MongoDB (no versioned schema: indexes are ensured at start) and for a file that does
 * not exist yet (the server creates it).
 */
export async function sqliteStatus(url: string): Promise<SqliteSchemaStatus | undefined> {
  const path = sqlitePath(url);
  if (path === undefined) return undefined;
  const { existsSync } = await import('node:fs');
  if (!existsSync(path)) return undefined;
  const { sqliteSchemaStatus } = await import('./sqlite/backup.js');
  return sqliteSchemaStatus(path);
}
