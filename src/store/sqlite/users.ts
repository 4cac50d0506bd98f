import {
  normalAreas,
  OFF_TERMINAL_FIELDS,
  type UpsertResult,
  type User,
  type UserFields,
  type UserPhoto,
  type UsersPort,
} from '../ports/index.js';
import { bool, jsonRowsReader, likePattern, pinChunks, positions, rawReader, type Db } from './db.js';
import { outboxMarker } from './sync-state.js';

/**
 * User reads come back as arrays (better-sqlite3 raw mode, `rawReader`), in this column order:
 * a keyed row object per user would be half of the list's store time.
 */
const USER_COLUMNS = [
  'id',
  'location_id',
  'pin',
  'first_name',
  'last_name',
  'card_no',
  'password',
  'is_active',
  'start_time',
  'end_time',
  'privilege',
  'grp',
  'super_authorize',
  'created_at',
  'updated_at',
  'areas',
  'access_levels',
  'photo',
  'department',
  'position',
] as const;
const at = positions(USER_COLUMNS);
const toUser = (r: unknown[]): User => ({
  id: r[at.id] as number,
  location_id: r[at.location_id] as number,
  pin: r[at.pin] as number,
  first_name: (r[at.first_name] as string | null) ?? null,
  last_name: (r[at.last_name] as string | null) ?? null,
  card_no: (r[at.card_no] as string | null) ?? null,
  password: (r[at.password] as number | null) ?? null,
  is_active: bool(r[at.is_active]),
  start_time: (r[at.start_time] as string | null) ?? null,
  end_time: (r[at.end_time] as string | null) ?? null,
  privilege: r[at.privilege] as number,
  group: r[at.grp] as number,
  super_authorize: r[at.super_authorize] as number,
  created_at: r[at.created_at] as string,
  updated_at: (r[at.updated_at] as string | null) ?? null,
  areas: JSON.parse(r[at.areas] as string) as number[],
  access_levels: JSON.parse(r[at.access_levels] as string) as number[],
  photo: r[at.photo] === null || r[at.photo] === undefined ? null : (JSON.parse(r[at.photo] as string) as UserPhoto),
  department: (r[at.department] as string | null) ?? null,
  position: (r[at.position] as string | null) ?? null,
});

/** API field → column. */
const COLUMNS: Record<keyof UserFields, (typeof USER_COLUMNS)[number]> = {
  first_name: 'first_name',
  last_name: 'last_name',
  card_no: 'card_no',
  password: 'password',
  is_active: 'is_active',
  start_time: 'start_time',
  end_time: 'end_time',
  privilege: 'privilege',
  group: 'grp',
  super_authorize: 'super_authorize',
  areas: 'areas',
  access_levels: 'access_levels',
  department: 'department',
  position: 'position',
};
const toColumn = (v: unknown): unknown =>
  typeof v === 'boolean' ? (v ? 1 : 0) : Array.isArray(v) ? JSON.stringify(normalAreas(v as number[])) : v;

/**
 * An upsert's result and what it owes the outbox: `left`, the areas an update took the user out of
 * (OutboxEntry.areas); `synced`, created or a field a terminal holds changed (OFF_TERMINAL_FIELDS alone owe nothing).
 */
type Upserted = UpsertResult & { left?: number[] };

export function sqliteUsers(db: Db): UsersPort {
  const q = rawReader(db, USER_COLUMNS);
  /** Pages and batches of users (many rows): see jsonRowsReader. */
  const many = jsonRowsReader(db, USER_COLUMNS);
  const get = q('SELECT * FROM users WHERE location_id = ? AND pin = ?');
  const insert = q(
    `INSERT INTO users (location_id, pin, first_name, last_name, card_no, password, is_active, start_time, end_time, privilege, grp, super_authorize, areas, access_levels, department, position, created_at)
     VALUES (@location_id, @pin, @first_name, @last_name, @card_no, @password, @is_active, @start_time, @end_time, @privilege, @grp, @super_authorize, @areas, @access_levels, @department, @position, @created_at) RETURNING *`,
  );

  const counted = db.prepare('SELECT users FROM location_counts WHERE location_id = ?').pluck();
  const countOf = (locationId: number): number => (counted.get(locationId) as number | undefined) ?? 0;
  const mark = outboxMarker(db);
  /** Every changed user a terminal holds differently marks the sync outbox in the same transaction as the change. */
  const marked = ({ left, ...r }: Upserted, now: string): UpsertResult => {
    if (r.synced) mark(r.user.location_id, r.user.pin, now, left);
    return r;
  };

  const upsertOne = (locationId: number, pin: number, fields: UserFields, now: string): Upserted => {
    const existing = get.get(locationId, pin);
    if (!existing) {
      const r = insert.get({
        location_id: locationId,
        pin,
        first_name: fields.first_name ?? null,
        last_name: fields.last_name ?? null,
        card_no: fields.card_no ?? null,
        password: fields.password ?? null,
        is_active: fields.is_active === false ? 0 : 1,
        start_time: fields.start_time ?? null,
        end_time: fields.end_time ?? null,
        privilege: fields.privilege ?? 0,
        grp: fields.group ?? 0,
        super_authorize: fields.super_authorize ?? 0,
        areas: JSON.stringify(normalAreas(fields.areas ?? [])),
        access_levels: JSON.stringify(normalAreas(fields.access_levels ?? [])),
        department: fields.department ?? null,
        position: fields.position ?? null,
        created_at: now,
      }) as unknown[];
      return { user: toUser(r), created: true, changed: true, synced: true };
    }
    const sets: string[] = [];
    const args: unknown[] = [];
    let synced = false;
    for (const [key, col] of Object.entries(COLUMNS) as [keyof UserFields, (typeof USER_COLUMNS)[number]][]) {
      if (!(key in fields) || fields[key] === undefined) continue;
      const value = toColumn(fields[key]);
      if (existing[at[col]] === value) continue;
      sets.push(`${col} = ?`);
      args.push(value);
      synced ||= !OFF_TERMINAL_FIELDS.has(key);
    }
    if (sets.length === 0) return { user: toUser(existing), created: false, changed: false, synced: false };
    const r = q(`UPDATE users SET ${sets.join(', ')}, updated_at = ? WHERE id = ? RETURNING *`).get(
      ...args,
      now,
      existing[at.id],
    ) as unknown[];
    const user = toUser(r);
    const left = (JSON.parse(existing[at.areas] as string) as number[]).filter((a) => !user.areas.includes(a));
    return { user, created: false, changed: true, synced, ...(left.length > 0 ? { left } : {}) };
  };

  return {
    async upsert(locationId, pin, fields, now) {
      return db.transaction(() => marked(upsertOne(locationId, pin, fields, now), now)).immediate();
    },
    async upsertMany(locationId, items, now) {
      // One SQLite transaction for speed; each item is still a self-contained upsert.
      return db.transaction(() => items.map((i) => marked(upsertOne(locationId, i.pin, i.fields, now), now))).immediate();
    },
    async get(locationId, pin) {
      const r = get.get(locationId, pin);
      return r && toUser(r);
    },
    async getMany(locationId, pins) {
      const out: User[] = [];
      for (const chunk of pinChunks(pins)) {
        const rows = many(`SELECT * FROM users WHERE location_id = ? AND pin IN (${chunk.map(() => '?').join(',')}) ORDER BY pin`)(
          locationId,
          ...chunk,
        );
        out.push(...rows.map(toUser));
      }
      return out;
    },
    async getById(locationId, id) {
      const r = q('SELECT * FROM users WHERE location_id = ? AND id = ?').get(locationId, id);
      return r && toUser(r);
    },
    async list(locationId, filter, window) {
      const where = ['location_id = ?'];
      const args: unknown[] = [locationId];
      if (filter.search) {
        const p = likePattern(filter.search);
        where.push(
          "(lower(coalesce(first_name, '')) LIKE ? ESCAPE '\\' OR lower(coalesce(last_name, '')) LIKE ? ESCAPE '\\' OR CAST(pin AS TEXT) LIKE ? ESCAPE '\\')",
        );
        args.push(p, p, p);
      }
      if (filter.privilege !== undefined) {
        where.push('privilege = ?');
        args.push(filter.privilege);
      }
      if (filter.is_active !== undefined) {
        where.push('is_active = ?');
        args.push(filter.is_active ? 1 : 0);
      }
      for (const key of ['department', 'position'] as const) {
        if (filter[key] === undefined) continue;
        where.push(`${key} = ?`);
        args.push(filter[key]);
      }
      for (const key of ['first_name', 'last_name'] as const) {
        if (filter[key] === undefined) continue;
        where.push(`lower(${key}) = lower(?)`);
        args.push(filter[key]);
      }
      if (filter.area !== undefined) {
        where.push('EXISTS (SELECT 1 FROM json_each(users.areas) WHERE value = ?)');
        args.push(filter.area);
      }
      if (filter.pins !== undefined) {
        // json_each keeps this one statement whatever the number of pins (no bound-parameter limit)
        where.push('pin IN (SELECT value FROM json_each(?))');
        args.push(JSON.stringify(filter.pins));
      }
      const sqlWhere = where.join(' AND ');
      // Unfiltered, the total is the location's maintained count (migration 11), not a count of its users.
      const total =
        where.length === 1
          ? countOf(locationId)
          : (db.prepare(`SELECT COUNT(*) AS n FROM users WHERE ${sqlWhere}`).get(...args) as { n: number }).n;
      // Served by the (location_id, pin) unique index in pin order (test/perf/users-list-plan.test.ts).
      const rows = many(`SELECT * FROM users WHERE ${sqlWhere} ORDER BY pin LIMIT ? OFFSET ?`)(...args, window.limit, window.offset);
      return { items: rows.map(toUser), total };
    },
    async count(locationId) {
      return countOf(locationId);
    },
    async delete(locationId, pin, now = new Date().toISOString()) {
      return db
        .transaction(() => {
          const r = q('DELETE FROM users WHERE location_id = ? AND pin = ? RETURNING *').get(locationId, pin);
          if (r) db.prepare('DELETE FROM templates WHERE location_id = ? AND user_pin = ?').run(locationId, pin);
          if (r) mark(locationId, pin, now);
          return r && toUser(r);
        })
        .immediate();
    },
    async deactivate(locationId, pins, now) {
      return db
        .transaction(() => {
          const out: User[] = [];
          if (pins === null) {
            out.push(
              ...q('UPDATE users SET is_active = 0, updated_at = ? WHERE location_id = ? AND is_active = 1 RETURNING *')
                .all(now, locationId)
                .map(toUser),
            );
          } else {
            const stmt = q(
              'UPDATE users SET is_active = 0, updated_at = ? WHERE location_id = ? AND pin = ? AND is_active = 1 RETURNING *',
            );
            for (const pin of pins) {
              const r = stmt.get(now, locationId, pin);
              if (r) out.push(toUser(r));
            }
          }
          for (const u of out) mark(locationId, u.pin, now);
          return out;
        })
        .immediate();
    },
    async activePins(locationId, areaId = null) {
      if (areaId === null)
        return db.prepare('SELECT pin FROM users WHERE location_id = ? AND is_active = 1 ORDER BY pin').pluck().all(locationId) as number[];
      return db
        .prepare(
          'SELECT pin FROM users WHERE location_id = ? AND is_active = 1 AND EXISTS (SELECT 1 FROM json_each(users.areas) WHERE value = ?) ORDER BY pin',
        )
        .pluck()
        .all(locationId, areaId) as number[];
    },
    async setPhoto(locationId, pin, photo) {
      const r = q('UPDATE users SET photo = ? WHERE location_id = ? AND pin = ? RETURNING *').get(
        photo === null ? null : JSON.stringify(photo),
        locationId,
        pin,
      );
      return r && toUser(r);
    },
    async withAccessWindow(locationId) {
      return q(
        'SELECT * FROM users WHERE location_id = ? AND is_active = 1 AND (start_time IS NOT NULL OR end_time IS NOT NULL) ORDER BY pin',
      )
        .all(locationId)
        .map(toUser);
    },
  };
}
