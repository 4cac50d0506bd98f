import { ATTEMPT_SUPERSEDED, SYNC_SUPERSEDED as SUPERSEDED, type Command, type CommandStatus, type CommandsPort, type NewCommand } from '../types.js';
import { json, positions, rawReader, type Db } from './db.js';
import { lastSyncedElsewhere } from '../sync-history.js';

/** The columns every command read returns, in this order (rows come back as arrays: `prepareRaw`). */
const COLUMNS = [
  'id', 'location_id', 'sn', 'command', 'params', 'priority', 'origin', 'status', 'response', 'error_message', 'result', 'sent_at',
  'acknowledged_at', 'expires_at', 'sync_key', 'attempts', 'parent_id', 'wire', 'group_id', 'created_by_token_id', 'idempotency_key',
  'created_at', 'updated_at',
] as const;
const at = positions(COLUMNS);

type Row = unknown[];

const str = (v: unknown): string | null => (v as string | null) ?? null;
const num = (v: unknown): number | null => (v as number | null) ?? null;

const toCommand = (r: Row): Command => ({
  id: r[at.id] as number,
  location_id: num(r[at.location_id]),
  sn: r[at.sn] as string,
  command: r[at.command] as string,
  params: json<Record<string, unknown>>(r[at.params]),
  priority: r[at.priority] as number,
  origin: r[at.origin] as Command['origin'],
  status: r[at.status] as CommandStatus,
  response: str(r[at.response]),
  error_message: str(r[at.error_message]),
  result: json<unknown>(r[at.result]),
  sent_at: str(r[at.sent_at]),
  acknowledged_at: str(r[at.acknowledged_at]),
  expires_at: str(r[at.expires_at]),
  sync_key: str(r[at.sync_key]),
  attempts: r[at.attempts] as number,
  parent_id: num(r[at.parent_id]),
  wire: str(r[at.wire]),
  group_id: num(r[at.group_id]),
  created_by_token_id: num(r[at.created_by_token_id]),
  idempotency_key: str(r[at.idempotency_key]),
  created_at: r[at.created_at] as string,
  updated_at: str(r[at.updated_at]),
});

const jsonOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

export function sqliteCommands(db: Db): CommandsPort {
  /** A statement that returns command rows: `*` stands for COLUMNS, rows are arrays. */
  const q = rawReader(db, COLUMNS);
  const insert = q(
    `INSERT INTO commands (location_id, sn, command, params, priority, origin, status, expires_at, sync_key, parent_id, created_by_token_id, idempotency_key, group_id, composite, created_at)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  // A composite's group is its own id, known once the row exists.
  const ownGroup = q('UPDATE commands SET group_id = id WHERE id = ? RETURNING *');
  // Child lines of an attempt that will not be answered any more (requeue, retry, unclaim).
  const supersedeChildren = db.prepare(
    `UPDATE commands SET status = 'failed', error_message = '${ATTEMPT_SUPERSEDED}', updated_at = ? WHERE parent_id = ? AND status IN ('pending', 'sent')`,
  );
  const failPendingOne = q("UPDATE commands SET status = 'failed', error_message = ?, updated_at = ? WHERE id = ? AND status = 'pending' RETURNING *");
  const unclaimOne = q(
    "UPDATE commands SET status = 'pending', sent_at = NULL, result = CASE WHEN composite = 1 THEN result END, response = NULL, updated_at = ? WHERE id = ? AND status = 'sent' AND sent_at = ? RETURNING *",
  );
  const groupOpen = db.prepare("SELECT 1 FROM commands WHERE group_id = ? AND status IN ('pending', 'sent') AND composite = 0 LIMIT 1");
  const groupCount = db.prepare('SELECT status, error_message, COUNT(*) AS n FROM commands WHERE group_id = ? AND composite = 0 GROUP BY status, error_message');
  const byId = q('SELECT * FROM commands WHERE id = ?');
  const pendingSync = db.prepare("SELECT id FROM commands WHERE sn = ? AND sync_key = ? AND status = 'pending'");
  const requeue = q("UPDATE commands SET status = 'pending', sent_at = NULL, result = NULL, response = NULL, attempts = attempts + 1, updated_at = ? WHERE id = ? RETURNING *");
  const supersede = q(`UPDATE commands SET status = 'failed', error_message = '${SUPERSEDED}', updated_at = ? WHERE id = ? RETURNING *`);
  // Statements on the delivery path are prepared once (preparing costs more than running them).
  const mailbox = q("SELECT * FROM commands WHERE sn = ? AND status = 'pending' AND parent_id IS NULL AND composite = 0 ORDER BY priority DESC, id ASC LIMIT ?");
  const claimOne = db.prepare("UPDATE commands SET status = 'sent', sent_at = ?, wire = ?, updated_at = ? WHERE id = ? AND status = 'pending'");
  const replace = db.prepare(
    `UPDATE commands SET command = ?, params = ?, priority = ?, expires_at = ?, group_id = COALESCE(group_id, ?), updated_at = ?
     WHERE sn = ? AND sync_key = ? AND status = 'pending'`,
  );
  const sentOfDevice = q("SELECT * FROM commands WHERE sn = ? AND command = ? AND status = 'sent' AND parent_id IS NULL AND location_id = ? ORDER BY sent_at, id LIMIT ?");
  const countPendingAll = db.prepare("SELECT COUNT(*) AS n FROM commands WHERE sn = ? AND status = 'pending' AND parent_id IS NULL AND composite = 0");
  const countPendingOf = db.prepare("SELECT COUNT(*) AS n FROM commands WHERE sn = ? AND status = 'pending' AND parent_id IS NULL AND composite = 0 AND origin = ?");
  const childrenOf = q('SELECT * FROM commands WHERE parent_id = ? ORDER BY id');
  const finishOne = q(
    `UPDATE commands SET status = ?, response = ?, error_message = ?, result = ?, acknowledged_at = CASE WHEN status = 'sent' THEN ? ELSE acknowledged_at END, updated_at = ?
     WHERE id = ? AND status IN ('pending', 'sent') RETURNING *`,
  );
  /** The one row a statement returns, as a command. */
  const one = (sql: string, ...args: unknown[]): Command | undefined => {
    const r = q(sql).get(...args);
    return r && toCommand(r);
  };
  const insertArgs = (c: NewCommand, now: string) => [
    c.location_id, c.sn, c.command, jsonOrNull(c.params), c.priority, c.origin, c.expires_at,
    c.sync_key ?? null, c.parent_id ?? null, c.created_by_token_id ?? null, c.idempotency_key ?? null, c.group_id ?? null, c.composite ? 1 : 0, now,
  ];
  return {
    async create(input, now) {
      if (!input.composite) return toCommand(insert.get(...insertArgs(input, now)) as Row);
      return db.transaction(() => toCommand(ownGroup.get((insert.get(...insertArgs(input, now)) as Row)[at.id]) as Row)).immediate();
    },
    async enqueueSync(ops, now) {
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
      const rows = q(`SELECT * FROM commands WHERE ${w} ORDER BY id DESC LIMIT ? OFFSET ?`).all(...args, window.limit, window.offset);
      return { items: rows.map(toCommand), total };
    },
    async pending(sn, limit) {
      return mailbox.all(sn, limit).map(toCommand);
    },
    async sentOf(locationId, sn, command, limit) {
      return sentOfDevice.all(sn, command, locationId, limit).map(toCommand);
    },
    async countPending(sn, origin) {
      if (origin !== undefined) return (countPendingOf.get(sn, origin) as { n: number }).n;
      return (countPendingAll.get(sn) as { n: number }).n;
    },
    async claim(ids, wire, now) {
      return db.transaction(() => ids.filter((id) => claimOne.run(now, wire.get(id) ?? null, now, id).changes > 0)).immediate();
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
      return q("UPDATE commands SET status = 'failed', error_message = ?, updated_at = ? WHERE group_id = ? AND status = 'pending' AND composite = 0 RETURNING *")
        .all(message, now, groupId)
        .map(toCommand);
    },
    async failPendingFor(sn, message, now) {
      return q("UPDATE commands SET status = 'failed', error_message = ?, updated_at = ? WHERE sn = ? AND status = 'pending' RETURNING *")
        .all(message, now, sn)
        .map(toCommand);
    },
    async expire(now) {
      return q("UPDATE commands SET status = 'failed', error_message = 'expired before delivery', updated_at = ? WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ? RETURNING *")
        .all(now, now)
        .map(toCommand);
    },
    async sentBefore(cutoff, limit) {
      return q("SELECT * FROM commands WHERE status = 'sent' AND sent_at < ? AND parent_id IS NULL ORDER BY sent_at LIMIT ?").all(cutoff, limit).map(toCommand);
    },
    async requeue(id, now) {
      return db
        .transaction(() => {
          const current = byId.get(id) as Row | undefined;
          if (current?.[at.status] !== 'sent') return undefined;
          // A pending op with the same (sn, sync_key) already carries the change (enqueueSync queued it
          // after this one was sent): requeueing would break the one-pending-op-per-key rule
          // (commands_sync_pending), so this op is superseded instead. Sent again otherwise: an op
          // renders the user's state at dispatch (render.ts), so a late re-run undoes nothing.
          const superseded = current[at.sync_key] !== null && pendingSync.get(current[at.sn], current[at.sync_key]) !== undefined;
          const r = (superseded ? supersede : requeue).get(now, id) as Row;
          supersedeChildren.run(now, id);
          return toCommand(r);
        })
        .immediate();
    },
    async children(parentId) {
      return childrenOf.all(parentId).map(toCommand);
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
