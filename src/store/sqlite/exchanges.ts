/** Each terminal's last exchanges (ExchangesPort in ../ports/exchanges.ts), one row per exchange or run. */
import type { DeviceExchange, ExchangesPort } from '../ports/index.js';
import type { Db } from './db.js';

/** The columns as the port names them: a row is a DeviceExchange as it is (NULL is null). */
const COLUMNS = 'key, location_id, sn, at, first_at, repeat, method, endpoint, table_name AS "table", records, status, answer_bytes, error';

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
      return db
        .prepare(`SELECT ${COLUMNS} FROM device_exchanges WHERE location_id = ? AND sn = ? ORDER BY at DESC, key DESC LIMIT ?`)
        .all(locationId, sn, limit) as DeviceExchange[];
    },
  };
}
