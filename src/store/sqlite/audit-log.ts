/**
 * The audit log on SQLite (AuditLogPort in ../ports/audit-log.ts). Ids are AUTOINCREMENT: taken under
 * the write lock, in commit order, never reused, so a cursor on the id misses nothing.
 */
import type { AuditEntry, AuditFilter, AuditLogPort, AuditScope } from '../ports/index.js';
import type { Db } from './db.js';

type Row = Record<string, unknown>;

const toEntry = (r: Row): AuditEntry => ({
  id: r['id'] as number,
  location_id: (r['location_id'] as number | null) ?? null,
  at: r['at'] as string,
  actor: JSON.parse(r['actor'] as string) as AuditEntry['actor'],
  action: r['action'] as string,
  target: { type: r['target_type'] as string, id: r['target_id'] as string },
  changes: JSON.parse(r['changes'] as string) as AuditEntry['changes'],
});

/** The WHERE clause of a scope and filter, with its parameters. */
function where(scope: AuditScope, filter: AuditFilter): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    clauses.push(clause);
    params.push(value);
  };
  if (scope.location_id !== undefined) add('location_id = ?', scope.location_id);
  if (filter.action !== undefined) add('action = ?', filter.action);
  if (filter.target_type !== undefined) add('target_type = ?', filter.target_type);
  if (filter.from !== undefined) add('at >= ?', filter.from);
  if (filter.to !== undefined) add('at <= ?', filter.to);
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

export function sqliteAuditLog(db: Db): AuditLogPort {
  const insert = db.prepare(
    'INSERT INTO audit_log (location_id, at, actor, action, target_type, target_id, changes) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id',
  );
  return {
    async append(entries) {
      return db
        .transaction(() =>
          entries.map((e) => {
            const { id } = insert.get(
              e.location_id,
              e.at,
              JSON.stringify(e.actor),
              e.action,
              e.target.type,
              e.target.id,
              JSON.stringify(e.changes),
            ) as {
              id: number;
            };
            return { id, ...e };
          }),
        )
        .immediate();
    },
    async page(scope, filter, window) {
      const w = where(scope, filter);
      const total = (db.prepare(`SELECT COUNT(*) AS n FROM audit_log ${w.sql}`).get(...w.params) as { n: number }).n;
      const rows = db
        .prepare(`SELECT * FROM audit_log ${w.sql} ORDER BY id DESC LIMIT ? OFFSET ?`)
        .all(...w.params, window.limit, window.offset) as Row[];
      return { items: rows.map(toEntry), total };
    },
    async after(scope, filter, after, _now, limit) {
      const w = where(scope, filter);
      const sql = `SELECT * FROM audit_log ${w.sql ? `${w.sql} AND` : 'WHERE'} id > ? ORDER BY id LIMIT ?`;
      return (db.prepare(sql).all(...w.params, after, limit) as Row[]).map(toEntry);
    },
    async prune(before, limit) {
      return db.prepare('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY at LIMIT ?)').run(before, limit)
        .changes;
    },
  };
}
