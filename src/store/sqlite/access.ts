/** Schedules and access levels (../ports/access.ts); a user lists its levels as a JSON array in `users.access_levels`. */
import {
  MAX_SCHEDULES,
  type AccessLevel,
  type AccessLevelsPort,
  type Holiday,
  type HolidaysPort,
  type Schedule,
  type SchedulesPort,
} from '../ports/index.js';
import type { Db } from './db.js';

type Row = Record<string, unknown>;

const toSchedule = (r: Row): Schedule => ({
  id: r['id'] as number,
  location_id: r['location_id'] as number,
  name: r['name'] as string,
  days: JSON.parse(r['days'] as string) as Schedule['days'],
  created_at: r['created_at'] as string,
  updated_at: (r['updated_at'] as string | null) ?? null,
});

const toLevel = (r: Row): AccessLevel => ({
  id: r['id'] as number,
  location_id: r['location_id'] as number,
  name: r['name'] as string,
  schedule_id: r['schedule_id'] as number,
  doors: JSON.parse(r['doors'] as string) as number[],
  area_id: (r['area_id'] as number | null) ?? null,
  created_at: r['created_at'] as string,
  updated_at: (r['updated_at'] as string | null) ?? null,
});

const LISTS_LEVEL = 'EXISTS (SELECT 1 FROM json_each(users.access_levels) WHERE value = ?)';

export function sqliteSchedules(db: Db): SchedulesPort {
  const one = db.prepare('SELECT * FROM schedules WHERE location_id = ? AND id = ?');
  return {
    async list(locationId) {
      return (db.prepare('SELECT * FROM schedules WHERE location_id = ? ORDER BY id').all(locationId) as Row[]).map(toSchedule);
    },
    async get(locationId, id) {
      const r = one.get(locationId, id) as Row | undefined;
      return r && toSchedule(r);
    },
    async create(locationId, name, days, now) {
      // The lowest free number under the write lock: two writers cannot take the same one.
      return db
        .transaction(() => {
          const taken = new Set(db.prepare('SELECT id FROM schedules WHERE location_id = ?').pluck().all(locationId) as number[]);
          let id = 2;
          while (taken.has(id)) id++;
          if (id > MAX_SCHEDULES) return undefined;
          const r = db
            .prepare('INSERT INTO schedules (location_id, id, name, days, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *')
            .get(locationId, id, name, JSON.stringify(days), now) as Row;
          return toSchedule(r);
        })
        .immediate();
    },
    async update(locationId, id, name, days, now) {
      const r = db
        .prepare('UPDATE schedules SET name = ?, days = ?, updated_at = ? WHERE location_id = ? AND id = ? RETURNING *')
        .get(name, JSON.stringify(days), now, locationId, id) as Row | undefined;
      return r && toSchedule(r);
    },
    async delete(locationId, id) {
      return db
        .transaction(() => {
          if (!one.get(locationId, id)) return 'missing' as const;
          if (db.prepare('SELECT 1 FROM access_levels WHERE location_id = ? AND schedule_id = ?').get(locationId, id))
            return 'in_use' as const;
          db.prepare('DELETE FROM schedules WHERE location_id = ? AND id = ?').run(locationId, id);
          return 'deleted' as const;
        })
        .immediate();
    },
  };
}

export function sqliteAccessLevels(db: Db): AccessLevelsPort {
  const one = db.prepare('SELECT * FROM access_levels WHERE location_id = ? AND id = ?');
  return {
    async list(locationId, window) {
      const total = db.prepare('SELECT COUNT(*) FROM access_levels WHERE location_id = ?').pluck().get(locationId) as number;
      const rows = db
        .prepare('SELECT * FROM access_levels WHERE location_id = ? ORDER BY id LIMIT ? OFFSET ?')
        .all(locationId, window.limit, window.offset) as Row[];
      return { items: rows.map(toLevel), total };
    },
    async get(locationId, id) {
      const r = one.get(locationId, id) as Row | undefined;
      return r && toLevel(r);
    },
    async getMany(locationId, ids) {
      if (ids.length === 0) return [];
      return (
        db
          .prepare('SELECT * FROM access_levels WHERE location_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id')
          .all(locationId, JSON.stringify([...new Set(ids)])) as Row[]
      ).map(toLevel);
    },
    async create(locationId, f, now) {
      const r = db
        .prepare(
          'INSERT INTO access_levels (location_id, name, schedule_id, doors, area_id, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *',
        )
        .get(locationId, f.name, f.schedule_id, JSON.stringify(f.doors), f.area_id, now) as Row;
      return toLevel(r);
    },
    async update(locationId, id, f, now) {
      const r = db
        .prepare(
          'UPDATE access_levels SET name = ?, schedule_id = ?, doors = ?, area_id = ?, updated_at = ? WHERE location_id = ? AND id = ? RETURNING *',
        )
        .get(f.name, f.schedule_id, JSON.stringify(f.doors), f.area_id, now, locationId, id) as Row | undefined;
      return r && toLevel(r);
    },
    async delete(locationId, id) {
      return db
        .transaction(() => {
          if (!one.get(locationId, id)) return undefined;
          const pins = db
            .prepare(`SELECT pin FROM users WHERE location_id = ? AND ${LISTS_LEVEL} ORDER BY pin`)
            .pluck()
            .all(locationId, id) as number[];
          db.prepare(
            `UPDATE users SET access_levels = (SELECT json_group_array(value) FROM (SELECT value FROM json_each(users.access_levels) WHERE value != ? ORDER BY value))
             WHERE location_id = ? AND ${LISTS_LEVEL}`,
          ).run(id, locationId, id);
          db.prepare('DELETE FROM access_levels WHERE location_id = ? AND id = ?').run(locationId, id);
          return pins;
        })
        .immediate();
    },
    async usersOf(locationId, ids) {
      if (ids.length === 0) return [];
      return db
        .prepare(
          'SELECT pin FROM users WHERE location_id = ? AND EXISTS (SELECT 1 FROM json_each(users.access_levels) WHERE value IN (SELECT value FROM json_each(?))) ORDER BY pin',
        )
        .pluck()
        .all(locationId, JSON.stringify([...new Set(ids)])) as number[];
    },
  };
}

const toHoliday = (r: Row): Holiday => ({
  id: r['id'] as number,
  location_id: r['location_id'] as number,
  name: r['name'] as string,
  start_date: r['start_date'] as string,
  end_date: r['end_date'] as string,
  type: r['type'] as Holiday['type'],
  recurring: r['recurring'] === 1,
  created_at: r['created_at'] as string,
  updated_at: (r['updated_at'] as string | null) ?? null,
});

export function sqliteHolidays(db: Db): HolidaysPort {
  return {
    async list(locationId) {
      return (db.prepare('SELECT * FROM holidays WHERE location_id = ? ORDER BY start_date, id').all(locationId) as Row[]).map(toHoliday);
    },
    async get(locationId, id) {
      const r = db.prepare('SELECT * FROM holidays WHERE location_id = ? AND id = ?').get(locationId, id) as Row | undefined;
      return r && toHoliday(r);
    },
    async create(locationId, f, now) {
      const r = db
        .prepare(
          'INSERT INTO holidays (location_id, name, start_date, end_date, type, recurring, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
        )
        .get(locationId, f.name, f.start_date, f.end_date, f.type, f.recurring ? 1 : 0, now) as Row;
      return toHoliday(r);
    },
    async update(locationId, id, f, now) {
      const r = db
        .prepare(
          'UPDATE holidays SET name = ?, start_date = ?, end_date = ?, type = ?, recurring = ?, updated_at = ? WHERE location_id = ? AND id = ? RETURNING *',
        )
        .get(f.name, f.start_date, f.end_date, f.type, f.recurring ? 1 : 0, now, locationId, id) as Row | undefined;
      return r && toHoliday(r);
    },
    async delete(locationId, id) {
      return db.prepare('DELETE FROM holidays WHERE location_id = ? AND id = ?').run(locationId, id).changes === 1;
    },
  };
}
