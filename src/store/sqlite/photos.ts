/**
 * Photo bytes beside the SQLite database (issue #35 item 4): `<database>.photos/<location>/<kind>/<key>.jpg`,
 * each written to a temporary name and renamed into place (a reader sees the old or the new file, whole),
 * private to the owner like the database. The `photos` table keeps each file's size and age, for the
 * quota and the retention of punch photos; a row exists only while its file does (the file is written
 * before the row, the row deleted before the file). An in-memory database keeps its photos in a
 * temporary directory, removed at close.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, rename, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PhotoKind, PhotosPort } from '../ports/index.js';
import type { Db } from './db.js';

/** Keys are BioGate's own (PINs, record ids): a key that could leave its folder is a bug, refused. */
const KEY = /^[0-9A-Za-z_-]{1,64}$/;

export interface SqlitePhotos extends PhotosPort {
  /** The folder the files are in (backups copy it). */
  readonly dir: string;
  /** Removes a temporary folder (in-memory databases). */
  close(): void;
}

/** The photo folder of a database file. */
export const photoDirOf = (databasePath: string): string => `${databasePath}.photos`;

export function sqlitePhotos(db: Db, databasePath: string): SqlitePhotos {
  const temporary = databasePath === ':memory:';
  // Made with the first photo (`put`), so a store without photos has nothing beside it.
  const dir = temporary ? mkdtempSync(join(tmpdir(), 'biogate-photos-')) : photoDirOf(databasePath);
  const fileOf = (locationId: number, kind: PhotoKind, key: string): string => {
    if (!Number.isSafeInteger(locationId) || !KEY.test(key)) throw new Error(`invalid photo key ${locationId}/${kind}/${key}`);
    return join(dir, String(locationId), kind, `${key}.jpg`);
  };
  const upsert = db.prepare(
    `INSERT INTO photos (location_id, kind, key, size, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (location_id, kind, key) DO UPDATE SET size = excluded.size, created_at = excluded.created_at`,
  );
  const remove = db.prepare('DELETE FROM photos WHERE location_id = ? AND kind = ? AND key = ?');
  const unlink = (file: string) => rm(file, { force: true });
  return {
    dir,
    async put(locationId, kind, key, bytes, now) {
      const file = fileOf(locationId, kind, key);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await mkdir(join(dir, String(locationId), kind), { recursive: true, mode: 0o700 });
      const partial = `${file}.partial-${randomBytes(6).toString('hex')}`;
      try {
        await writeFile(partial, bytes, { mode: 0o600 });
        await rename(partial, file);
      } catch (err) {
        await unlink(partial);
        throw err;
      }
      upsert.run(locationId, kind, key, bytes.byteLength, now);
    },
    async get(locationId, kind, key) {
      try {
        return await readFile(fileOf(locationId, kind, key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async delete(locationId, kind, key) {
      const file = fileOf(locationId, kind, key);
      const gone = remove.run(locationId, kind, key).changes > 0;
      await unlink(file);
      return gone;
    },
    async bytes(locationId) {
      return (db.prepare('SELECT COALESCE(SUM(size), 0) FROM photos WHERE location_id = ?').pluck().get(locationId) as number) ?? 0;
    },
    async expire(locationId, kind, before, limit) {
      const keys = db
        .prepare('SELECT key FROM photos WHERE location_id = ? AND kind = ? AND created_at < ? ORDER BY created_at LIMIT ?')
        .pluck()
        .all(locationId, kind, before, limit) as string[];
      for (const key of keys) {
        remove.run(locationId, kind, key);
        await unlink(fileOf(locationId, kind, key));
      }
      return keys.length;
    },
    close() {
      if (temporary) rmSync(dir, { recursive: true, force: true });
    },
  };
}
