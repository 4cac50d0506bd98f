/**
 * The sync outbox and job state (see ../ports/sync-outbox.ts and ../ports/jobs.ts).
 *
 * Without transactions the outbox entry is written BEFORE the user write it stands for (users.ts):
 * a crash in between leaves an entry for a user that did not change, which the processor turns into
 * a harmless re-sync of the user's current state; the other order could lose the obligation.
 */
import { randomUUID } from 'node:crypto';
import type { JobsPort, OutboxEntry, SyncOutboxPort } from '../ports/index.js';
import type { Collections, OutboxDoc } from './schema.js';
import { mapLimit, PARALLEL, unlessDuplicate } from './util.js';

const keyOf = (locationId: number, pin: number) => `${locationId}:${pin}`;
const toEntry = ({ location_id, pin, rev, since, areas }: OutboxDoc): OutboxEntry => ({
  location_id,
  pin,
  rev,
  since,
  ...(areas && areas.length > 0 ? { areas } : {}),
});

export interface OutboxMarker {
  /**
   * Marks the pins (new revision each); returns the revisions of the entries this call created.
   * `left`: per PIN, the areas the write takes the user out of, added to the entry's (OutboxEntry.areas).
   */
  mark(
    locationId: number,
    pins: readonly number[],
    now: string,
    left?: ReadonlyMap<number, readonly number[]>,
  ): Promise<Map<number, string>>;
  /** Removes entries this call created for users the write left unchanged. */
  unmark(locationId: number, created: ReadonlyMap<number, string>, keep: (pin: number) => boolean): Promise<void>;
}

export function outboxMarker(c: Collections): OutboxMarker {
  return {
    async mark(locationId, pins, now, left) {
      const distinct = [...new Set(pins)];
      const created = new Map<number, string>();
      if (distinct.length === 0) return created;
      const revs = distinct.map(() => randomUUID());
      const r = await c.syncOutbox.bulkWrite(
        distinct.map((pin, i) => ({
          updateOne: {
            filter: { _id: keyOf(locationId, pin) },
            update: {
              $set: { rev: revs[i] as string, since: now },
              $setOnInsert: { location_id: locationId, pin },
              ...(left?.get(pin)?.length ? { $addToSet: { areas: { $each: [...(left.get(pin) as number[])] } } } : {}),
            },
            upsert: true,
          },
        })),
        { ordered: false },
      );
      for (const index of Object.keys(r.upsertedIds)) created.set(distinct[Number(index)] as number, revs[Number(index)] as string);
      return created;
    },
    async unmark(locationId, created, keep) {
      const drop = [...created].filter(([pin]) => !keep(pin));
      if (drop.length === 0) return;
      await c.syncOutbox.bulkWrite(
        drop.map(([pin, rev]) => ({ deleteOne: { filter: { _id: keyOf(locationId, pin), rev } } })),
        { ordered: false },
      );
    },
  };
}

export function mongoSyncOutbox(c: Collections): SyncOutboxPort {
  return {
    async get(locationId, pins) {
      if (pins.length === 0) return [];
      const docs = await c.syncOutbox
        .find({ location_id: locationId, pin: { $in: [...new Set(pins)] } })
        .sort({ pin: 1 })
        .toArray();
      return docs.map(toEntry);
    },
    async due(before, limit) {
      if (limit <= 0) return [];
      return (
        await c.syncOutbox
          .find({ since: { $lte: before } })
          .sort({ since: 1, _id: 1 })
          .limit(limit)
          .toArray()
      ).map(toEntry);
    },
    async done(entries) {
      // One conditional delete per entry: an entry marked again meanwhile (new revision) stays.
      const removed = await mapLimit(
        entries,
        PARALLEL,
        async (e) => (await c.syncOutbox.deleteOne({ _id: keyOf(e.location_id, e.pin), rev: e.rev })).deletedCount === 1,
      );
      return entries.filter((_, i) => !removed[i]);
    },
  };
}

export function mongoJobs(c: Collections): JobsPort {
  return {
    async get(name) {
      const doc = await c.jobs.findOne({ _id: name });
      return doc ? { name: doc._id, mark: doc.mark, updated_at: doc.updated_at } : undefined;
    },
    async advance(name, from, to, now) {
      // Insert for the first mark (the unique _id lets one node win), else a conditional update.
      if (from === null) return (await unlessDuplicate(c.jobs.insertOne({ _id: name, mark: to, updated_at: now }))) !== undefined;
      return (await c.jobs.updateOne({ _id: name, mark: from }, { $set: { mark: to, updated_at: now } })).modifiedCount === 1;
    },
  };
}
