/**
 * The audit log on MongoDB (AuditLogPort in ../ports/audit-log.ts). One document per entry, its id from the
 * `audit_log` counter one at a time, so ids increase in the order they were taken on any node. An id is taken
 * before its write: the cursor (`after`) leaves out the last AUDIT_TRAIL_MS, by which time every write whose
 * id came earlier is stored. Indexes are created here, at startup, like webhooks.ts does.
 */
import type { Collection, Db, Filter } from 'mongodb';
import { AUDIT_TRAIL_MS, type AuditEntry, type AuditFilter, type AuditLogPort, type AuditScope } from '../ports/index.js';
import type { Ids } from './ids.js';

type AuditDoc = Omit<AuditEntry, 'id'> & { _id: number };

const toEntry = ({ _id, ...rest }: AuditDoc): AuditEntry => ({ id: _id, ...rest });

function query(scope: AuditScope, filter: AuditFilter): Filter<AuditDoc> {
  const at: Record<string, string> = {};
  if (filter.from !== undefined) at['$gte'] = filter.from;
  if (filter.to !== undefined) at['$lte'] = filter.to;
  return {
    ...(scope.location_id !== undefined ? { location_id: scope.location_id } : {}),
    ...(filter.action !== undefined ? { action: filter.action } : {}),
    ...(filter.target_type !== undefined ? { 'target.type': filter.target_type } : {}),
    ...(Object.keys(at).length ? { at } : {}),
  };
}

export async function mongoAuditLog(db: Db, ids: Ids): Promise<AuditLogPort> {
  const entries: Collection<AuditDoc> = db.collection('audit_log');
  await entries.createIndexes([
    { name: 'location', key: { location_id: 1, _id: 1 } },
    { name: 'at', key: { at: 1 } },
  ]);
  return {
    async append(list) {
      if (list.length === 0) return [];
      // One `$inc` for the lot (an import of 10,000 users is 10,000 entries): consecutive ids, in order.
      const first = await ids('audit_log', list.length);
      const docs: AuditDoc[] = list.map((e, i) => ({ _id: first + i, ...e }));
      await entries.insertMany(docs, { ordered: true });
      return docs.map(toEntry);
    },
    async page(scope, filter, window) {
      const q = query(scope, filter);
      const [items, total] = await Promise.all([
        entries.find(q).sort({ _id: -1 }).skip(window.offset).limit(window.limit).toArray(),
        entries.countDocuments(q),
      ]);
      return { items: items.map(toEntry), total };
    },
    async after(scope, filter, after, now, limit) {
      const trail = new Date(Date.parse(now) - AUDIT_TRAIL_MS).toISOString();
      const q = query(scope, filter);
      const at = { ...((q.at as Record<string, string> | undefined) ?? {}) };
      at['$lte'] = at['$lte'] !== undefined && at['$lte'] < trail ? at['$lte'] : trail;
      const docs = await entries
        .find({ ...q, at, _id: { $gt: after } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toEntry);
    },
    async prune(before, limit) {
      const old = await entries
        .find({ at: { $lt: before } }, { projection: { _id: 1 } })
        .sort({ at: 1 })
        .limit(limit)
        .toArray();
      if (old.length === 0) return 0;
      return (await entries.deleteMany({ _id: { $in: old.map((d) => d._id) } })).deletedCount;
    },
  };
}
