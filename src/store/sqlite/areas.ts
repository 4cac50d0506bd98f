/** Areas of a location (../ports/areas.ts); users list theirs as a JSON array in `users.areas`. */
import type { Area, AreasPort, CountedArea } from '../ports/index.js';
import type { Db } from './db.js';

type Row = Area & Record<string, unknown>;

export function sqliteAreas(db: Db): AreasPort {
  const counted = (a: Row | undefined): CountedArea | undefined => {
    if (!a) return undefined;
    const devices = db
      .prepare('SELECT COUNT(*) FROM devices WHERE location_id = ? AND area_id = ?')
      .pluck()
      .get(a.location_id, a.id) as number;
    const users = db
      .prepare('SELECT COUNT(*) FROM users WHERE location_id = ? AND EXISTS (SELECT 1 FROM json_each(users.areas) WHERE value = ?)')
      .pluck()
      .get(a.location_id, a.id) as number;
    return {
      id: a.id,
      location_id: a.location_id,
      name: a.name,
      created_at: a.created_at,
      updated_at: a.updated_at ?? null,
      devices_count: devices,
      users_count: users,
    };
  };
  const byId = db.prepare('SELECT * FROM areas WHERE location_id = ? AND id = ?');
  return {
    async create(locationId, name, now) {
      const r = db
        .prepare('INSERT INTO areas (location_id, name, created_at) VALUES (?, ?, ?) RETURNING *')
        .get(locationId, name, now) as Row;
      return counted(r) as CountedArea;
    },
    async get(locationId, id) {
      return counted(byId.get(locationId, id) as Row | undefined);
    },
    async list(locationId, window) {
      const total = db.prepare('SELECT COUNT(*) FROM areas WHERE location_id = ?').pluck().get(locationId) as number;
      const rows = db
        .prepare('SELECT * FROM areas WHERE location_id = ? ORDER BY id LIMIT ? OFFSET ?')
        .all(locationId, window.limit, window.offset) as Row[];
      return { items: rows.map((r) => counted(r) as CountedArea), total };
    },
    async rename(locationId, id, name, now) {
      const r = db
        .prepare('UPDATE areas SET name = ?, updated_at = ? WHERE location_id = ? AND id = ? RETURNING *')
        .get(name, now, locationId, id);
      return counted(r as Row | undefined);
    },
    async delete(locationId, id) {
      // One write transaction: a terminal put in the area meanwhile (another process on the file) keeps it.
      return db
        .transaction(() => {
          if (!byId.get(locationId, id)) return 'missing' as const;
          if (db.prepare('SELECT 1 FROM devices WHERE location_id = ? AND area_id = ?').get(locationId, id)) return 'in_use' as const;
          db.prepare(
            `UPDATE users SET areas = (SELECT json_group_array(value) FROM (SELECT value FROM json_each(users.areas) WHERE value != ? ORDER BY value))
             WHERE location_id = ? AND EXISTS (SELECT 1 FROM json_each(users.areas) WHERE value = ?)`,
          ).run(id, locationId, id);
          db.prepare('DELETE FROM areas WHERE location_id = ? AND id = ?').run(locationId, id);
          return 'deleted' as const;
        })
        .immediate();
    },
    async names(locationId) {
      const rows = db.prepare('SELECT id, name FROM areas WHERE location_id = ?').all(locationId) as { id: number; name: string }[];
      return new Map(rows.map((r) => [r.id, r.name]));
    },
    async existing(locationId, ids) {
      if (ids.length === 0) return [];
      return db
        .prepare('SELECT id FROM areas WHERE location_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id')
        .pluck()
        .all(locationId, JSON.stringify([...new Set(ids)])) as number[];
    },
  };
}
