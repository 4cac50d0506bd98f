/** Each terminal's last exchanges (ExchangesPort in ../ports/exchanges.ts), one row per exchange or run. */
import type { DeviceExchange, ExchangesPort } from '../ports/index.js';
import type { Db } from './db.js';

type Row = Record<string, unknown>;

const toExchange = (r: Row): DeviceExchange => ({
  key: r['key'] as string,
  location_id: r['location_id'] as number,
  sn: r['sn'] as string,
  at: r['at'] as string,
  first_at: r['first_at'] as string,
  repeat: r['repeat'] as number,
  method: r['method'] as string,
  endpoint: r['endpoint'] as string,
  table: (r['table_name'] as string | null) ?? null,
  records: (r['records'] as number | null) ?? null,
  status: r['status'] as number,
  answer_bytes: r['answer_bytes'] as number,
  error: (r['error'] as string | null) ?? null,
});

export function sqliteExchanges(db: Db): ExchangesPort {
  const upsert = db.prepare(
    `INSERT INTO device_exchanges (key, location_id, sn, at, first_at, repeat, method, endpoint, table_name, records, status, answer_bytes, error)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET at = excluded.at, repeat = excluded.repeat`,
  );
  // The (keep+1)-th newest and everything older go (row values: SQLite 3.15+).
  const trim = db.prepare(
    `DELETE FROM device_exchanges WHERE location_id = ? AND sn = ? AND (at, key) <= (
       SELECT at, key FROM device_exchanges WHERE location_id = ? AND sn = ? ORDER BY at DESC, key DESC LIMIT 1 OFFSET ?)`,
  );
  return {
    async write(entries, trimmed, keep) {
      if (entries.length === 0 && trimmed.length === 0) return;
      db.transaction(() => {
        for (const e of entries)
          upsert.run(
            e.key,
            e.location_id,
            e.sn,
            e.at,
            e.first_at,
            e.repeat,
            e.method,
            e.endpoint,
            e.table,
            e.records,
            e.status,
            e.answer_bytes,
            e.error,
          );
        for (const t of trimmed) trim.run(t.location_id, t.sn, t.location_id, t.sn, keep);
      }).immediate();
    },
    async list(locationId, sn, limit) {
      const rows = db
        .prepare('SELECT * FROM device_exchanges WHERE location_id = ? AND sn = ? ORDER BY at DESC, key DESC LIMIT ?')
        .all(locationId, sn, limit) as Row[];
      return rows.map(toExchange);
    },
  };
}
