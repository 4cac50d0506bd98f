import type { Attendance, AttendanceCursor, AttendanceFilter, AttendanceOrder, AttendancePort, Unannounced } from '../ports/index.js';
import { storedRecord } from '../attendance-facts.js';
import type { Db } from './db.js';

type Row = Record<string, unknown>;

const toAttendance = (r: Row): Attendance => ({
  id: r['id'] as number,
  location_id: r['location_id'] as number,
  sn: r['sn'] as string,
  pin: r['pin'] as string,
  user_id: (r['user_id'] as number | null) ?? null,
  timestamp: r['timestamp'] as string,
  local_time: r['local_time'] as string,
  status: r['status'] as number,
  verify: r['verify'] as number,
  work_code: (r['work_code'] as string | null) ?? null,
  created_at: r['created_at'] as string,
  source: r['source'] === 'manual' ? 'manual' : 'device',
  reason: (r['reason'] as string | null) ?? null,
  created_by:
    r['created_by_token_id'] === null || r['created_by_token_id'] === undefined
      ? null
      : { token_id: r['created_by_token_id'] as number, label: (r['created_by_label'] as string | null) ?? null },
  voided_at: (r['voided_at'] as string | null) ?? null,
  void_reason: (r['void_reason'] as string | null) ?? null,
});

function where(locationId: number, filter: AttendanceFilter): { w: string; args: unknown[] } {
  const parts = ['location_id = ?'];
  const args: unknown[] = [locationId];
  if (filter.from) {
    parts.push('timestamp >= ?');
    args.push(filter.from);
  }
  if (filter.to) {
    parts.push('timestamp <= ?');
    args.push(filter.to);
  }
  if (filter.pin) {
    parts.push('pin = ?');
    args.push(filter.pin);
  }
  if (filter.sn) {
    parts.push('sn = ?');
    args.push(filter.sn);
  }
  const afterId = filter.after?.id ?? filter.after_id;
  if (afterId !== undefined) {
    parts.push('id > ?');
    args.push(afterId);
  }
  return { w: parts.join(' AND '), args };
}

const SQL_ORDER: Readonly<Record<AttendanceOrder, string>> = {
  newest: 'timestamp DESC, id DESC',
  // One writer and AUTOINCREMENT ids: id order is arrival (commit) order.
  arrival: 'id',
  '-arrival': 'id DESC',
  time: 'timestamp, id',
  '-time': 'timestamp DESC, id DESC',
};

export function sqliteAttendance(db: Db): AttendancePort {
  /**
   * The id the feed starts after. From the first record of a time range, not of the location: ids
   * follow arrival, so a location's older records come first in id order, and a first page would
   * read them all only to skip them. The range's first id comes from attendance_location
   * (location_id, timestamp, id), read once.
   */
  const startAfter = (w: string, args: unknown[], after: AttendanceCursor | null): number => {
    if (after) return after.id;
    if (!w.includes('timestamp')) return 0;
    const first = db.prepare(`SELECT MIN(id) AS id FROM attendance INDEXED BY attendance_location WHERE ${w}`).get(...args) as {
      id: number | null;
    };
    return first.id === null ? Number.MAX_SAFE_INTEGER : first.id - 1;
  };
  // No RETURNING: a stored row is exactly what was inserted plus its id, so the record is built here
  // instead of read back (reading every row back costs a fifth of the upload's store time).
  const insert = db.prepare(
    `INSERT INTO attendance (location_id, sn, pin, user_id, timestamp, local_time, status, verify, work_code, created_at, feed_event,
       source, reason, created_by_token_id, created_by_label)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (location_id, sn, local_time, pin, status, verify) DO NOTHING`,
  );
  // The feed outbox (migration 45): a write's punches owe their event as one range of consecutive ids.
  const owe = db.prepare('INSERT INTO attendance_owed (first_id, last_id, marker, created_at) VALUES (?, ?, ?, ?)');
  const owedRanges = db.prepare('SELECT first_id, last_id, marker FROM attendance_owed ORDER BY first_id LIMIT ?');
  const rowsOf = db.prepare('SELECT * FROM attendance WHERE id BETWEEN ? AND ? ORDER BY id');
  const dropRange = db.prepare('DELETE FROM attendance_owed WHERE first_id = ?');
  // The locations that hold punches, one index probe each (a loose scan of attendance_location).
  const locationsHeld = db.prepare(
    `WITH RECURSIVE held(id) AS (
       SELECT MIN(location_id) FROM attendance
       UNION ALL SELECT (SELECT MIN(location_id) FROM attendance WHERE location_id > held.id) FROM held WHERE held.id IS NOT NULL
     ) SELECT id FROM held WHERE id IS NOT NULL`,
  );
  const pruneOf = db.prepare(
    'DELETE FROM attendance WHERE id IN (SELECT id FROM attendance WHERE location_id = ? AND timestamp < ? LIMIT ?)',
  );
  // Marked row by row before migration 45.
  const markedRows = db.prepare('SELECT * FROM attendance WHERE feed_event IS NOT NULL ORDER BY feed_event, id LIMIT ?');
  return {
    async record(records, now, feedEvent) {
      // One transaction per batch, one prepared insert; a duplicate (location, sn, time, pin, status, verify) changes nothing.
      return db
        .transaction(() => {
          const out: Attendance[] = [];
          for (const n of records) {
            const manual = n.manual;
            const r = insert.run(
              n.location_id,
              n.sn,
              n.pin,
              n.user_id,
              n.timestamp,
              n.local_time,
              n.status,
              n.verify,
              n.work_code,
              now,
              null,
              manual ? 'manual' : 'device',
              manual?.reason ?? null,
              manual?.token_id ?? null,
              manual?.label ?? null,
            );
            if (r.changes === 1) out.push(storedRecord(n, Number(r.lastInsertRowid), now));
          }
          const first = out[0];
          const last = out[out.length - 1];
          if (feedEvent !== undefined && first && last) owe.run(first.id, last.id, feedEvent, now);
          return out;
        })
        .immediate();
    },
    async unannounced(limit) {
      // Whole ranges only (one event each, named by its first id as it was live): the last one may pass `limit`.
      const out: Unannounced<Attendance>[] = [];
      for (const range of owedRanges.all(limit) as { first_id: number; last_id: number; marker: string }[]) {
        if (out.length >= limit) break;
        const rows = rowsOf.all(range.first_id, range.last_id) as Row[];
        // Every row pruned by retention before its event was stored: nothing left to announce.
        if (rows.length === 0) dropRange.run(range.first_id);
        for (const r of rows) out.push({ marker: range.marker, record: toAttendance(r) });
      }
      if (out.length >= limit) return out;
      for (const r of markedRows.all(limit - out.length) as Row[]) out.push({ marker: r['feed_event'] as string, record: toAttendance(r) });
      return out;
    },
    async list(locationId, filter, window, order = 'newest') {
      const { w, args } = where(locationId, filter);
      const total = (db.prepare(`SELECT COUNT(*) AS n FROM attendance WHERE ${w}`).get(...args) as { n: number }).n;
      const rows = db
        .prepare(`SELECT * FROM attendance WHERE ${w} ORDER BY ${SQL_ORDER[order]} LIMIT ? OFFSET ?`)
        .all(...args, window.limit, window.offset) as Row[];
      return { items: rows.map(toAttendance), total };
    },
    async listAfter(locationId, after, filter, limit) {
      // One writer and AUTOINCREMENT ids: id order is commit order, and an id is never reused.
      // Read through attendance_arrival (location_id, id), in index order (no sort per page).
      const { w, args } = where(locationId, filter);
      return (
        db
          .prepare(`SELECT * FROM attendance WHERE ${w} AND id > ? ORDER BY id LIMIT ?`)
          .all(...args, startAfter(w, args, after), limit) as Row[]
      ).map(toAttendance);
    },
    async count(locationId, filter, max) {
      const { w, args } = where(locationId, filter);
      return (db.prepare(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM attendance WHERE ${w} LIMIT ?)`).get(...args, max) as { n: number }).n;
    },
    async get(locationId, id) {
      const row = db.prepare('SELECT * FROM attendance WHERE id = ? AND location_id = ?').get(id, locationId) as Row | undefined;
      return row ? toAttendance(row) : undefined;
    },
    async voidRecord(locationId, id, reason, at) {
      const row = db
        .prepare('UPDATE attendance SET voided_at = ?, void_reason = ? WHERE id = ? AND location_id = ? AND voided_at IS NULL RETURNING *')
        .get(at, reason, id, locationId) as Row | undefined;
      if (row) return toAttendance(row);
      return db.prepare('SELECT 1 FROM attendance WHERE id = ? AND location_id = ?').get(id, locationId) ? 'voided' : undefined;
    },
    async prune(before, limit) {
      // Location by location through attendance_location (migration 46): its locations by a skip over that index.
      let left = limit;
      for (const { id } of locationsHeld.all() as { id: number }[]) {
        if (left <= 0) break;
        left -= pruneOf.run(id, before, left).changes;
      }
      return limit - left;
    },
  };
}
