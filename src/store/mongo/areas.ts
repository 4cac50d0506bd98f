/** Areas of a location (../ports/areas.ts); users list theirs in `users.areas`, terminals theirs in `devices.area_id`. */
import type { AreasPort, CountedArea } from '../ports/index.js';
import type { Ids } from './ids.js';
import type { AreaDoc, Collections } from './schema.js';
import { pageOf } from './util.js';

export function mongoAreas(c: Collections, ids: Ids): AreasPort {
  const counted = async (a: AreaDoc | null): Promise<CountedArea | undefined> => {
    if (!a) return undefined;
    const [devices, users] = await Promise.all([
      c.devices.countDocuments({ location_id: a.location_id, area_id: a._id }),
      c.users.countDocuments({ location_id: a.location_id, areas: a._id }),
    ]);
    return {
      id: a._id,
      location_id: a.location_id,
      name: a.name,
      created_at: a.created_at,
      updated_at: a.updated_at ?? null,
      devices_count: devices,
      users_count: users,
    };
  };
  return {
    async create(locationId, name, now) {
      const doc: AreaDoc = { _id: await ids('areas'), location_id: locationId, name, created_at: now, updated_at: null };
      await c.areas.insertOne(doc);
      return (await counted(doc)) as CountedArea;
    },
    async get(locationId, id) {
      return counted(await c.areas.findOne({ _id: id, location_id: locationId }));
    },
    async list(locationId, window) {
      const [total, docs] = await Promise.all([
        c.areas.countDocuments({ location_id: locationId }),
        c.areas.find({ location_id: locationId }, pageOf(window)).sort({ _id: 1 }).toArray(),
      ]);
      return { items: (await Promise.all(docs.map(counted))) as CountedArea[], total };
    },
    async rename(locationId, id, name, now) {
      return counted(
        await c.areas.findOneAndUpdate(
          { _id: id, location_id: locationId },
          { $set: { name, updated_at: now } },
          { returnDocument: 'after' },
        ),
      );
    },
    async delete(locationId, id) {
      const inUse = () => c.devices.countDocuments({ location_id: locationId, area_id: id }, { limit: 1 }).then((n) => n > 0);
      if (await inUse()) return 'in_use';
      const gone = await c.areas.findOneAndDelete({ _id: id, location_id: locationId });
      if (!gone) return 'missing';
      // No transaction: a terminal put in the area between the check and the delete brings it back
      // (the device write checks the area after it, see devices/area.ts: one of the two sees the other).
      if (await inUse()) {
        await c.areas.insertOne(gone);
        return 'in_use';
      }
      await c.users.updateMany({ location_id: locationId, areas: id }, { $pull: { areas: id } });
      return 'deleted';
    },
    async names(locationId) {
      const docs = await c.areas.find({ location_id: locationId }, { projection: { _id: 1, name: 1 } }).toArray();
      return new Map(docs.map((d) => [d._id, d.name]));
    },
    async existing(locationId, list) {
      if (list.length === 0) return [];
      const docs = await c.areas
        .find({ location_id: locationId, _id: { $in: [...new Set(list)] } }, { projection: { _id: 1 } })
        .sort({ _id: 1 })
        .toArray();
      return docs.map((d) => d._id);
    },
  };
}
