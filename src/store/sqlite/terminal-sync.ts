/** The per-terminal sync state on SQLite (see ../ports/terminal-sync.ts). */
import type { OwedCounts, OwedPin, SyncRefusal, TerminalSyncPort, TerminalSyncRecord } from '../ports/index.js';
import type { Db } from './db.js';

/** Owed sync ops: served by the partial index commands_sync_owed (migration 21). */
const OWED = `origin = 'sync' AND command = 'sync-users' AND parent_id IS NULL AND status IN ('pending', 'sent')`;
const OP = `json_extract(params, '$.op')`;
const PIN = `json_extract(params, '$.pin')`;

export function sqliteTerminalSync(db: Db): TerminalSyncPort {
  const owedOf = db.prepare(
    `SELECT ${OP} AS op, COUNT(*) AS n, MIN(created_at) AS oldest FROM commands WHERE sn = ? AND ${OWED} GROUP BY ${OP}`,
  );
  /** A refusal counts while an op for its PIN created no later than the refusal is owed. */
  const LIVE = `EXISTS (SELECT 1 FROM commands WHERE sn = r.sn AND ${OWED} AND ${PIN} = r.pin AND created_at <= r.at)`;
  const refusedOf = db.prepare(`SELECT COUNT(*) AS n FROM sync_refusals r WHERE r.sn = ? AND ${LIVE}`);
  /** A location's ops only, the location given twice (NULL: every op, a moved terminal's deletes of no location included). */
  const OF_LOCATION = `(? IS NULL OR location_id = ?)`;
  const owedCount = db.prepare(`SELECT COUNT(*) AS n FROM commands WHERE sn = ? AND ${OWED} AND ${OP} = ? AND ${OF_LOCATION}`);
  const owedPage = db.prepare(
    `SELECT ${PIN} AS pin, c.created_at AS since, r.code AS code FROM commands c
     LEFT JOIN sync_refusals r ON r.sn = c.sn AND r.pin = ${PIN} AND c.created_at <= r.at
     WHERE c.sn = ? AND ${OWED} AND ${OP} = ? AND ${OF_LOCATION} ORDER BY c.created_at, c.id LIMIT ? OFFSET ?`,
  );
  const refusalsWhere = `FROM sync_refusals r WHERE r.sn = ? AND ${LIVE}`;
  const refusalCount = db.prepare(`SELECT COUNT(*) AS n ${refusalsWhere}`);
  const refusalPage = db.prepare(`SELECT pin, code, message, since, at ${refusalsWhere} ORDER BY since, pin LIMIT ? OFFSET ?`);
  const refuse = db.prepare(
    `INSERT INTO sync_refusals (sn, pin, code, message, since, at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (sn, pin) DO UPDATE SET code = excluded.code, message = excluded.message, at = excluded.at`,
  );
  const anyRefusal = db.prepare('SELECT 1 FROM sync_refusals WHERE sn = ? LIMIT 1');
  const clearAll = db.prepare('DELETE FROM sync_refusals WHERE sn = ?');
  const clearOne = db.prepare('DELETE FROM sync_refusals WHERE sn = ? AND pin = ? AND at < ?');
  const clearConfirmed = db.transaction((sn: string, confirmed: readonly { readonly pin: number; readonly at: string }[]) => {
    for (const c of confirmed) clearOne.run(sn, c.pin, c.at);
  });
  const setState = db.prepare(
    `INSERT INTO sync_terminals (sn, location_id, state, reason, changed_at, sync_event) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (sn) DO UPDATE SET location_id = excluded.location_id, state = excluded.state, reason = excluded.reason,
       changed_at = excluded.changed_at, sync_event = excluded.sync_event
     WHERE sync_terminals.state = ?`,
  );
  const announced = db.prepare('UPDATE sync_terminals SET sync_event = NULL WHERE sn = ? AND sync_event = ?');
  const unannounced = db.prepare(
    'SELECT sn, sync_event AS marker FROM sync_terminals WHERE sync_event IS NOT NULL AND changed_at < ? ORDER BY changed_at LIMIT ?',
  );
  const confirmed = db.prepare(
    `INSERT INTO sync_terminals (sn, location_id, state, last_confirmed_at, changed_at) VALUES (?, ?, 'unknown', ?, ?)
     ON CONFLICT (sn) DO UPDATE SET last_confirmed_at = excluded.last_confirmed_at
     WHERE sync_terminals.last_confirmed_at IS NULL OR sync_terminals.last_confirmed_at < excluded.last_confirmed_at`,
  );
  const claimAudit = db.prepare(
    `INSERT INTO sync_terminals (sn, location_id, state, audit_started_at, changed_at) VALUES (?, ?, 'unknown', ?, ?)
     ON CONFLICT (sn) DO UPDATE SET audit_started_at = excluded.audit_started_at, audit_command_id = NULL
     WHERE sync_terminals.audit_started_at IS NULL OR sync_terminals.audit_started_at < ?
        OR (sync_terminals.last_audit_at IS NOT NULL AND sync_terminals.last_audit_at >= sync_terminals.audit_started_at)`,
  );
  const audited = db.prepare(`UPDATE sync_terminals SET last_audit_at = ? WHERE sn = ? AND (last_audit_at IS NULL OR last_audit_at < ?)`);
  return {
    async claimAudit(sn, locationId, staleBefore, now) {
      return claimAudit.run(sn, locationId, now, now, staleBefore).changes === 1;
    },
    async reclaimAudit(sn, commandId, now) {
      return (
        db
          .prepare('UPDATE sync_terminals SET audit_started_at = ?, audit_command_id = NULL WHERE sn = ? AND audit_command_id = ?')
          .run(now, sn, commandId).changes === 1
      );
    },
    async auditCommand(sn, commandId) {
      db.prepare('UPDATE sync_terminals SET audit_command_id = ? WHERE sn = ?').run(commandId, sn);
    },
    async audited(sn, at) {
      audited.run(at, sn, at);
    },
    async get(sns) {
      if (sns.length === 0) return [];
      return db
        .prepare(
          'SELECT sn, location_id, state, reason, last_confirmed_at, last_audit_at, audit_started_at, audit_command_id, changed_at FROM sync_terminals WHERE sn IN (SELECT value FROM json_each(?))',
        )
        .all(JSON.stringify(sns)) as TerminalSyncRecord[];
    },
    async setState(sn, locationId, from, to, reason, now, marker) {
      if (from === null) {
        const r = db
          .prepare(
            'INSERT INTO sync_terminals (sn, location_id, state, reason, changed_at, sync_event) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (sn) DO NOTHING',
          )
          .run(sn, locationId, to, reason, now, marker ?? null);
        return r.changes === 1;
      }
      return setState.run(sn, locationId, to, reason, now, marker ?? null, from).changes === 1;
    },
    async announced(sn, marker) {
      announced.run(sn, marker);
    },
    async unannounced(before, limit) {
      return unannounced.all(before, limit) as { sn: string; marker: string }[];
    },
    async confirmed(sn, locationId, at) {
      confirmed.run(sn, locationId, at, at);
    },
    async owed(sns) {
      const out = new Map<string, OwedCounts>();
      for (const sn of sns) {
        let owed = 0;
        let revocations = 0;
        let oldest: string | null = null;
        for (const r of owedOf.all(sn) as { op: string | null; n: number; oldest: string }[]) {
          owed += r.n;
          if (r.op === 'user.delete') revocations += r.n;
          if (oldest === null || r.oldest < oldest) oldest = r.oldest;
        }
        const refused = owed === 0 ? 0 : (refusedOf.get(sn) as { n: number }).n;
        out.set(sn, { owed, revocations, refused, oldest });
      }
      return out;
    },
    async owedPins(sn, op, window, locationId = null) {
      const total = (owedCount.get(sn, op, locationId, locationId) as { n: number }).n;
      const rows = owedPage.all(sn, op, locationId, locationId, window.limit, window.offset) as {
        pin: number;
        since: string;
        code: number | null;
      }[];
      const items: OwedPin[] = rows.map((r) =>
        r.code === null ? { pin: r.pin, since: r.since } : { pin: r.pin, since: r.since, code: r.code },
      );
      return { items, total };
    },
    async refuse(sn, pin, code, message, now) {
      refuse.run(sn, pin, code, message, now, now);
    },
    async refusals(sn, window) {
      const total = (refusalCount.get(sn) as { n: number }).n;
      return { items: refusalPage.all(sn, window.limit, window.offset) as SyncRefusal[], total };
    },
    async clearRefusals(sn, confirmed) {
      if (confirmed === undefined) {
        clearAll.run(sn);
        return;
      }
      // Every state refresh after a confirmation asks: a terminal that refused nothing costs a read, no write.
      if (confirmed.length === 0 || anyRefusal.get(sn) === undefined) return;
      clearConfirmed(sn, confirmed);
    },
  };
}
