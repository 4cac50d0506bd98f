/**
 * Users and assigned terminals per location, kept in `location_counts` beside the collections they count, for what
 * shows them (`users_count` and `devices_count` of GET /api/me and the locations, the total of an unfiltered users
 * list) instead of two `countDocuments` per request. Quotas and the sync outbox count exactly (UsersPort.count,
 * DevicesPort.count): a shown count may lag, a quota may not.
 *
 * A write that adds or removes a user or assigns a terminal bumps its location's document after it (`v` counts the
 * bumps; a new location starts at zero). Without a transaction a crash between the write and its bump leaves the
 * document off: `reconcile` recounts, and stores a different count only when it saw the same difference on its previous
 * round with no bump since (a write whose bump is still on its way differs for one round, never for two with `v`
 * unchanged). A location without a document (created before the counts were kept) is counted and seeded on its first
 * read; a bump before that seed is lost to it and repaired the same way.
 */
import type { Db } from 'mongodb';
import { unlessDuplicate } from './util.js';

export interface LocationCountsDoc {
  _id: number;
  users: number;
  devices: number;
  v: number;
  /** A difference seen by `reconcile`, stored if the next round sees it again at the same `v`. */
  suspect?: { v: number; users: number; devices: number };
}

type Counted = { readonly users: number; readonly devices: number };

export function locationCounts(db: Db) {
  const docs = db.collection<LocationCountsDoc>('location_counts');
  const c = {
    users: db.collection<{ location_id: number }>('users'),
    devices: db.collection<{ location_id: number | null }>('devices'),
    locations: db.collection<{ _id: number }>('locations'),
  };
  const recount = async (id: number): Promise<Counted> => {
    const [users, devices] = await Promise.all([
      c.users.countDocuments({ location_id: id }),
      c.devices.countDocuments({ location_id: id }),
    ]);
    return { users, devices };
  };
  return {
    /** After a write that changed the location's users or assigned terminals by `delta`. */
    async bump(locationId: number | null, field: 'users' | 'devices', delta: number): Promise<void> {
      if (locationId === null || delta === 0) return;
      await docs.updateOne({ _id: locationId }, { $inc: { [field]: delta, v: 1 } });
    },
    /** A new location's document: nothing to count yet. */
    async seed(id: number): Promise<void> {
      await unlessDuplicate(docs.insertOne({ _id: id, users: 0, devices: 0, v: 0 }));
    },
    async read(id: number): Promise<Counted> {
      const doc = await docs.findOne({ _id: id });
      if (doc) return { users: doc.users, devices: doc.devices };
      // A location older than the counts (or none: nothing is kept for an unknown id).
      const counted = await recount(id);
      if ((await c.locations.countDocuments({ _id: id }, { limit: 1 })) > 0)
        await unlessDuplicate(docs.insertOne({ _id: id, ...counted, v: 0 }));
      return counted;
    },
    /** One round over every location with a document: the locations whose counts it corrected. */
    async reconcile(): Promise<number> {
      let fixed = 0;
      for await (const doc of docs.find({})) {
        const counted = await recount(doc._id);
        if (counted.users === doc.users && counted.devices === doc.devices) {
          if (doc.suspect) await docs.updateOne({ _id: doc._id, v: doc.v }, { $unset: { suspect: true } });
          continue;
        }
        const s = doc.suspect;
        const again = s !== undefined && s.v === doc.v && s.users === counted.users && s.devices === counted.devices;
        const r = await docs.updateOne(
          { _id: doc._id, v: doc.v },
          again ? { $set: { ...counted }, $inc: { v: 1 }, $unset: { suspect: true } } : { $set: { suspect: { v: doc.v, ...counted } } },
        );
        if (again && r.modifiedCount > 0) fixed++;
      }
      return fixed;
    },
  };
}

export type LocationCounts = ReturnType<typeof locationCounts>;
