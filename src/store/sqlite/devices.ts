import {
  DEVICE_SESSION_FIELDS,
  type Device,
  type DeviceBrief,
  type DevicesPort,
  type DeviceState,
  type DoorSetting,
} from '../ports/index.js';
import { json, likePattern, type Db } from './db.js';

type Row = Record<string, unknown>;

const toDevice = (r: Row): Device => ({
  id: r['id'] as number,
  serial_number: r['serial_number'] as string,
  name: r['name'] as string,
  location_id: (r['location_id'] as number | null) ?? null,
  area_id: (r['area_id'] as number | null) ?? null,
  doors: json<Record<string, DoorSetting>>(r['door_settings']) ?? {},
  registry_code: (r['registry_code'] as string | null) ?? null,
  session_id: (r['session_id'] as string | null) ?? null,
  registered_at: (r['registered_at'] as string | null) ?? null,
  options: json<Record<string, string>>(r['options']),
  version: (r['version'] as Device['version']) ?? null,
  version_override: (r['version_override'] as Device['version']) ?? null,
  comm_key_hash: (r['comm_key_hash'] as string | null) ?? null,
  allowed_networks: json<string[]>(r['allowed_networks']),
  token_bound_at: (r['token_bound_at'] as string | null) ?? null,
  token_bound_address: (r['token_bound_address'] as string | null) ?? null,
  registration_accepted_at: (r['registration_accepted_at'] as string | null) ?? null,
  state: json<DeviceState>(r['state']),
  last_seen: (r['last_seen'] as string | null) ?? null,
  last_address: (r['last_address'] as string | null) ?? null,
  assigned_at: (r['assigned_at'] as string | null) ?? null,
  created_at: r['created_at'] as string,
  updated_at: (r['updated_at'] as string | null) ?? null,
});

const SESSION_COLUMNS = DEVICE_SESSION_FIELDS;
const JSON_COLUMNS = new Set<string>(['options', 'state']);

const networks = (list: readonly string[] | null | undefined): string | null => (list ? JSON.stringify(list) : null);

export function sqliteDevices(db: Db): DevicesPort {
  const bySerial = db.prepare('SELECT * FROM devices WHERE serial_number = ?');
  const briefOf = db.prepare('SELECT serial_number, location_id, last_seen, assigned_at, area_id FROM devices WHERE serial_number = ?');
  const defaultName = (sn: string) => `Device ${sn}`;
  return {
    async getBySerial(sn) {
      const r = bySerial.get(sn) as Row | undefined;
      return r && toDevice(r);
    },
    async briefBySerial(sn) {
      return briefOf.get(sn) as DeviceBrief | undefined;
    },
    async get(locationId, sn) {
      const r = db.prepare('SELECT * FROM devices WHERE serial_number = ? AND location_id = ?').get(sn, locationId) as Row | undefined;
      return r && toDevice(r);
    },
    async list(locationId, filter, window) {
      const where = ['location_id = ?'];
      const args: unknown[] = [locationId];
      if (filter.search) {
        const p = likePattern(filter.search);
        where.push("(lower(name) LIKE ? ESCAPE '\\' OR lower(serial_number) LIKE ? ESCAPE '\\')");
        args.push(p, p);
      }
      if (filter.online) {
        if (filter.online.value) {
          where.push('last_seen >= ?');
          args.push(filter.online.since);
        } else {
          where.push('(last_seen IS NULL OR last_seen < ?)');
          args.push(filter.online.since);
        }
      }
      const w = where.join(' AND ');
      const total = (db.prepare(`SELECT COUNT(*) AS n FROM devices WHERE ${w}`).get(...args) as { n: number }).n;
      const rows = db
        .prepare(`SELECT * FROM devices WHERE ${w} ORDER BY serial_number LIMIT ? OFFSET ?`)
        .all(...args, window.limit, window.offset) as Row[];
      return { items: rows.map(toDevice), total };
    },
    async listAssigned(locationId) {
      return (db.prepare('SELECT * FROM devices WHERE location_id = ? ORDER BY serial_number').all(locationId) as Row[]).map(toDevice);
    },
    async listAssignedBrief(locationId) {
      // devices_location (location_id, serial_number) serves both.
      const sql =
        locationId === null
          ? 'SELECT serial_number, location_id, last_seen, assigned_at, area_id FROM devices WHERE location_id IS NOT NULL ORDER BY serial_number'
          : 'SELECT serial_number, location_id, last_seen, assigned_at, area_id FROM devices WHERE location_id = ? ORDER BY serial_number';
      return db.prepare(sql).all(...(locationId === null ? [] : [locationId])) as DeviceBrief[];
    },
    async count(locationId) {
      // Kept by triggers (migration 11).
      return (
        (db.prepare('SELECT devices FROM location_counts WHERE location_id = ?').get(locationId) as { devices: number } | undefined)
          ?.devices ?? 0
      );
    },
    async countUnassigned() {
      return (db.prepare('SELECT COUNT(*) AS n FROM devices WHERE location_id IS NULL').get() as { n: number }).n;
    },
    async listUnassigned(window) {
      const total = (db.prepare('SELECT COUNT(*) AS n FROM devices WHERE location_id IS NULL').get() as { n: number }).n;
      const rows = db
        .prepare('SELECT * FROM devices WHERE location_id IS NULL ORDER BY serial_number LIMIT ? OFFSET ?')
        .all(window.limit, window.offset) as Row[];
      return { items: rows.map(toDevice), total };
    },
    async ensure(sn, now) {
      db.prepare('INSERT INTO devices (serial_number, name, created_at) VALUES (?, ?, ?) ON CONFLICT(serial_number) DO NOTHING').run(
        sn,
        defaultName(sn),
        now,
      );
      return toDevice(bySerial.get(sn) as Row);
    },
    async claimFirstContact(sn, now) {
      return (
        db.prepare('UPDATE devices SET first_contact_at = ? WHERE serial_number = ? AND first_contact_at IS NULL').run(now, sn).changes ===
        1
      );
    },
    async assign(locationId, sn, input, now, feedEvent) {
      return db
        .transaction(() => {
          const existing = bySerial.get(sn) as Row | undefined;
          if (!existing) {
            const r = db
              .prepare(
                'INSERT INTO devices (serial_number, name, location_id, version_override, comm_key_hash, allowed_networks, area_id, assigned_at, created_at, feed_event, feed_location) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *',
              )
              .get(
                sn,
                input.name ?? defaultName(sn),
                locationId,
                input.version_override ?? null,
                input.comm_key_hash ?? null,
                networks(input.allowed_networks),
                input.area_id ?? null,
                now,
                now,
                feedEvent ?? null,
                feedEvent === undefined ? null : locationId,
              ) as Row;
            return { outcome: 'assigned' as const, device: toDevice(r) };
          }
          const owner = existing['location_id'] as number | null;
          if (owner !== null && owner !== locationId) return { outcome: 'other-location' as const, device: toDevice(existing) };
          const sets = ['location_id = ?', 'updated_at = ?'];
          const args: unknown[] = [locationId, now];
          if (input.name !== null) {
            sets.push('name = ?');
            args.push(input.name);
          }
          if (input.version_override !== undefined) {
            sets.push('version_override = ?');
            args.push(input.version_override);
          }
          if (input.comm_key_hash !== undefined) {
            sets.push('comm_key_hash = ?');
            args.push(input.comm_key_hash);
          }
          if (input.allowed_networks !== undefined) {
            sets.push('allowed_networks = ?');
            args.push(networks(input.allowed_networks));
          }
          if (input.area_id !== undefined) {
            sets.push('area_id = ?');
            args.push(input.area_id);
          }
          if (owner === null) {
            sets.push('assigned_at = ?');
            args.push(now);
          }
          if (feedEvent !== undefined) {
            sets.push('feed_event = ?', 'feed_location = ?');
            args.push(feedEvent, locationId);
          }
          const r = db.prepare(`UPDATE devices SET ${sets.join(', ')} WHERE id = ? RETURNING *`).get(...args, existing['id']) as Row;
          return { outcome: owner === null ? ('assigned' as const) : ('already' as const), device: toDevice(r) };
        })
        .immediate();
    },
    async seenIn(locationId, sn) {
      return db.prepare('SELECT 1 FROM device_locations WHERE location_id = ? AND serial_number = ?').get(locationId, sn) !== undefined;
    },
    async deleteUnassigned(sn) {
      return db
        .transaction(() => {
          const r = bySerial.get(sn) as Row | undefined;
          if (!r) return 'missing' as const;
          if (r['location_id'] !== null) return 'assigned' as const;
          db.prepare('DELETE FROM devices WHERE id = ? AND location_id IS NULL').run(r['id']);
          return 'deleted' as const;
        })
        .immediate();
    },
    async evictUnassigned(before, limit) {
      return db
        .prepare(
          'DELETE FROM devices WHERE id IN (SELECT id FROM devices WHERE location_id IS NULL AND COALESCE(last_seen, created_at) < ? LIMIT ?)',
        )
        .run(before, limit).changes;
    },
    async unassign(locationId, sn, now, feedEvent) {
      // One write transaction: the CLI and the server share the file, and only the caller that
      // actually unassigned may get the device back (idempotent: the next one gets undefined).
      return db
        .transaction(() => {
          const before = db.prepare('SELECT * FROM devices WHERE serial_number = ? AND location_id = ?').get(sn, locationId) as
            Row | undefined;
          if (!before) return undefined;
          const marker = feedEvent === undefined ? '' : ', feed_event = ?, feed_location = ?';
          db.prepare(
            `UPDATE devices SET location_id = NULL, area_id = NULL, door_settings = NULL, assigned_at = NULL, comm_key_hash = NULL, allowed_networks = NULL, updated_at = ?${marker} WHERE id = ?`,
          ).run(now, ...(feedEvent === undefined ? [] : [feedEvent, locationId]), before['id']);
          return toDevice(before);
        })
        .immediate();
    },
    async update(locationId, sn, patch, now, feedEvent) {
      return db
        .transaction(() => {
          const before = db.prepare('SELECT * FROM devices WHERE serial_number = ? AND location_id = ?').get(sn, locationId) as
            Row | undefined;
          if (!before) return undefined;
          const r = db
            .prepare(
              'UPDATE devices SET name = ?, area_id = ?, door_settings = ?, updated_at = ?, feed_event = COALESCE(?, feed_event), feed_location = COALESCE(?, feed_location) WHERE id = ? RETURNING *',
            )
            .get(
              patch.name ?? before['name'],
              patch.area_id === undefined ? before['area_id'] : patch.area_id,
              patch.doors === undefined ? before['door_settings'] : JSON.stringify(patch.doors),
              now,
              feedEvent ?? null,
              feedEvent === undefined ? null : locationId,
              before['id'],
            ) as Row;
          return { before: toDevice(before), after: toDevice(r) };
        })
        .immediate();
    },
    async resetRegistration(locationId, sn, now, feedEvent) {
      const r = db
        .prepare(
          'UPDATE devices SET registry_code = NULL, session_id = NULL, token_bound_at = NULL, token_bound_address = NULL, registration_accepted_at = ?, updated_at = ?, feed_event = COALESCE(?, feed_event), feed_location = COALESCE(?, feed_location) WHERE serial_number = ? AND location_id = ? RETURNING *',
        )
        .get(now, now, feedEvent ?? null, feedEvent === undefined ? null : locationId, sn, locationId) as Row | undefined;
      return r && toDevice(r);
    },
    async unannounced(limit) {
      const rows = db.prepare('SELECT * FROM devices WHERE feed_event IS NOT NULL ORDER BY feed_event, id LIMIT ?').all(limit) as Row[];
      return rows.map((r) => ({ marker: r['feed_event'] as string, location_id: r['feed_location'] as number, record: toDevice(r) }));
    },
    async updateSession(sn, patch, now, marked) {
      const sets: string[] = [];
      const args: unknown[] = [];
      for (const col of SESSION_COLUMNS) {
        if (!(col in patch)) continue;
        const v = patch[col];
        sets.push(`${col} = ?`);
        args.push(JSON_COLUMNS.has(col) && v !== null && v !== undefined ? JSON.stringify(v) : (v ?? null));
      }
      if (sets.length === 0) return this.getBySerial(sn);
      if (marked) {
        sets.push('feed_event = ?', 'feed_location = ?');
        args.push(marked.feedEvent, marked.locationId);
      }
      const r = db
        .prepare(`UPDATE devices SET ${sets.join(', ')}, updated_at = ? WHERE serial_number = ? RETURNING *`)
        .get(...args, now, sn) as Row | undefined;
      return r && toDevice(r);
    },
    async touchMany(entries) {
      const stmt = db.prepare(
        'UPDATE devices SET last_seen = ?, last_address = ? WHERE serial_number = ? AND (last_seen IS NULL OR last_seen < ?)',
      );
      db.transaction(() => {
        for (const e of entries) stmt.run(e.last_seen, e.last_address, e.sn, e.last_seen);
      }).immediate();
    },
  };
}
