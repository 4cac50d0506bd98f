/**
 * Commands on SQLite: inserts, reads and the compare-and-set primitives (ports/command-records.ts);
 * the transition methods are store/commands.ts's. A compare-and-set is one UPDATE … RETURNING; a step
 * with consequences (otherwise, child lines) or a batch is one immediate transaction.
 */
import Database from 'better-sqlite3';
import { commandsPort } from '../commands.js';
import type { CommandCas, CommandChange, CommandRecords, CommandSelector, CommandStep, CommandTarget } from '../ports/command-records.js';
import type { CommandTransition } from '../ports/command-transitions.js';
import { SYNC_SUPERSEDED as SUPERSEDED, type Command, type CommandStatus, type CommandsPort, type NewCommand } from '../ports/index.js';
import { json, positions, rawReader, type Db } from './db.js';
import { lastSyncedElsewhere } from '../sync-history.js';

/** The columns every command read returns, in this order (rows come back as arrays: `prepareRaw`). */
const COLUMNS = [
  'id',
  'location_id',
  'sn',
  'command',
  'params',
  'priority',
  'origin',
  'status',
  'response',
  'error_message',
  'result',
  'sent_at',
  'acknowledged_at',
  'expires_at',
  'sync_key',
  'attempts',
  'parent_id',
  'wire',
  'group_id',
  'created_by_token_id',
  'idempotency_key',
  'created_at',
  'updated_at',
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

/** `status = 'x'` or `status IN ('x', 'y')`: literals, so the planner can use the partial indexes on status. */
const statusIn = (statuses: readonly CommandStatus[]): string =>
  statuses.length === 1 ? `status = '${statuses[0]}'` : `status IN (${statuses.map((s) => `'${s}'`).join(', ')})`;

/** The status condition of a rule. */
const guard = (rule: CommandTransition): string =>
  rule.compositeFrom ? `(${statusIn(rule.from)} OR (composite = 1 AND ${statusIn(rule.compositeFrom)}))` : statusIn(rule.from);

/**
 * SET clauses and their arguments for a rule's change, in a fixed order (so one text per shape: statements are cached by text).
 * `many`: a set-many, whose outbox marker goes only on the commands that are announced.
 */
function assignments(rule: CommandTransition, c: CommandChange, many = false): { sql: string; args: unknown[] } {
  const sets: string[] = [];
  const args: unknown[] = [];
  const put = (sql: string, value: unknown) => {
    sets.push(sql);
    args.push(value);
  };
  if (rule.to !== null) put('status = ?', rule.to);
  if (c.sent_at !== undefined) put('sent_at = ?', c.sent_at);
  if (c.wire !== undefined) put('wire = ?', c.wire);
  if (c.response !== undefined) put('response = ?', c.response);
  if (c.error_message !== undefined) put('error_message = ?', c.error_message);
  if (c.result !== undefined)
    put(c.compositeKeepsResult ? 'result = CASE WHEN composite = 1 THEN result ELSE ? END' : 'result = ?', jsonOrNull(c.result));
  if (c.acknowledged_at !== undefined)
    put("acknowledged_at = CASE WHEN status = 'sent' THEN ? ELSE acknowledged_at END", c.acknowledged_at);
  if (c.nextAttempt) sets.push('attempts = attempts + 1');
  if (c.feed_event !== undefined)
    put(
      many ? 'feed_event = CASE WHEN parent_id IS NULL AND location_id IS NOT NULL THEN ? ELSE feed_event END' : 'feed_event = ?',
      c.feed_event,
    );
  put('updated_at = ?', c.updated_at);
  return { sql: sets.join(', '), args };
}

/** The selection of a set-many (top-level records; a group's composite left out). */
function selection(s: CommandSelector): { sql: string; args: unknown[] } {
  if ('sn' in s) return { sql: 'sn = ?', args: [s.sn] };
  if ('group' in s) return { sql: 'group_id = ? AND composite = 0', args: [s.group] };
  return { sql: 'expires_at IS NOT NULL AND expires_at <= ?', args: [s.expiredBy] };
}

/** A write a unique index refused: back to pending while a newer op holds the sync key (commands_sync_pending). */
const isUniqueViolation = (e: unknown): boolean => e instanceof Database.SqliteError && e.code === 'SQLITE_CONSTRAINT_UNIQUE';

export function sqliteCommands(db: Db): CommandsPort {
  /** A statement that returns command rows: `*` stands for COLUMNS, rows are arrays. */
  const q = rawReader(db, COLUMNS);
  const insert = q(
    `INSERT INTO commands (location_id, sn, command, params, priority, origin, status, expires_at, sync_key, parent_id, created_by_token_id, idempotency_key, group_id, composite, created_at, feed_event)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  // A composite's group is its own id, known once the row exists.
  const ownGroup = q('UPDATE commands SET group_id = id WHERE id = ? RETURNING *');
  const groupOpen = db.prepare("SELECT 1 FROM commands WHERE group_id = ? AND status IN ('pending', 'sent') AND composite = 0 LIMIT 1");
  const groupCount = db.prepare(
    'SELECT status, error_message, COUNT(*) AS n FROM commands WHERE group_id = ? AND composite = 0 GROUP BY status, error_message',
  );
  const byId = q('SELECT * FROM commands WHERE id = ?');
  // Statements on the delivery path are prepared once (preparing costs more than running them).
  const mailbox = q(
    "SELECT * FROM commands WHERE sn = ? AND status = 'pending' AND parent_id IS NULL AND composite = 0 ORDER BY priority DESC, id ASC LIMIT ?",
  );
  const replace = db.prepare(
    `UPDATE commands SET command = ?, params = ?, priority = ?, expires_at = ?, group_id = COALESCE(group_id, ?), updated_at = ?
     WHERE sn = ? AND sync_key = ? AND status = 'pending'`,
  );
  const sentOfDevice = q(
    "SELECT * FROM commands WHERE sn = ? AND command = ? AND status = 'sent' AND parent_id IS NULL AND location_id = ? ORDER BY sent_at, id LIMIT ?",
  );
  const countPendingAll = db.prepare(
    "SELECT COUNT(*) AS n FROM commands WHERE sn = ? AND status = 'pending' AND parent_id IS NULL AND composite = 0",
  );
  const countPendingOf = db.prepare(
    "SELECT COUNT(*) AS n FROM commands WHERE sn = ? AND status = 'pending' AND parent_id IS NULL AND composite = 0 AND origin = ?",
  );
  const childrenOf = q('SELECT * FROM commands WHERE parent_id = ? ORDER BY id');
  // A terminal's sync history (index commands_sync_history, migration 47): has it an op of another location or of
  // none? Three ranges of the index, so that a terminal that only ever served this location reads no row.
  const ofSn = "FROM commands WHERE sn = @sn AND origin = 'sync' AND parent_id IS NULL";
  const elsewhere = db
    .prepare(
      `SELECT EXISTS (SELECT 1 ${ofSn} AND location_id IS NULL) OR EXISTS (SELECT 1 ${ofSn} AND location_id < @location)
         OR EXISTS (SELECT 1 ${ofSn} AND location_id > @location) AS other`,
    )
    .pluck();
  const history = db.prepare(
    `SELECT location_id, status, json_extract(params, '$.pin') AS pin, json_extract(params, '$.op') AS op FROM commands
     WHERE sn = ? AND origin = 'sync' AND parent_id IS NULL AND status IN ('success', 'sent') ORDER BY id`,
  );
  // The marker follows COLUMNS in each row (the partial index commands_feed_event serves it).
  const owing = q('SELECT *, feed_event FROM commands WHERE feed_event IS NOT NULL ORDER BY feed_event, id LIMIT ?');
  const owingOf = db.prepare('SELECT id, feed_event FROM commands WHERE id IN (SELECT value FROM json_each(?)) AND feed_event IS NOT NULL');
  /** The one row a statement returns, as a command. */
  const one = (sql: string, ...args: unknown[]): Command | undefined => {
    const r = q(sql).get(...args);
    return r && toCommand(r);
  };
  const insertArgs = (c: NewCommand, now: string) => [
    c.location_id,
    c.sn,
    c.command,
    jsonOrNull(c.params),
    c.priority,
    c.origin,
    c.expires_at,
    c.sync_key ?? null,
    c.parent_id ?? null,
    c.created_by_token_id ?? null,
    c.idempotency_key ?? null,
    c.group_id ?? null,
    c.composite ? 1 : 0,
    now,
    c.feed_event ?? null,
  ];

  /** One compare-and-set statement on a command; undefined when it did not apply or a unique index refused it. */
  const cas = (target: CommandTarget, step: CommandCas): Command | undefined => {
    const set = assignments(step.rule, step.change);
    const attempt = target.sent_at === undefined ? '' : ' AND sent_at = ?';
    const args = target.sent_at === undefined ? [target.id] : [target.id, target.sent_at];
    try {
      return one(`UPDATE commands SET ${set.sql} WHERE id = ?${attempt} AND ${guard(step.rule)} RETURNING *`, ...set.args, ...args);
    } catch (e) {
      if (isUniqueViolation(e)) return undefined;
      throw e;
    }
  };
  /** A step with its consequences, in the caller's transaction. */
  const apply = (target: CommandTarget, step: CommandStep): Command | undefined => {
    const out = cas(target, step) ?? (step.otherwise && cas(target, step.otherwise));
    if (out && step.lines) {
      const set = assignments(step.lines.rule, step.lines.change);
      db.prepare(`UPDATE commands SET ${set.sql} WHERE parent_id = ? AND ${guard(step.lines.rule)}`).run(...set.args, target.id);
    }
    return out;
  };

  const records: CommandRecords = {
    async setOne(target, step) {
      if (!step.otherwise && !step.lines) return cas(target, step);
      return db.transaction(() => apply(target, step)).immediate();
    },
    async setEach(targets, step) {
      return db.transaction(() => targets.map((t) => apply(t, step(t)))).immediate();
    },
    async setMany(selector, step) {
      const set = assignments(step.rule, step.change, true);
      const where = selection(selector);
      return q(`UPDATE commands SET ${set.sql} WHERE ${where.sql} AND ${guard(step.rule)} RETURNING *`)
        .all(...set.args, ...where.args)
        .map(toCommand);
    },
    async create(input, now) {
      if (!input.composite) return toCommand(insert.get(...insertArgs(input, now)) as Row);
      return db.transaction(() => toCommand(ownGroup.get((insert.get(...insertArgs(input, now)) as Row)[at.id]) as Row)).immediate();
    },
    async enqueueSync(ops, now) {
      const inserted: Command[] = [];
      let replaced = 0;
      db.transaction(() => {
        for (const op of ops) {
          if (
            op.sync_key &&
            replace.run(op.command, jsonOrNull(op.params), op.priority, op.expires_at, op.group_id ?? null, now, op.sn, op.sync_key)
              .changes > 0
          ) {
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
      return one(
        'SELECT * FROM commands WHERE location_id = ? AND created_by_token_id IS ? AND idempotency_key = ?',
        locationId,
        tokenId,
        key,
      );
    },
    async list(locationId, filter, window) {
      const where = ['location_id = ?', 'parent_id IS NULL'];
      const args: unknown[] = [locationId];
      if (filter.sn) {
        where.push('sn = ?');
        args.push(filter.sn);
      }
      if (filter.status) {
        where.push('status = ?');
        args.push(filter.status);
      }
      if (filter.command) {
        where.push('command = ?');
        args.push(filter.command);
      }
      if (filter.since) {
        where.push('created_at >= ?');
        args.push(filter.since);
      }
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
    async sentBefore(cutoff, limit, after) {
      if (after?.sent_at)
        return q(
          `SELECT * FROM commands WHERE status = 'sent' AND sent_at < ? AND parent_id IS NULL AND (sent_at > ? OR (sent_at = ? AND id > ?))
           ORDER BY sent_at, id LIMIT ?`,
        )
          .all(cutoff, after.sent_at, after.sent_at, after.id, limit)
          .map(toCommand);
      return q("SELECT * FROM commands WHERE status = 'sent' AND sent_at < ? AND parent_id IS NULL ORDER BY sent_at, id LIMIT ?")
        .all(cutoff, limit)
        .map(toCommand);
    },
    async children(parentId) {
      return childrenOf.all(parentId).map(toCommand);
    },
    async unannounced(limit) {
      return owing.all(limit).map((r) => ({ marker: r[COLUMNS.length] as string, record: toCommand(r) }));
    },
    async owedMarkers(ids) {
      if (ids.length === 0) return new Map();
      const rows = owingOf.all(JSON.stringify(ids)) as { id: number; feed_event: string }[];
      return new Map(rows.map((r) => [r.id, r.feed_event]));
    },
    async syncedPinsElsewhere(sn, locationId, ever = false) {
      // A terminal that never had an op of another location (or of none) holds nothing of another.
      if (elsewhere.get({ sn, location: locationId }) === 0) return [];
      const rows = history.all(sn) as { location_id: number; status: string; pin: number; op: string }[];
      return lastSyncedElsewhere(rows, locationId, ever);
    },
    async prune(before, limit) {
      return db
        .transaction(() => {
          const ids = (
            db
              .prepare(
                "SELECT id FROM commands WHERE status IN ('success', 'failed') AND parent_id IS NULL AND COALESCE(updated_at, created_at) < ? LIMIT ?",
              )
              .all(before, limit) as { id: number }[]
          ).map((r) => r.id);
          const del = db.prepare('DELETE FROM commands WHERE id = ? OR parent_id = ?');
          for (const id of ids) del.run(id, id);
          return ids.length;
        })
        .immediate();
    },
    async countByStatus() {
      const out: Record<CommandStatus, number> = { pending: 0, sent: 0, success: 0, failed: 0 };
      // Kept by the triggers of migration 48: no scan of the table.
      for (const r of db.prepare('SELECT status, n FROM command_counts').all() as { status: CommandStatus; n: number }[])
        if (r.status in out) out[r.status] = r.n;
      return out;
    },
  };
  return commandsPort(records);
}
