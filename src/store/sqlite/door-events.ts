/** Door and alarm events [PUSH-v3 §7]: one row per rtlog / rtstate record, deduplicated per (location, sn). */
import type { DoorEventType, DoorEventsPort, StoredDoorEvent } from '../ports/index.js';
import type { Db } from './db.js';

type Row = Record<string, unknown>;

const toDoorEvent = (r: Row): StoredDoorEvent => ({
  id: r['id'] as number,
  location_id: r['location_id'] as number,
  sn: r['sn'] as string,
  type: r['type'] as DoorEventType,
  event: (r['event'] as number | null) ?? null,
  door: (r['door'] as number | null) ?? null,
  pin: (r['pin'] as string | null) ?? null,
  card_no: (r['card_no'] as string | null) ?? null,
  verify_type: (r['verify_type'] as string | null) ?? null,
  in_out: (r['in_out'] as number | null) ?? null,
  device_index: (r['device_index'] as number | null) ?? null,
  local_time: r['local_time'] as string,
  timestamp: r['timestamp'] as string,
  state: r['state'] ? (JSON.parse(r['state'] as string) as StoredDoorEvent['state']) : null,
  extra: r['extra'] ? (JSON.parse(r['extra'] as string) as Record<string, string>) : null,
  created_at: r['created_at'] as string,
});

export function sqliteDoorEvents(db: Db): DoorEventsPort {
  const insert = db.prepare(
    `INSERT INTO door_events (location_id, sn, type, event, door, pin, card_no, verify_type, in_out, device_index, local_time, timestamp, state, extra, dedup_key, created_at, feed_event)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (location_id, sn, dedup_key) DO NOTHING RETURNING *`,
  );
  return {
    async append(events, now, feedEvent) {
      return db
        .transaction(() => {
          const out: StoredDoorEvent[] = [];
          for (const e of events) {
            const r = insert.get(
              e.location_id,
              e.sn,
              e.type,
              e.event,
              e.door,
              e.pin,
              e.card_no,
              e.verify_type,
              e.in_out,
              e.device_index,
              e.local_time,
              e.timestamp,
              e.state ? JSON.stringify(e.state) : null,
              e.extra && Object.keys(e.extra).length > 0 ? JSON.stringify(e.extra) : null,
              e.dedup_key,
              now,
              feedEvent ?? null,
            ) as Row | undefined;
            if (r) out.push(toDoorEvent(r));
          }
          return out;
        })
        .immediate();
    },
    async unannounced(limit) {
      const rows = db.prepare('SELECT * FROM door_events WHERE feed_event IS NOT NULL ORDER BY feed_event, id LIMIT ?').all(limit) as Row[];
      return rows.map((r) => ({ marker: r['feed_event'] as string, record: toDoorEvent(r) }));
    },
    async list(locationId, filter, window) {
      const where = ['location_id = ?'];
      const args: unknown[] = [locationId];
      if (filter.from) {
        where.push('timestamp >= ?');
        args.push(filter.from);
      }
      if (filter.to) {
        where.push('timestamp <= ?');
        args.push(filter.to);
      }
      if (filter.sn) {
        where.push('sn = ?');
        args.push(filter.sn);
      }
      if (filter.type) {
        where.push('type = ?');
        args.push(filter.type);
      }
      const w = where.join(' AND ');
      const total = (db.prepare(`SELECT COUNT(*) AS n FROM door_events WHERE ${w}`).get(...args) as { n: number }).n;
      const rows = db
        .prepare(`SELECT * FROM door_events WHERE ${w} ORDER BY timestamp DESC, id DESC LIMIT ? OFFSET ?`)
        .all(...args, window.limit, window.offset) as Row[];
      return { items: rows.map(toDoorEvent), total };
    },
    async trim(locationId, keep, limit) {
      return db
        .prepare(
          'DELETE FROM door_events WHERE id IN (SELECT id FROM door_events WHERE location_id = ? AND id < (SELECT id FROM door_events WHERE location_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?) ORDER BY id LIMIT ?)',
        )
        .run(locationId, locationId, keep - 1, limit).changes;
    },
    async prune(before, limit) {
      return db.prepare('DELETE FROM door_events WHERE id IN (SELECT id FROM door_events WHERE timestamp < ? LIMIT ?)').run(before, limit)
        .changes;
    },
  };
}
