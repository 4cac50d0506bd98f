import { ATTEMPT_SUPERSEDED, SYNC_SUPERSEDED as SUPERSEDED, type Command, type CommandStatus, type CommandsPort, type NewCommand } from '../types.js';
import { json, type Db } from './db.js';
import { lastSyncedElsewhere } from '../sync-history.js';

type Row = Record<string, unknown>;

const toCommand = (r: Row): Command => ({
  id: r['id'] as number,
  location_id: (r['location_id'] as number | null) ?? null,
  sn: r['sn'] as string,
  command: r['command'] as string,
  params: json<Record<string, unknown>>(r['params']),
  priority: r['priority'] as number,
  origin: r['origin'] as Command['origin'],
  status: r['status'] as CommandStatus,
  response: (r['response'] as string | null) ?? null,
  error_message: (r['error_message'] as string | null) ?? null,
  result: json<unknown>(r['result']),
  sent_at: (r['sent_at'] as string | null) ?? null,
  acknowledged_at: (r['acknowledged_at'] as string | null) ?? null,
  expires_at: (r['expires_at'] as string | null) ?? null,
  sync_key: (r['sync_key'] as string | null) ?? null,
  attempts: r['attempts'] as number,
  parent_id: (r['parent_id'] as number | null) ?? null,
  wire: (r['wire'] as string | null) ?? null,
  group_id: (r['group_id'] as number | null) ?? null,
  created_by_token_id: (r['created_by_token_id'] as number | null) ?? null,
  idempotency_key: (r['idempotency_key'] as string | null) ?? null,
  created_at: r['created_at'] as string,
  updated_at: (r['updated_at'] as string | null) ?? null,
});


const jsonOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

export function sqliteCommands(db: Db): CommandsPort {
  const insert = db.prepare(
    `INSERT INTO commands (location_id, sn, command, params, priority, origin, status, expires_at, sync_key, parent_id, created_by_token_id, idempotency_key, group_id, composite, created_at)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  // A composite's group is its own id, known once the row exists.
  const ownGroup = db.prepare('UPDATE commands SET group_id = id WHERE id = ? RETURNING *');
  // Child lines of an attempt that will not be answered any more (requeue, retry, unclaim).
  const supersedeChildren = db.prepare(
    `UPDATE commands SET status = 'failed', error_message = '${ATTEMPT_SUPERSEDED}', updated_at = ? WHERE parent_id = ? AND status IN ('pending', 'sent')`,
  );
  const failPendingOne = db.prepare("UPDATE commands SET status = 'failed', error_message = ?, updated_at = ? WHERE id = ? AND status = 'pending' RETURNING *");
  const unclaimOne = db.prepare(
    "UPDATE commands SET status = 'pending', sent_at = NULL, result = CASE WHEN composite = 1 THEN result END, response = NULL, updated_at = ? WHERE id = ? AND status = 'sent' AND sent_at = ? RETURNING *",
  );
  const groupOpen = db.prepare("SELECT 1 FROM commands WHERE group_id = ? AND status IN ('pending', 'sent') AND composite = 0 LIMIT 1");
  const groupCount = db.prepare('SELECT status, error_message, COUNT(*) AS n FROM commands WHERE group_id = ? AND composite = 0 GROUP BY status, error_message');
  const byId = db.prepare('SELECT * FROM commands WHERE id = ?');
  const pendingSync = db.prepare("SELECT id FROM commands WHERE sn = ? AND sync_key = ? AND status = 'pending'");
  const requeue = db.prepare("UPDATE commands SET status = 'pending', sent_at = NULL, result = NULL, response = NULL, attempts = attempts + 1, updated_at = ? WHERE id = ? RETURNING *");
  const supersede = db.prepare(`UPDATE commands SET status = 'failed', error_message = '${SUPERSEDED}', updated_at = ? WHERE id = ? RETURNING *`);
  // Statements on the delivery path are prepared once (preparing costs more than running them).
  const countPendingAll = db.prepare("SELECT COUNT(*) AS n FROM commands WHERE sn = ? AND status = 'pending' AND parent_id IS NULL AND composite = 0");
  const countPendingOf = db.prepare("SELECT COUNT(*) AS n FROM commands WHERE sn = ? AND status = 'pending' AND parent_id IS NULL AND composite = 0 AND origin = ?");
  const childrenOf = db.prepare('SELECT * FROM commands WHERE parent_id = ? ORDER BY id');
  const finishOne = db.prepare(
    `UPDATE commands SET status = ?, response = ?, error_message = ?, result = ?, acknowledged_at = CASE WHEN status = 'sent' THEN ? ELSE acknowledged_at END, updated_at = ?
     WHERE id = ? AND status IN ('pending', 'sent') RETURNING *`,
  );
  /** The one row a statement returns, as a command. */
  const one = (sql: string, ...args: unknown[]): Command | undefined => {
    const r = db.prepare(sql).get(...args) as Row | undefined;
    return r && toCommand(r);
  };
  const insertArgs = (c: NewCommand, now: string) => [
    c.location_id, c.sn, c.command, jsonOrNull(c.params), c.priority, c.origin, c.expires_at,
    c.sync_key ?? null, c.parent_id ?? null, c.created_by_token_id ?? null, c.idempotency_key ?? null, c.group_id ?? null, c.composite ? 1 : 0, now,
  ];
  return {
    async create(input, now) {
      if (!input.composite) return toCommand(insert.get(...insertArgs(input, now)) as Row);
      return db.transaction(() => toCommand(ownGroup.get((insert.get(...insertArgs(input, now)) as Row)['id']) as Row)).immediate();
    },
    async enqueueSync(ops, now) {
      const replace = db.prepare(
        `UPDATE commands SET command = ?, params = ?, priority = ?, expires_at = ?, group_id = COALESCE(group_id, ?), updated_at = ?
         WHERE sn = ? AND sync_key = ? AND status = 'pending'`,
      );
      const inserted: Command[] = [];
      let replaced = 0;
      db.transaction(() => {
        for (const op of ops) {
          if (op.sync_key && replace.run(op.command, jsonOrNull(op.params), op.priority, op.expires_at, op.group_id ?? null, now, op.sn, op.sync_key).changes > 0) {
            replaced++;
            continue;
          }
          inserted.push(toCommand(insert.get(...insertArgs(op, now)) as Row));
        }
      }).immediate();
      return { created: inserted.length, replaced, inserted };
    },
    async get(locationId, id) {
      return one('SELECT * FROM commands WHERE id = ? AND location_id = ? AND parent_id IS NULL', id, locationId);
    },
    async getById(id) {
      const r = byId.get(id) as Row | undefined;
      return r && toCommand(r);
    },
    async findByIdempotencyKey(locationId, tokenId, key) {
      return one('SELECT * FROM commands WHERE location_id = ? AND created_by_token_id IS ? AND idempotency_key = ?', locationId, tokenId, key);
    },
    async list(locationId, filter, window) {
      const where = ['location_id = ?', 'parent_id IS NULL'];
      const args: unknown[] = [locationId];
      if (filter.sn) { where.push('sn = ?'); args.push(filter.sn); }
      if (filter.status) { where.push('status = ?'); args.push(filter.status); }
      if (filter.command) { where.push('command = ?'); args.push(filter.command); }
      if (filter.since) { where.push('created_at >= ?'); args.push(filter.since); }
      const w = where.join(' AND ');
      const total = (db.prepare(`SELECT COUNT(*) AS n FROM commands WHERE ${w}`).get(...args) as { n: number }).n;
      const rows = db.prepare(`SELECT * FROM commands WHERE ${w} ORDER BY id DESC LIMIT ? OFFSET ?`).all(...args, window.limit, window.offset) as Row[];
      return { items: rows.map(toCommand), total };
    },
    async pending(sn, limit) {
      const rows = db
        .prepare("SELECT * FROM commands WHERE sn = ? AND status = 'pending' AND parent_id IS NULL AND composite = 0 ORDER BY priority DESC, id ASC LIMIT ?")
        .all(sn, limit) as Row[];
      return rows.map(toCommand);
    },
    async countPending(sn, origin) {
      if (origin !== undefined) return (countPendingOf.get(sn, origin) as { n: number }).n;
      return (countPendingAll.get(sn) as { n: number }).n;
    },
    async claim(ids, wire, now) {
      const stmt = db.prepare("UPDATE commands SET status = 'sent', sent_at = ?, wire = ?, updated_at = ? WHERE id = ? AND status = 'pending'");
      return db.transaction(() => ids.filter((id) => stmt.run(now, wire.get(id) ?? null, now, id).changes > 0)).immediate();
    },
    async finish(id, outcome, now) {
      const r = finishOne
        .get(outcome.status, outcome.response ?? null, outcome.error_message ?? null, jsonOrNull(outcome.result), now, now, id) as Row | undefined;
      return r && toCommand(r);
    },
    async failIfPending(id, message, now) {
      const r = failPendingOne.get(message, now, id) as Row | undefined;
      return r && toCommand(r);
    },
    async unclaim(ids, sentAt, now) {
      return db
        .transaction(() =>
          ids.flatMap((id) => {
            const r = unclaimOne.get(now, id, sentAt) as Row | undefined;
            if (!r) return [];
            supersedeChildren.run(now, id);
            return [toCommand(r)];
          }),
        )
        .immediate();
    },
    async groupOutstanding(groupId) {
      return groupOpen.get(groupId) !== undefined;
    },
    async groupCounts(groupId) {
      const out = { pending: 0, sent: 0, success: 0, failed: 0, superseded: 0 };
      for (const r of groupCount.all(groupId) as { status: CommandStatus; error_message: string | null; n: number }[]) {
        out[r.status] += r.n;
        if (r.status === 'failed' && r.error_message === SUPERSEDED) out.superseded += r.n;
      }
      return out;
    },
    async failGroupPending(groupId, message, now) {
      const rows = db
        .prepare("UPDATE commands SET status = 'failed', error_message = ?, updated_at = ? WHERE group_id = ? AND status = 'pending' AND composite = 0 RETURNING *")
        .all(message, now, groupId) as Row[];
      return rows.map(toCommand);
    },
    async failPendingFor(sn, message, now) {
      const rows = db
        .prepare("UPDATE commands SET status = 'failed', error_message = ?, updated_at = ? WHERE sn = ? AND status = 'pending' RETURNING *")
        .all(message, now, sn) as Row[];
      return rows.map(toCommand);
    },
    async expire(now) {
      const rows = db
        .prepare("UPDATE commands SET status = 'failed', error_message = 'expired before delivery', updated_at = ? WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ? RETURNING *")
        .all(now, now) as Row[];
      return rows.map(toCommand);
    },
    async sentBefore(cutoff, limit) {
      return (db.prepare("SELECT * FROM commands WHERE status = 'sent' AND sent_at < ? AND parent_id IS NULL ORDER BY sent_at LIMIT ?").all(cutoff, limit) as Row[]).map(toCommand);
    },
    async requeue(id, now) {
      return db
        .transaction(() => {
          const current = byId.get(id) as Row | undefined;
          if (current?.['status'] !== 'sent') return undefined;
          // A pending op with the same (sn, sync_key) already carries the change (enqueueSync queued it
          // after this one was sent): requeueing would break the one-pending-op-per-key rule
          // (commands_sync_pending), so this op is superseded instead. Sent again otherwise: an op
          // renders the user's state at dispatch (render.ts), so a late re-run undoes nothing.
          const superseded = current['sync_key'] !== null && pendingSync.get(current['sn'], current['sync_key']) !== undefined;
          const r = (superseded ? supersede : requeue).get(now, id) as Row;
          supersedeChildren.run(now, id);
          return toCommand(r);
        })
        .immediate();
    },
    async children(parentId) {
      return (childrenOf.all(parentId) as Row[]).map(toCommand);
    },
    async progress(id, progress, now) {
      const sets = ['result = ?', 'updated_at = ?'];
      const args: unknown[] = [jsonOrNull(progress.result), now];
      if (progress.response !== undefined) { sets.push('response = ?'); args.push(progress.response); }
      return one(`UPDATE commands SET ${sets.join(', ')} WHERE id = ? AND (status = 'sent' OR (composite = 1 AND status = 'pending')) RETURNING *`, ...args, id);
    },
    async retry(id, wire, now) {
      return db
        .transaction(() => {
          const r = one("UPDATE commands SET status = 'pending', wire = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'sent' RETURNING *", wire, now, id);
          if (r) supersedeChildren.run(now, id);
          return r;
        })
        .immediate();
    },
    async syncedPinsElsewhere(sn, locationId) {
      const rows = db
        .prepare(
          `SELECT location_id, json_extract(params, '$.pin') AS pin, json_extract(params, '$.op') AS op FROM commands
           WHERE sn = ? AND origin = 'sync' AND status = 'success' AND parent_id IS NULL ORDER BY id`,
        )
        .all(sn) as { location_id: number; pin: number; op: string }[];
      return lastSyncedElsewhere(rows, locationId);
    },
    async prune(before, limit) {
      return db
        .transaction(() => {
          const ids = (db
            .prepare("SELECT id FROM commands WHERE status IN ('success', 'failed') AND parent_id IS NULL AND COALESCE(updated_at, created_at) < ? LIMIT ?")
            .all(before, limit) as { id: number }[]).map((r) => r.id);
          const del = db.prepare('DELETE FROM commands WHERE id = ? OR parent_id = ?');
          for (const id of ids) del.run(id, id);
          return ids.length;
        })
        .immediate();
    },
    async countByStatus() {
      const out: Record<CommandStatus, number> = { pending: 0, sent: 0, success: 0, failed: 0 };
      for (const r of db.prepare('SELECT status, COUNT(*) AS n FROM commands WHERE parent_id IS NULL GROUP BY status').all() as { status: CommandStatus; n: number }[]) out[r.status] = r.n;
      return out;
    },
  };
}
