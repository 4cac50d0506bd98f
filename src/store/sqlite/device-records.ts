/** Records of tables BioGate keeps without parsing, one row each (DeviceRecordsPort in ../ports/device-records.ts). */
import type { DeviceRecord, DeviceRecordsPort } from '../ports/index.js';
import type { Db } from './db.js';

type Row = Record<string, unknown>;

const toRecord = (r: Row): DeviceRecord => ({
  id: r['id'] as number,
  location_id: r['location_id'] as number,
  sn: r['sn'] as string,
  table: r['table_name'] as string,
  source: r['source'] as DeviceRecord['source'],
  cmd_id: (r['cmd_id'] as string | null) ?? null,
  record: r['record'] as string,
  received_at: r['received_at'] as string,
});

export function sqliteDeviceRecords(db: Db): DeviceRecordsPort {
  const insert = db.prepare(
    'INSERT INTO device_records (location_id, sn, table_name, table_key, source, cmd_id, record, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return {
    async append(batch, now) {
      if (batch.records.length === 0) return 0;
      const key = batch.table.toLowerCase();
      db.transaction(() => {
        for (const record of batch.records)
          insert.run(batch.location_id, batch.sn, batch.table, key, batch.source, batch.cmd_id, record, now);
      }).immediate();
      return batch.records.length;
    },
    async list(locationId, filter, window) {
      const where = ['location_id = ?', 'sn = ?'];
      const args: unknown[] = [locationId, filter.sn];
      if (filter.table !== undefined) {
        where.push('table_key = ?');
        args.push(filter.table.toLowerCase());
      }
      const w = where.join(' AND ');
      const total = (db.prepare(`SELECT COUNT(*) AS n FROM device_records WHERE ${w}`).get(...args) as { n: number }).n;
      const rows = db
        .prepare(`SELECT * FROM device_records WHERE ${w} ORDER BY received_at DESC, id DESC LIMIT ? OFFSET ?`)
        .all(...args, window.limit, window.offset) as Row[];
      return { items: rows.map(toRecord), total };
    },
    async trim(locationId, keep, limit) {
      return db
        .prepare(
          'DELETE FROM device_records WHERE id IN (SELECT id FROM device_records WHERE location_id = ? AND id < (SELECT id FROM device_records WHERE location_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?) ORDER BY id LIMIT ?)',
        )
        .run(locationId, locationId, keep - 1, limit).changes;
    },
    async prune(before, limit) {
      return db
        .prepare('DELETE FROM device_records WHERE id IN (SELECT id FROM device_records WHERE received_at < ? LIMIT ?)')
        .run(before, limit).changes;
    },
  };
}
