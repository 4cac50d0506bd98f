/**
 * Attendance (sharded on location_id) and its dedup keys (`attendance_keys`, sharded on hashed _id).
 *
 * The dedup key (sn, pin, local_time, status, verify) does not contain the location, so it cannot
 * be a unique index of a collection sharded on location_id. It is the `_id` of a small key document
 * instead, which also records the attendance id the punch got. Without a transaction, `record`
 * runs three idempotent steps, each safe to repeat after a crash:
 *   1. insert the key documents (unordered; a duplicate means the punch was seen before);
 *   2. read the key documents back: each names the attendance id of its punch, ours or earlier;
 *   3. write each punch under that id only if it is missing ($setOnInsert upsert).
 * A crash between 1 and 3 leaves keys without punches; the device was not answered OK, re-sends,
 * and step 3 writes the missing punches then (reported new once). Two nodes storing the same
 * batch at once write each punch once, and only the one whose upsert inserted it reports it new
 * (MongoDB retries an upsert that loses an insert race on `_id` by itself). Ids taken for punches
 * seen before stay unused.
 */
import type { Filter } from 'mongodb';
import type { Attendance, AttendanceFilter, AttendancePort, NewAttendance } from '../ports/index.js';
import type { Ids } from './ids.js';
import type { AttendanceDoc, Collections } from './schema.js';
import { ignoreDuplicates, pageOf, present } from './util.js';

const toAttendance = ({ _id, feed_event: _f, ...rest }: AttendanceDoc): Attendance => ({ id: _id, ...rest });

const dedupKey = (a: NewAttendance) => JSON.stringify([a.sn, a.pin, a.local_time, a.status, a.verify]);

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
  return query;
}

export function mongoAttendance(c: Collections, ids: Ids): AttendancePort {
  return {
    async record(records, now, feedEvent) {
      const byKey = new Map<string, NewAttendance>();
      for (const r of records) if (!byKey.has(dedupKey(r))) byKey.set(dedupKey(r), r);
      if (byKey.size === 0) return [];
      const batch = [...byKey];
      const first = await ids('attendance', batch.length);
      await c.attendanceKeys
        .insertMany(
          batch.map(([key, r], i) => ({ _id: key, location_id: r.location_id, attendance_id: first + i })),
          { ordered: false },
        )
        .catch(ignoreDuplicates);
      const keys = new Map((await c.attendanceKeys.find({ _id: { $in: batch.map(([key]) => key) } }).toArray()).map((k) => [k._id, k]));
      const docs = batch.map(([key, r]): AttendanceDoc => {
        const k = present(keys.get(key), 'attendance key');
        // The outbox marker is in the punch's own document: written with it or not at all.
        return { ...r, _id: k.attendance_id, location_id: k.location_id, created_at: now, ...(feedEvent ? { feed_event: feedEvent } : {}) };
      });
      const result = await c.attendance.bulkWrite(
        docs.map(({ _id, location_id, ...fields }) => ({
          updateOne: { filter: { _id, location_id }, update: { $setOnInsert: fields }, upsert: true },
        })),
        { ordered: false },
      );
      return Object.keys(result.upsertedIds)
        .map(Number)
        .sort((x, y) => x - y)
        .map((i) => toAttendance(docs[i] as AttendanceDoc));
    },
    async unannounced(limit) {
      const docs = await c.attendance
        .find({ feed_event: { $exists: true } })
        .sort({ feed_event: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({ marker: d.feed_event as string, record: toAttendance(d) }));
    },
    async list(locationId, filter, window) {
      const query = queryOf(locationId, filter);
      const page = pageOf(window);
      const [total, docs] = await Promise.all([
        c.attendance.countDocuments(query),
        page ? c.attendance.find(query).sort({ timestamp: -1, _id: -1 }).skip(page.skip).limit(page.limit).toArray() : [],
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
    async prune(before, limit) {
      const old = await c.attendance
        .find({ timestamp: { $lt: before } }, { projection: { _id: 1 } })
        .limit(limit)
        .toArray();
      const gone = old.map((d) => d._id);
      if (gone.length === 0) return 0;
      // Punches first, then their keys: a crash in between leaves keys whose punch a re-upload
      // writes again (step 3 above), as SQLite would, and never a second punch for one key.
      const { deletedCount } = await c.attendance.deleteMany({ _id: { $in: gone } });
      await c.attendanceKeys.deleteMany({ attendance_id: { $in: gone } });
      return deletedCount;
    },
  };
}
