/**
 * Attendance (sharded on location_id), deduplicated by the unique index `location_dedup_unique`
 * (location_id, sn, local_time, pin, status, verify): it starts with the shard key, so MongoDB can
 * keep it unique on a sharded collection. `record` is one unordered bulk of upserts keyed on the
 * dedup fields, each inserting its punch under an id taken beforehand ($setOnInsert): repeating it
 * after a crash writes only the punches still missing, and only a punch an upsert inserted is
 * reported new. Two nodes storing the same batch at once write each punch once: MongoDB retries an
 * upsert that loses an insert race on a unique index by itself; where a compatible server reports
 * the duplicate instead, that punch is not new. Ids taken for punches seen before stay unused.
 */
import { MongoBulkWriteError, type AnyBulkWriteOperation, type Filter, type Sort } from 'mongodb';
import type { Attendance, AttendanceFilter, AttendanceOrder, AttendancePort, NewAttendance } from '../ports/index.js';
import type { Ids } from './ids.js';
import type { AttendanceDoc, Collections } from './schema.js';
import { isDuplicateKey, pageOf } from './util.js';

const toAttendance = ({ _id, feed_event: _f, source, reason, created_by, voided_at, void_reason, ...rest }: AttendanceDoc): Attendance => ({
  id: _id,
  ...rest,
  source: source ?? 'device',
  reason: reason ?? null,
  created_by: created_by ?? null,
  voided_at: voided_at ?? null,
  void_reason: void_reason ?? null,
});

/** A new record's document fields: a terminal's punch stores none of the manual ones. */
const docFields = ({ manual, ...rest }: NewAttendance) =>
  manual
    ? { ...rest, source: 'manual' as const, reason: manual.reason, created_by: { token_id: manual.token_id, label: manual.label } }
    : rest;

const dedupKey = (a: NewAttendance) => JSON.stringify([a.location_id, a.sn, a.pin, a.local_time, a.status, a.verify]);

/** Upserts one bulk; the indexes of the operations that inserted (a duplicate-key refusal is "seen before"). */
async function upserted(c: Collections, ops: AnyBulkWriteOperation<AttendanceDoc>[]): Promise<number[]> {
  try {
    return Object.keys((await c.attendance.bulkWrite(ops, { ordered: false })).upsertedIds).map(Number);
  } catch (e) {
    if (!(e instanceof MongoBulkWriteError) || !isDuplicateKey(e)) throw e;
    return Object.keys(e.result.upsertedIds).map(Number);
  }
}

/**
 * How long a punch may take from its `created_at` to being readable (one bulk write, plus clock
 * skew between the nodes of a cluster). The cursor feed trails real time by this much on MongoDB.
 */
export const SETTLE_MS = 5_000;

function queryOf(locationId: number, filter: AttendanceFilter): Filter<AttendanceDoc> {
  const query: Filter<AttendanceDoc> = { location_id: locationId };
  if (filter.from) query.timestamp = { $gte: filter.from };
  if (filter.to) query.timestamp = { ...(query.timestamp as object), $lte: filter.to };
  if (filter.pin) query.pin = filter.pin;
  if (filter.sn) query.sn = filter.sn;
  if (filter.after) {
    const after = filter.after;
    query.$or = [{ created_at: { $gt: after.created_at } }, { created_at: after.created_at, _id: { $gt: after.id } }];
  } else if (filter.after_id !== undefined) query._id = { $gt: filter.after_id };
  return query;
}

const MONGO_ORDER: Readonly<Record<AttendanceOrder, Sort>> = {
  newest: { timestamp: -1, _id: -1 },
  arrival: { created_at: 1, _id: 1 },
  '-arrival': { created_at: -1, _id: -1 },
  time: { timestamp: 1, _id: 1 },
  '-time': { timestamp: -1, _id: -1 },
};

export function mongoAttendance(c: Collections, ids: Ids): AttendancePort {
  return {
    async record(records, now, feedEvent) {
      const byKey = new Map<string, NewAttendance>();
      for (const r of records) if (!byKey.has(dedupKey(r))) byKey.set(dedupKey(r), r);
      if (byKey.size === 0) return [];
      const batch = [...byKey.values()];
      const first = await ids('attendance', batch.length);
      // The outbox marker is in the punch's own document: written with it or not at all.
      const docs = batch.map((r, i): AttendanceDoc => ({
        ...docFields(r),
        _id: first + i,
        created_at: now,
        ...(feedEvent ? { feed_event: feedEvent } : {}),
      }));
      const inserted = await upserted(
        c,
        docs.map(({ _id, location_id, sn, local_time, pin, status, verify, ...fields }) => ({
          updateOne: {
            filter: { location_id, sn, local_time, pin, status, verify },
            update: { $setOnInsert: { _id, ...fields } },
            upsert: true,
          },
        })),
      );
      return inserted.sort((x, y) => x - y).map((i) => toAttendance(docs[i] as AttendanceDoc));
    },
    async unannounced(limit) {
      const docs = await c.attendance
        .find({ feed_event: { $exists: true } })
        .sort({ feed_event: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({ marker: d.feed_event as string, record: toAttendance(d) }));
    },
    async list(locationId, filter, window, order = 'newest', now) {
      const query = queryOf(locationId, filter);
      // Arrival order is listAfter's: settled records only, so a write still in flight cannot land behind a page read.
      if ((order === 'arrival' || order === '-arrival' || filter.after) && now)
        query.created_at = { $lte: new Date(Date.parse(now) - SETTLE_MS).toISOString() };
      const page = pageOf(window);
      const [total, docs] = await Promise.all([
        c.attendance.countDocuments(query),
        page ? c.attendance.find(query).sort(MONGO_ORDER[order]).skip(page.skip).limit(page.limit).toArray() : [],
      ]);
      return { items: docs.map(toAttendance), total };
    },
    async listAfter(locationId, after, filter, limit, now) {
      // Ids come in per-node blocks and are taken before the write: order by arrival time, and
      // leave out the last SETTLE_MS, so a punch written a moment late cannot land behind a cursor.
      const settled = new Date(Date.parse(now) - SETTLE_MS).toISOString();
      const query = queryOf(locationId, filter);
      query.created_at = { $lte: settled };
      if (after) {
        query.$or = [{ created_at: { $gt: after.created_at } }, { created_at: after.created_at, _id: { $gt: after.id } }];
      }
      const docs = await c.attendance.find(query).sort({ created_at: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toAttendance);
    },
    async count(locationId, filter, max, now) {
      const query = queryOf(locationId, filter);
      query.created_at = { $lte: new Date(Date.parse(now) - SETTLE_MS).toISOString() };
      return c.attendance.countDocuments(query, { limit: max });
    },
    async get(locationId, id) {
      const doc = await c.attendance.findOne({ _id: id, location_id: locationId });
      return doc ? toAttendance(doc) : undefined;
    },
    async voidRecord(locationId, id, reason, at) {
      const doc = await c.attendance.findOneAndUpdate(
        { _id: id, location_id: locationId, voided_at: { $exists: false } },
        { $set: { voided_at: at, void_reason: reason } },
        { returnDocument: 'after' },
      );
      if (doc) return toAttendance(doc);
      return (await c.attendance.countDocuments({ _id: id, location_id: locationId }, { limit: 1 })) > 0 ? 'voided' : undefined;
    },
    async prune(before, limit) {
      const old = await c.attendance
        .find({ timestamp: { $lt: before } }, { projection: { _id: 1 } })
        .limit(limit)
        .toArray();
      const gone = old.map((d) => d._id);
      if (gone.length === 0) return 0;
      const { deletedCount } = await c.attendance.deleteMany({ _id: { $in: gone } });
      return deletedCount;
    },
  };
}
