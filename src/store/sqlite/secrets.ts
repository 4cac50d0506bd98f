/** Secrets the gateway keeps (../ports/secrets.ts): one row per name, written once. */
import type { SecretsPort } from '../ports/index.js';
import type { Db } from './db.js';

export function sqliteSecrets(db: Db): SecretsPort {
  const insert = db.prepare('INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)');
  const read = db.prepare('SELECT value FROM secrets WHERE name = ?').pluck();
  return {
    async getOrCreate(name, make) {
      const stored = read.get(name) as string | undefined;
      if (stored !== undefined) return stored;
      const value = make();
      // The first insert of any process wins; every caller then reads that one row.
      return db
        .transaction(() => {
          insert.run(name, value);
          return read.get(name) as string;
        })
        .immediate();
    },
  };
}
