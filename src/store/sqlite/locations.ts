import type { Location, LocationsPort, Token, TokensPort } from '../ports/index.js';
import { bool, type Db } from './db.js';

type Row = Record<string, unknown>;

const toLocation = (r: Row): Location => ({
  id: r['id'] as number,
  name: r['name'] as string,
  timezone: r['timezone'] as string,
  is_active: bool(r['is_active']),
  require_comm_key: bool(r['require_comm_key']),
  attendance_debounce_s: r['attendance_debounce_s'] as number,
  day_start_hour: r['day_start_hour'] as number,
  attendance_photos: bool(r['attendance_photos']),
  attendance_photo_retention_days: r['attendance_photo_retention_days'] as number,
  scenario: r['scenario'] ? (JSON.parse(r['scenario'] as string) as Location['scenario']) : null,
  created_at: r['created_at'] as string,
  updated_at: (r['updated_at'] as string | null) ?? null,
});

export function sqliteLocations(db: Db): LocationsPort {
  const get = db.prepare('SELECT * FROM locations WHERE id = ?');
  const insert = db.prepare(
    'INSERT INTO locations (name, timezone, is_active, require_comm_key, created_at) VALUES (?, ?, 1, ?, ?) RETURNING *',
  );
  // Kept by triggers (migration 11); a location without a row has neither.
  const counted = db.prepare('SELECT users, devices FROM location_counts WHERE location_id = ?');
  const mark = db.prepare("INSERT OR IGNORE INTO markers (name, node, created_at) VALUES ('bootstrap', ?, ?)");
  return {
    async claimBootstrap(node, now) {
      // The primary key lets one insert through, however many processes share the file.
      return mark.run(node, now).changes === 1;
    },
    async create(input, now) {
      return toLocation(insert.get(input.name, input.timezone, input.require_comm_key ? 1 : 0, now) as Row);
    },
    async get(id) {
      const r = get.get(id) as Row | undefined;
      return r && toLocation(r);
    },
    async list() {
      return (db.prepare('SELECT * FROM locations ORDER BY id').all() as Row[]).map(toLocation);
    },
    async count() {
      return (db.prepare('SELECT COUNT(*) AS n FROM locations').get() as { n: number }).n;
    },
    async counts(id) {
      const r = counted.get(id) as { users: number; devices: number } | undefined;
      return { users: r?.users ?? 0, devices: r?.devices ?? 0 };
    },
    // Triggers keep location_counts in the writes' own transactions: nothing drifts.
    reconcileCounts: async () => 0,
    async update(id, patch, now) {
      const sets: string[] = [];
      const args: unknown[] = [];
      if (patch.name !== undefined) {
        sets.push('name = ?');
        args.push(patch.name);
      }
      if (patch.timezone !== undefined) {
        sets.push('timezone = ?');
        args.push(patch.timezone);
      }
      if (patch.is_active !== undefined) {
        sets.push('is_active = ?');
        args.push(patch.is_active ? 1 : 0);
      }
      for (const key of ['require_comm_key', 'attendance_photos'] as const) {
        if (patch[key] === undefined) continue;
        sets.push(`${key} = ?`);
        args.push(patch[key] ? 1 : 0);
      }
      for (const key of ['attendance_debounce_s', 'day_start_hour', 'attendance_photo_retention_days'] as const) {
        if (patch[key] === undefined) continue;
        sets.push(`${key} = ?`);
        args.push(patch[key]);
      }
      if (sets.length === 0) return this.get(id);
      const r = db.prepare(`UPDATE locations SET ${sets.join(', ')}, updated_at = ? WHERE id = ? RETURNING *`).get(...args, now, id) as
        Row | undefined;
      return r && toLocation(r);
    },
    async setScenario(id, expected, scenario, now) {
      const r = db
        .prepare(
          `UPDATE locations SET scenario = ?, updated_at = ? WHERE id = ?
             AND (CASE WHEN scenario IS NULL THEN '' ELSE json_extract(scenario, '$.name') END) = ? RETURNING *`,
        )
        .get(scenario === null ? null : JSON.stringify(scenario), now, id, expected ?? '') as Row | undefined;
      return r && toLocation(r);
    },
  };
}

const toToken = (r: Row): Token => ({
  id: r['id'] as number,
  location_id: r['location_id'] as number,
  hash: r['hash'] as string,
  scope: r['scope'] as Token['scope'],
  label: (r['label'] as string | null) ?? null,
  expires_at: (r['expires_at'] as string | null) ?? null,
  revoked_at: (r['revoked_at'] as string | null) ?? null,
  created_at: r['created_at'] as string,
});

export function sqliteTokens(db: Db): TokensPort {
  const byHash = db.prepare('SELECT * FROM tokens WHERE hash = ?');
  const byId = db.prepare('SELECT * FROM tokens WHERE id = ?');
  return {
    async create(input, now) {
      const r = db
        .prepare('INSERT INTO tokens (location_id, hash, scope, label, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *')
        .get(input.location_id, input.hash, input.scope, input.label, input.expires_at, now) as Row;
      return toToken(r);
    },
    async findByHash(hash) {
      const r = byHash.get(hash) as Row | undefined;
      return r && toToken(r);
    },
    async get(id) {
      const r = byId.get(id) as Row | undefined;
      return r && toToken(r);
    },
    async list(locationId) {
      const rows =
        locationId === undefined
          ? db.prepare('SELECT * FROM tokens ORDER BY id').all()
          : db.prepare('SELECT * FROM tokens WHERE location_id = ? ORDER BY id').all(locationId);
      return (rows as Row[]).map(toToken);
    },
    async revoke(id, now) {
      db.prepare('UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(now, id);
      const r = byId.get(id) as Row | undefined;
      return r && toToken(r);
    },
  };
}
