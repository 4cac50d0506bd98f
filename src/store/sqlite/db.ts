/** Opens the SQLite database (WAL, foreign keys, busy timeout) and runs pending migrations. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StoreSchemaNewerError } from '../../errors.js';
import { sqliteUnsupportedNode } from '../../node-version.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/** How long a write waits for another connection's lock before it fails (503 STORE_UNAVAILABLE); see ./lock-watch.ts. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * Creates `path` empty, readable by its owner only, unless it exists: a store holds webhook secrets,
 * cards and keypad passwords. SQLite gives a -wal, -shm or -journal the mode of its database file.
 */
export function createPrivateFile(path: string): void {
  try {
    writeFileSync(path, '', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

export function openDatabase(path: string): Db {
  const unsupported = sqliteUnsupportedNode(process.versions.node);
  if (unsupported) throw new Error(unsupported);
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true });
    createPrivateFile(path);
  }
  const db = new Database(path);
  // First: switching a fresh file to WAL takes a lock that a second process starting at the same
  // moment (nodes starting together) must wait for, not fail on.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`); // the CLI and the server share the file
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // with WAL: durable across process crashes, fast commits
  db.pragma('foreign_keys = ON');
  migrate(db);
  cachePreparedStatements(db);
  return db;
}

/** Distinct SQL texts kept prepared; texts built per call (IN lists of a given length) are few. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * This SQLite build has STAT4, under which the planner may weigh a bound `LIMIT ?` or `OFFSET ?`
 * value, and every run of such a statement costs about as much as preparing it again (measured
 * on 3.53: the mailbox read 13.8 µs with `LIMIT ?` against 4.1 µs with a literal, its
 * prepare 12.6 µs; a terminal's sent commands 28 µs against 3). Cast, the value is opaque to the
 * planner and the statement runs as fast as with a literal, with the same rows.
 */
const unplannedLimits = (sql: string): string => sql.replace(/\b(LIMIT|OFFSET) \?/g, '$1 CAST(? AS INTEGER)');

/**
 * Every `db.prepare(sql)` of the adapters returns one statement per SQL text, prepared once
 * (preparing again on every call would be a fifth of an idle poll's CPU), with its `LIMIT ?` and
 * `OFFSET ?` cast (above). better-sqlite3 statements
 * are reusable; a text is always used in one mode (the few read with `pluck`, or `raw` through
 * `prepareRaw`, whose texts name their columns, are only read that way), and none is iterated while
 * another call could use it (everything here is synchronous). Least recently used texts go
 * first past the bound.
 */
function cachePreparedStatements(db: Db): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let stmt = cache.get(sql);
    if (stmt) {
      cache.delete(sql);
    } else {
      stmt = prepare(unplannedLimits(sql));
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    }
    cache.set(sql, stmt);
    return stmt;
  }) as Db['prepare'];
}

/**
 * A statement whose rows come back as arrays in column order (better-sqlite3's `raw` mode): about
 * half the cost of a row object on a wide table. It is the cached statement of that SQL
 * text, put in raw mode: such texts name their columns (`rawReader`), so no caller wants them as objects.
 */
export function prepareRaw(db: Db, sql: string): Database.Statement<unknown[], unknown[]> {
  return (db.prepare(sql) as Database.Statement<unknown[], unknown[]>).raw(true);
}

/** `prepareRaw` for one table's reads: `SELECT *` and `RETURNING *` stand for `columns`, in that order. */
export function rawReader(db: Db, columns: readonly string[]): (sql: string) => Database.Statement<unknown[], unknown[]> {
  const list = columns.join(', ');
  return (sql) => prepareRaw(db, sql.replace(/(SELECT|RETURNING) \*/g, `$1 ${list}`));
}

/**
 * Many rows of a wide table, read as one JSON array text per row (SQLite's `json_array`) and parsed
 * in one `JSON.parse`: better-sqlite3 hands values to V8 one cell at a time, about 0.2 µs a cell on
 * the bench machine, so a page of 100 users × 15 columns took ~320 µs as raw rows and ~155 µs this
 * way. The rows are the raw rows `rawReader` would give: `SELECT *` stands for `columns`.
 * Only for tables whose columns are INTEGER, TEXT or NULL: `json_array` refuses BLOBs, and would
 * print a REAL with 15 significant digits.
 */
export function jsonRowsReader(db: Db, columns: readonly string[]): (sql: string) => (...args: unknown[]) => unknown[][] {
  const text = `SELECT json_array(${columns.join(', ')})`;
  return (sql) => {
    const rows = db.prepare(sql.replace(/SELECT \*/, text)).pluck();
    return (...args) => JSON.parse(`[${(rows.all(...args) as string[]).join(',')}]`) as unknown[][];
  };
}

/** Each column's position in a raw row. */
export const positions = <C extends string>(columns: readonly C[]): { readonly [K in C]: number } =>
  Object.fromEntries(columns.map((c, i) => [c, i])) as { readonly [K in C]: number };

export function migrate(db: Db): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  // A schema a newer version migrated is never run on: what it wrote may mean something else here.
  const known = Math.max(...MIGRATIONS.map((m) => m.version));
  const found = (db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
  if (found > known) throw new StoreSchemaNewerError('sqlite', found, known);
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
  const ran: number[] = [];
  for (const m of MIGRATIONS) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      // Checked again under the write lock: a process opening the same file at the same moment may have applied it.
      if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)) return;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
    }).immediate();
    ran.push(m.version);
  }
  return ran;
}

/** `%`, `_` and `\` are LIKE wildcards; escape them for substring search. */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * SQLite result codes that mean "the database cannot be used right now" rather than a bad request or
 * a bug: another process holds the lock past busy_timeout (BUSY, LOCKED), the disk or file system
 * fails (IOERR_*, FULL, CANTOPEN, PROTOCOL). src/store/open.ts maps them to 503 STORE_UNAVAILABLE.
 */
const UNAVAILABLE_CODE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|PROTOCOL)(_|$)/;

export function isSqliteUnavailable(err: unknown): boolean {
  return err instanceof Database.SqliteError && UNAVAILABLE_CODE.test(err.code);
}

export const bool = (v: unknown): boolean => v === 1 || v === true;
export const json = <T>(v: unknown): T | null => (typeof v === 'string' ? (JSON.parse(v) as T) : null);

/** Distinct pins in ascending order, in chunks that stay below SQLite's bound-parameter limit. */
export function pinChunks(pins: readonly number[]): number[][] {
  const sorted = [...new Set(pins)].sort((x, y) => x - y);
  const out: number[][] = [];
  for (let i = 0; i < sorted.length; i += 500) out.push(sorted.slice(i, i + 500));
  return out;
}
