/** Schedules and access levels (../ports/access.ts); a user lists its levels in `users.access_levels`. */
import {
  MAX_SCHEDULES,
  type AccessLevel,
  type AccessLevelsPort,
  type Holiday,
  type HolidaysPort,
  type Schedule,
  type SchedulesPort,
} from '../ports/index.js';
import type { Ids } from './ids.js';
import type { AccessLevelDoc, Collections, HolidayDoc, ScheduleDoc } from './schema.js';
import { isDuplicateKey, pageOf } from './util.js';

const keyOf = (locationId: number, id: number) => `${locationId}:${id}`;
const toSchedule = ({ _id: _key, ...rest }: ScheduleDoc): Schedule => rest;
const toLevel = ({ _id, ...rest }: AccessLevelDoc): AccessLevel => ({ id: _id, ...rest });

export function mongoSchedules(c: Collections): SchedulesPort {
  return {
    async list(locationId) {
      return (await c.schedules.find({ location_id: locationId }).sort({ id: 1 }).toArray()).map(toSchedule);
    },
    async get(locationId, id) {
      const doc = await c.schedules.findOne({ _id: keyOf(locationId, id) });
      return doc ? toSchedule(doc) : undefined;
    },
    async create(locationId, name, days, now) {
      // The lowest free number; the `_id` (location:number) refuses a number another writer took meanwhile.
      for (let attempt = 0; attempt < MAX_SCHEDULES; attempt++) {
        const taken = new Set((await c.schedules.find({ location_id: locationId }, { projection: { id: 1 } }).toArray()).map((d) => d.id));
        let id = 2;
        while (taken.has(id)) id++;
        if (id > MAX_SCHEDULES) return undefined;
        const doc: ScheduleDoc = { _id: keyOf(locationId, id), id, location_id: locationId, name, days, created_at: now, updated_at: null };
        try {
          await c.schedules.insertOne(doc);
          return toSchedule(doc);
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }
      return undefined;
    },
    async update(locationId, id, name, days, now) {
      const doc = await c.schedules.findOneAndUpdate(
        { _id: keyOf(locationId, id) },
        { $set: { name, days, updated_at: now } },
        { returnDocument: 'after' },
      );
      return doc ? toSchedule(doc) : undefined;
    },
    async delete(locationId, id) {
      const inUse = async () => (await c.accessLevels.countDocuments({ location_id: locationId, schedule_id: id }, { limit: 1 })) > 0;
      if (await inUse()) return 'in_use';
      const gone = await c.schedules.findOneAndDelete({ _id: keyOf(locationId, id) });
      if (!gone) return 'missing';
      // No transaction: a level naming it meanwhile brings it back (the level write checks the schedule after it).
      if (await inUse()) {
        await c.schedules.insertOne(gone);
        return 'in_use';
      }
      return 'deleted';
    },
  };
}

export function mongoAccessLevels(c: Collections, ids: Ids): AccessLevelsPort {
  return {
    async list(locationId, window) {
      const [total, docs] = await Promise.all([
        c.accessLevels.countDocuments({ location_id: locationId }),
        c.accessLevels.find({ location_id: locationId }, pageOf(window)).sort({ _id: 1 }).toArray(),
      ]);
      return { items: docs.map(toLevel), total };
    },
    async get(locationId, id) {
      const doc = await c.accessLevels.findOne({ _id: id, location_id: locationId });
      return doc ? toLevel(doc) : undefined;
    },
    async getMany(locationId, list) {
      if (list.length === 0) return [];
      return (
        await c.accessLevels
          .find({ location_id: locationId, _id: { $in: [...new Set(list)] } })
          .sort({ _id: 1 })
          .toArray()
      ).map(toLevel);
    },
    async create(locationId, f, now) {
      const doc: AccessLevelDoc = {
        _id: await ids('access_levels'),
        location_id: locationId,
        ...f,
        doors: [...f.doors],
        created_at: now,
        updated_at: null,
      };
      await c.accessLevels.insertOne(doc);
      return toLevel(doc);
    },
    async update(locationId, id, f, now) {
      const doc = await c.accessLevels.findOneAndUpdate(
        { _id: id, location_id: locationId },
        { $set: { ...f, doors: [...f.doors], updated_at: now } },
        { returnDocument: 'after' },
      );
      return doc ? toLevel(doc) : undefined;
    },
    async delete(locationId, id) {
      const gone = await c.accessLevels.findOneAndDelete({ _id: id, location_id: locationId });
      if (!gone) return undefined;
      const users = await c.users
        .find({ location_id: locationId, access_levels: id }, { projection: { pin: 1 } })
        .sort({ pin: 1 })
        .toArray();
      await c.users.updateMany({ location_id: locationId, access_levels: id }, { $pull: { access_levels: id } });
      return users.map((u) => u.pin);
    },
    async usersOf(locationId, list) {
      if (list.length === 0) return [];
      const docs = await c.users
        .find({ location_id: locationId, access_levels: { $in: [...new Set(list)] } }, { projection: { pin: 1 } })
        .sort({ pin: 1 })
        .toArray();
      return docs.map((d) => d.pin);
    },
  };
}

const toHoliday = ({ _id, ...rest }: HolidayDoc): Holiday => ({ id: _id, ...rest });

export function mongoHolidays(c: Collections, ids: Ids): HolidaysPort {
  return {
    async list(locationId) {
      return (await c.holidays.find({ location_id: locationId }).sort({ start_date: 1, _id: 1 }).toArray()).map(toHoliday);
    },
    async get(locationId, id) {
      const doc = await c.holidays.findOne({ _id: id, location_id: locationId });
      return doc ? toHoliday(doc) : undefined;
    },
    async create(locationId, f, now) {
      const doc: HolidayDoc = { _id: await ids('holidays'), location_id: locationId, ...f, created_at: now, updated_at: null };
      await c.holidays.insertOne(doc);
      return toHoliday(doc);
    },
    async update(locationId, id, f, now) {
      const doc = await c.holidays.findOneAndUpdate(
        { _id: id, location_id: locationId },
        { $set: { ...f, updated_at: now } },
        { returnDocument: 'after' },
      );
      return doc ? toHoliday(doc) : undefined;
    },
    async delete(locationId, id) {
      return (await c.holidays.deleteOne({ _id: id, location_id: locationId })).deletedCount === 1;
    },
  };
}
