/**
 * Door and alarm events [PUSH-v3 §7], sharded on location_id; the unique (location_id, sn, dedup_key)
 * index keeps a re-sent record once. `append` is one unordered bulk of upserts keyed by that triple
 * with `$setOnInsert`: a record seen before matches and changes nothing, a new one is inserted under
 * a fresh id, and only inserted ones are reported new (two nodes storing the same batch at once
 * report each record once: MongoDB retries an upsert that loses the race on a unique index).
 * Ids taken for duplicates stay unused.
 */
import type { Filter } from 'mongodb';
import type { DoorEventsPort, StoredDoorEvent } from '../ports/index.js';
import type { Ids } from './ids.js';
import type { Collections, DoorEventDoc } from './schema.js';
import { pageOf, trimLocation } from './util.js';

const toDoorEvent = ({ _id, dedup_key: _k, feed_event: _f, ...rest }: DoorEventDoc): StoredDoorEvent => ({ id: _id, ...rest });

export function mongoDoorEvents(c: Collections, ids: Ids): DoorEventsPort {
  return {
    async append(events, now, feedEvent) {
      // One per key within the batch too (a terminal may repeat a line in one upload).
      const unique = [...new Map(events.map((e) => [`${e.location_id}\u0000${e.sn}\u0000${e.dedup_key}`, e])).values()];
      if (unique.length === 0) return [];
      const first = await ids('door_events', unique.length);
      const docs = unique.map((e, i): DoorEventDoc => ({
        ...e,
        extra: e.extra && Object.keys(e.extra).length > 0 ? e.extra : null,
        _id: first + i,
        created_at: now,
        ...(feedEvent ? { feed_event: feedEvent } : {}),
      }));
      const result = await c.doorEvents.bulkWrite(
        docs.map(({ location_id, sn, dedup_key, ...fields }) => ({
          updateOne: { filter: { location_id, sn, dedup_key }, update: { $setOnInsert: fields }, upsert: true },
        })),
        { ordered: false },
      );
      return Object.keys(result.upsertedIds)
        .map(Number)
        .sort((x, y) => x - y)
        .map((i) => toDoorEvent(docs[i] as DoorEventDoc));
    },
    async unannounced(limit) {
      const docs = await c.doorEvents
        .find({ feed_event: { $exists: true } })
        .sort({ feed_event: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({ marker: d.feed_event as string, record: toDoorEvent(d) }));
    },
    async list(locationId, filter, window) {
      const query: Filter<DoorEventDoc> = { location_id: locationId };
      if (filter.from) query.timestamp = { $gte: filter.from };
      if (filter.to) query.timestamp = { ...(query.timestamp as object), $lte: filter.to };
      if (filter.sn) query.sn = filter.sn;
      if (filter.type) query.type = filter.type;
      const page = pageOf(window);
      const [total, docs] = await Promise.all([
        c.doorEvents.countDocuments(query),
        page ? c.doorEvents.find(query).sort({ timestamp: -1, _id: -1 }).skip(page.skip).limit(page.limit).toArray() : [],
      ]);
      return { items: docs.map(toDoorEvent), total };
    },
    trim: (locationId, keep, limit) => trimLocation(c.doorEvents, locationId, keep, limit),
    async prune(before, limit) {
      const old = await c.doorEvents
        .find({ timestamp: { $lt: before } }, { projection: { _id: 1 } })
        .limit(limit)
        .toArray();
      if (old.length === 0) return 0;
      const { deletedCount } = await c.doorEvents.deleteMany({ _id: { $in: old.map((d) => d._id) } });
      return deletedCount;
    },
  };
}
