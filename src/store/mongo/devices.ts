/** Devices (unsharded: looked up by serial number; unique serial_number). */
import type { Filter } from 'mongodb';
import { DEVICE_SESSION_FIELDS, type Device, type DeviceBrief, type DevicesPort, type DeviceState } from '../ports/index.js';
import type { Ids } from './ids.js';
import type { LocationCounts } from './location-counts.js';
import type { Collections, DeviceDoc } from './schema.js';
import { containsAny, fromJson, maybe, pageOf, settle, toJson, unlessDuplicate } from './util.js';

const toDevice = ({
  _id,
  options,
  assigned_at,
  state,
  allowed_networks,
  token_bound_at,
  token_bound_address,
  registration_accepted_at,
  area_id,
  door_settings,
  first_contact_at: _firstContact,
  feed_event: _feedEvent,
  feed_location: _feedLocation,
  ...rest
}: DeviceDoc): Device => ({
  id: _id,
  ...rest,
  options: fromJson<Record<string, string>>(options),
  state: fromJson<DeviceState>(state),
  assigned_at: assigned_at ?? null,
  allowed_networks: allowed_networks ?? null,
  token_bound_at: token_bound_at ?? null,
  token_bound_address: token_bound_address ?? null,
  registration_accepted_at: registration_accepted_at ?? null,
  area_id: area_id ?? null,
  doors: door_settings ?? {},
});

/** The outbox marker an operator's change writes, with the location whose feed owes its event. */
const marked = (feedEvent: string | undefined, locationId: number): Pick<DeviceDoc, 'feed_event' | 'feed_location'> =>
  feedEvent === undefined ? {} : { feed_event: feedEvent, feed_location: locationId };

const SESSION_FIELDS = DEVICE_SESSION_FIELDS;

/** DeviceBrief's fields of a device document. */
const BRIEF = { _id: 0, serial_number: 1, location_id: 1, last_seen: 1, assigned_at: 1, area_id: 1 } as const;
const briefOf = (d: Pick<DeviceDoc, 'serial_number' | 'location_id' | 'last_seen' | 'assigned_at' | 'area_id'>): DeviceBrief => ({
  serial_number: d.serial_number,
  location_id: d.location_id ?? null,
  last_seen: d.last_seen ?? null,
  assigned_at: d.assigned_at ?? null,
  area_id: d.area_id ?? null,
});

const defaultName = (sn: string) => `Device ${sn}`;

const blank = (id: number, sn: string, now: string): DeviceDoc => ({
  _id: id,
  serial_number: sn,
  name: defaultName(sn),
  location_id: null,
  registry_code: null,
  session_id: null,
  registered_at: null,
  options: null,
  version: null,
  version_override: null,
  comm_key_hash: null,
  allowed_networks: null,
  token_bound_at: null,
  token_bound_address: null,
  registration_accepted_at: null,
  last_seen: null,
  last_address: null,
  created_at: now,
  updated_at: null,
});

export function mongoDevices(c: Collections, ids: Ids, counts: LocationCounts): DevicesPort {
  const bySerial = async (sn: string) => {
    const doc = await c.devices.findOne({ serial_number: sn });
    return maybe(doc, toDevice);
  };
  /** Records that `sn` was assigned to the location (device_locations; the first time is kept). */
  const seen = (locationId: number, sn: string, now: string) =>
    c.deviceLocations.updateOne(
      { _id: `${locationId}:${sn}` },
      { $setOnInsert: { location_id: locationId, serial_number: sn, first_at: now } },
      { upsert: true },
    );
  return {
    getBySerial: bySerial,
    async get(locationId, sn) {
      const doc = await c.devices.findOne({ serial_number: sn, location_id: locationId });
      return maybe(doc, toDevice);
    },
    async list(locationId, filter, window) {
      const query: Filter<DeviceDoc> = { location_id: locationId };
      if (filter.search) query.$expr = containsAny(filter.search, ['name', 'serial_number']);
      if (filter.online) {
        if (filter.online.value) query.last_seen = { $gte: filter.online.since };
        else query.$or = [{ last_seen: null }, { last_seen: { $lt: filter.online.since } }];
      }
      const page = pageOf(window);
      const [total, docs] = await Promise.all([
        c.devices.countDocuments(query),
        page ? c.devices.find(query).sort({ serial_number: 1 }).skip(page.skip).limit(page.limit).toArray() : [],
      ]);
      return { items: docs.map(toDevice), total };
    },
    async listAssigned(locationId) {
      return (await c.devices.find({ location_id: locationId }).sort({ serial_number: 1 }).toArray()).map(toDevice);
    },
    async briefBySerial(sn) {
      const d = await c.devices.findOne({ serial_number: sn }, { projection: BRIEF });
      return d ? briefOf(d) : undefined;
    },
    async listAssignedBrief(locationId) {
      const docs = await c.devices
        .find(locationId === null ? { location_id: { $ne: null } } : { location_id: locationId }, { projection: BRIEF })
        .sort({ serial_number: 1 })
        .toArray();
      return docs.map(briefOf);
    },
    async count(locationId) {
      return c.devices.countDocuments({ location_id: locationId });
    },
    async countUnassigned() {
      return c.devices.countDocuments({ location_id: null });
    },
    async listUnassigned(window) {
      const page = pageOf(window);
      const [total, docs] = await Promise.all([
        c.devices.countDocuments({ location_id: null }),
        page ? c.devices.find({ location_id: null }).sort({ serial_number: 1 }).skip(page.skip).limit(page.limit).toArray() : [],
      ]);
      return { items: docs.map(toDevice), total };
    },
    ensure(sn, now) {
      // Read first: ensure runs on every new device session, and allocating an id for a device
      // that exists would burn one each time. A concurrent first sighting loses the insert to the
      // unique serial index and reads the winner's record on the next attempt.
      return settle('device ensure', async () => {
        const existing = await bySerial(sn);
        if (existing) return existing;
        const doc = blank(await ids('devices'), sn, now);
        return unlessDuplicate(c.devices.insertOne(doc).then(() => toDevice(doc)));
      });
    },
    claimFirstContact(sn, now) {
      return settle('device first contact', async () => {
        const r = await c.devices.updateOne({ serial_number: sn, first_contact_at: null }, { $set: { first_contact_at: now } });
        return r.modifiedCount === 1;
      });
    },
    assign(locationId, sn, input, now, feedEvent) {
      const set: Partial<DeviceDoc> = { updated_at: now, ...marked(feedEvent, locationId) };
      if (input.name !== null) set.name = input.name;
      if (input.version_override !== undefined) set.version_override = input.version_override;
      if (input.comm_key_hash !== undefined) set.comm_key_hash = input.comm_key_hash;
      if (input.allowed_networks !== undefined) set.allowed_networks = input.allowed_networks === null ? null : [...input.allowed_networks];
      if (input.area_id !== undefined) set.area_id = input.area_id;
      return settle('device assign', async () => {
        // One single-document update conditioned on the owner being this location or nobody, so
        // two locations racing cannot both win. `$min` sets assigned_at when it is absent (an
        // unassigned device has none) and keeps the first time when the device was already ours.
        const before = await c.devices.findOneAndUpdate(
          { serial_number: sn, location_id: { $in: [locationId, null] } },
          { $set: { ...set, location_id: locationId }, $min: { assigned_at: now } },
          { returnDocument: 'before' },
        );
        if (before) {
          const assignedAt = before.assigned_at ?? now;
          const device = toDevice({ ...before, ...set, location_id: locationId, assigned_at: assignedAt < now ? assignedAt : now });
          if (before.location_id === null) {
            await counts.bump(locationId, 'devices', 1);
            await seen(locationId, sn, now);
          }
          return { outcome: before.location_id === null ? ('assigned' as const) : ('already' as const), device };
        }
        // Neither ours nor free: owned by another location, or not recorded yet.
        const taken = await c.devices.findOne({ serial_number: sn, location_id: { $nin: [locationId, null] } });
        if (taken) return { outcome: 'other-location' as const, device: toDevice(taken) };
        // Not recorded (or freed, or first seen by ensure, since the update): create it assigned.
        // If it exists after all, the unique serial index refuses the insert and the next attempt
        // finds it free or ours.
        const doc: DeviceDoc = {
          ...blank(await ids('devices'), sn, now),
          ...set,
          location_id: locationId,
          assigned_at: now,
          updated_at: null,
        };
        return unlessDuplicate(
          c.devices.insertOne(doc).then(async () => {
            await counts.bump(locationId, 'devices', 1);
            await seen(locationId, sn, now);
            return { outcome: 'assigned' as const, device: toDevice(doc) };
          }),
        );
      });
    },
    async seenIn(locationId, sn) {
      return (await c.deviceLocations.countDocuments({ _id: `${locationId}:${sn}` }, { limit: 1 })) > 0;
    },
    async deleteUnassigned(sn) {
      // One conditional delete: a device assigned in between is not deleted.
      const gone = await c.devices.deleteOne({ serial_number: sn, location_id: null });
      if (gone.deletedCount > 0) return 'deleted';
      return (await c.devices.countDocuments({ serial_number: sn }, { limit: 1 })) > 0 ? 'assigned' : 'missing';
    },
    async evictUnassigned(before, limit) {
      const stale: Filter<DeviceDoc> = {
        location_id: null,
        $or: [{ last_seen: { $lt: before } }, { last_seen: null, created_at: { $lt: before } }],
      };
      const ids = (
        await c.devices
          .find(stale, { projection: { _id: 1 } })
          .limit(limit)
          .toArray()
      ).map((d) => d._id);
      if (ids.length === 0) return 0;
      // Conditioned again: a device assigned or seen since the read stays.
      return (await c.devices.deleteMany({ _id: { $in: ids }, ...stale })).deletedCount;
    },
    async unassign(locationId, sn, now, feedEvent) {
      // One conditional update; returnDocument 'before' gives the device as it was, and only to
      // the caller that unassigned it (a repeat finds nothing: idempotent).
      const before = await c.devices.findOneAndUpdate(
        { serial_number: sn, location_id: locationId },
        {
          $set: {
            location_id: null,
            area_id: null,
            door_settings: null,
            comm_key_hash: null,
            allowed_networks: null,
            updated_at: now,
            ...marked(feedEvent, locationId),
          },
          $unset: { assigned_at: '' },
        },
        { returnDocument: 'before' },
      );
      // Devices assigned before device_locations existed are recorded when they leave (SQLite's migration seeds them).
      if (before) {
        await counts.bump(locationId, 'devices', -1);
        await seen(locationId, sn, before.assigned_at ?? now);
      }
      return maybe(before, toDevice);
    },
    async update(locationId, sn, patch, now, feedEvent) {
      const set: Partial<DeviceDoc> = { updated_at: now, ...marked(feedEvent, locationId) };
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.area_id !== undefined) set.area_id = patch.area_id;
      if (patch.doors !== undefined) set.door_settings = { ...patch.doors };
      const before = await c.devices.findOneAndUpdate(
        { serial_number: sn, location_id: locationId },
        { $set: set },
        { returnDocument: 'before' },
      );
      return before ? { before: toDevice(before), after: toDevice({ ...before, ...set }) } : undefined;
    },
    async resetRegistration(locationId, sn, now, feedEvent) {
      const doc = await c.devices.findOneAndUpdate(
        { serial_number: sn, location_id: locationId },
        {
          $set: {
            registry_code: null,
            session_id: null,
            token_bound_at: null,
            token_bound_address: null,
            registration_accepted_at: now,
            updated_at: now,
            ...marked(feedEvent, locationId),
          },
        },
        { returnDocument: 'after' },
      );
      return maybe(doc, toDevice);
    },
    async unannounced(limit) {
      const docs = await c.devices
        .find({ feed_event: { $exists: true } })
        .sort({ feed_event: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({ marker: d.feed_event as string, location_id: d.feed_location as number, record: toDevice(d) }));
    },
    async updateSession(sn, patch, now, marked) {
      const set: Record<string, unknown> = {};
      // A key present with the value undefined is stored as null (the driver's BSON default).
      for (const key of SESSION_FIELDS) if (key in patch) set[key] = key === 'options' || key === 'state' ? toJson(patch[key]) : patch[key];
      if (Object.keys(set).length === 0) return bySerial(sn);
      const doc = await c.devices.findOneAndUpdate(
        { serial_number: sn },
        { $set: { ...set, ...(marked ? { feed_event: marked.feedEvent, feed_location: marked.locationId } : {}), updated_at: now } },
        { returnDocument: 'after' },
      );
      return maybe(doc, toDevice);
    },
    async touchMany(entries) {
      if (entries.length === 0) return;
      // Conditional on the stored last_seen being older, so a late batch never moves it back and,
      // within one batch, the newest entry for a serial wins whatever the order.
      await c.devices.bulkWrite(
        entries.map((e) => ({
          updateOne: {
            filter: { serial_number: e.sn, $or: [{ last_seen: null }, { last_seen: { $lt: e.last_seen } }] },
            update: { $set: { last_seen: e.last_seen, last_address: e.last_address } },
          },
        })),
        { ordered: false },
      );
    },
  };
}
