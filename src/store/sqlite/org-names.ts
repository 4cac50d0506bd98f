/** Department and position names per location (../ports/org-names.ts); (location_id, kind, name) is unique. */
import type { OrgName, OrgNamesPort } from '../ports/index.js';
import type { Db } from './db.js';

export function sqliteOrgNames(db: Db): OrgNamesPort {
  const byName = db.prepare('SELECT * FROM org_names WHERE location_id = ? AND kind = ? AND name = ?');
  // OR IGNORE: a row another process made first stands, and the read after it returns that one.
  const insert = db.prepare('INSERT OR IGNORE INTO org_names (location_id, kind, code, name, created_at) VALUES (?, ?, ?, ?, ?)');
  return {
    async list(locationId, kind, filter, window) {
      const where = ['location_id = ?', 'kind = ?'];
      const args: unknown[] = [locationId, kind];
      for (const key of ['code', 'name'] as const) {
        if (filter[key] === undefined) continue;
        where.push(`${key} = ?`);
        args.push(filter[key]);
      }
      const sql = where.join(' AND ');
      const total = db
        .prepare(`SELECT COUNT(*) FROM org_names WHERE ${sql}`)
        .pluck()
        .get(...args) as number;
      const items = db
        .prepare(`SELECT * FROM org_names WHERE ${sql} ORDER BY id LIMIT ? OFFSET ?`)
        .all(...args, window.limit, window.offset);
      return { items: items as OrgName[], total };
    },
    async get(locationId, kind, id) {
      return db.prepare('SELECT * FROM org_names WHERE location_id = ? AND kind = ? AND id = ?').get(locationId, kind, id) as
        OrgName | undefined;
    },
    async ensure(locationId, kind, name, now, code = name) {
      return db
        .transaction(() => {
          insert.run(locationId, kind, code, name, now);
          return byName.get(locationId, kind, name) as OrgName;
        })
        .immediate();
    },
  };
}
