/**
 * The cluster port on MongoDB (see ClusterPort in ../ports/cluster.ts): what several BioGate nodes on one
 * database share.
 *
 * - `events`: the feed. A location's next sequence number comes from an atomic `$inc` on its
 *   `event_seqs` document, then the event is inserted; a crash in between leaves a gap, which the
 *   feed skips after a short wait (src/events/feed-lanes.ts). Other nodes see inserts through a change
 *   stream, which needs a replica set; on a standalone server `watchEvents` reports the refusal and
 *   the node runs alone.
 * - `leases`: one document per singleton job, taken when free, expired or already ours.
 * - `owner_node`, `lease_until`, `presence` on the device documents.
 *
 * Sharding: `events` shards on `location_id` (its unique key starts with it); `event_seqs` and
 * `leases` are small and stay unsharded, like `counters`.
 */
import { MongoBulkWriteError, type ChangeStream, type ChangeStreamInsertDocument, type Collection, type Db } from 'mongodb';
import {
  EVENT_PRUNE_BATCH,
  oneLocation,
  prunablePrefix,
  type ClusterPort,
  type DeviceLease,
  type OutboxSettle,
  type OutboxTable,
  type StoredEvent,
} from '../ports/index.js';
import { isDuplicateKey } from './util.js';

interface EventDoc {
  _id: string;
  location_id: number;
  seq: number;
  type: string;
  at: string;
  node: string;
  data: unknown;
}
interface SeqDoc {
  _id: number;
  seq: number;
}
interface LeaseDoc {
  _id: string;
  owner_node: string;
  lease_until: string;
}
/** The fields of a device document this port reads and writes (the rest belongs to devices.ts). */
interface DeviceLeaseDoc {
  serial_number: string;
  location_id: number | null;
  last_seen: string | null;
  owner_node?: string | null;
  lease_until?: string | null;
  presence?: 'online' | 'offline' | null;
  /** The outbox marker of the last presence change's event, and when, until it is stored. */
  presence_event?: string;
  presence_at?: string;
}

/** The outbox field of a row of any OutboxTable. */
interface OutboxRow {
  _id: number;
  feed_event?: string;
}

/** Where the outbox rows of each table live (./schema.ts). */
const OUTBOX_COLLECTION: Readonly<Record<OutboxTable, string>> = {
  attendance: 'attendance',
  door_events: 'door_events',
  commands: 'commands',
  devices: 'devices',
};

const toEvent = (d: EventDoc): StoredEvent => ({
  id: d._id,
  seq: d.seq,
  location_id: d.location_id,
  type: d.type,
  at: d.at,
  node: d.node,
  data: d.data,
});
const toLease = (d: DeviceLeaseDoc): DeviceLease => ({
  owner_node: d.owner_node ?? null,
  lease_until: d.lease_until ?? null,
  presence: d.presence ?? null,
});
const LEASE_FIELDS = { owner_node: 1, lease_until: 1, presence: 1 } as const;

export async function mongoCluster(db: Db): Promise<ClusterPort> {
  const events: Collection<EventDoc> = db.collection('events');
  const seqs: Collection<SeqDoc> = db.collection('event_seqs');
  const leases: Collection<LeaseDoc> = db.collection('leases');
  const devices: Collection<DeviceLeaseDoc> = db.collection('devices');
  await events.createIndexes([
    { name: 'location_seq_unique', key: { location_id: 1, seq: 1 }, unique: true },
    { name: 'at', key: { at: 1 } },
  ]);
  await devices.createIndexes([
    { name: 'presence_last_seen', key: { presence: 1, last_seen: 1 } },
    { name: 'presence_event', key: { presence_event: 1, presence_at: 1 }, sparse: true },
  ]);

  /** Takes `n` sequence numbers of a location; returns the last of them. */
  const takeSeqs = async (locationId: number, n: number): Promise<number> => {
    // Two nodes may both try to create a location's first sequence document; the loser retries.
    for (;;) {
      try {
        const doc = await seqs.findOneAndUpdate({ _id: locationId }, { $inc: { seq: n } }, { upsert: true, returnDocument: 'after' });
        if (doc) return doc.seq;
      } catch (e) {
        if (!isDuplicateKey(e)) throw e;
      }
    }
  };

  /**
   * Stores one location's events under its next seqs. `outbox`: ids of outbox events, which another
   * node may store at the same moment (both sweeping): such an id found stored already is left out
   * (its seq a gap) and the rest of the batch still goes in.
   */
  const insertEvents = async (batch: readonly Omit<StoredEvent, 'seq'>[], outbox: ReadonlySet<string>): Promise<StoredEvent[]> => {
    const last = await takeSeqs(oneLocation(batch), batch.length);
    const stored = batch.map((e, i) => ({ ...e, seq: last - batch.length + 1 + i }));
    const taken = new Set<string>();
    // Ordered: a failure part-way leaves a prefix stored and the rest as a gap the feed skips
    // (the same as a node dying between taking its seqs and writing).
    for (let rest = stored; rest.length > 0;) {
      try {
        await events.insertMany(
          rest.map((e) => ({ _id: e.id, location_id: e.location_id, seq: e.seq, type: e.type, at: e.at, node: e.node, data: e.data })),
          { ordered: true },
        );
        break;
      } catch (e) {
        const at = e instanceof MongoBulkWriteError && isDuplicateKey(e) ? [e.writeErrors].flat()[0]?.index : undefined;
        const dup = at === undefined ? undefined : rest[at];
        if (at === undefined || !dup || !outbox.has(dup.id)) throw e;
        taken.add(dup.id);
        rest = rest.slice(at + 1);
      }
    }
    return taken.size === 0 ? stored : stored.filter((e) => !taken.has(e.id));
  };

  /**
   * Events of marked settles (OutboxSettle.marker) none of whose rows carries a marker any more: that
   * event, or a newer one of the same rows, was stored before (as on SQLite); not stored again.
   */
  const settledBefore = async (settle: readonly OutboxSettle[]): Promise<Set<string>> => {
    const gone = new Set<string>();
    for (const table of new Set(settle.filter((s) => s.marker !== undefined).map((s) => s.table))) {
      const marked = settle.filter((s) => s.table === table && s.marker !== undefined);
      const carrying = new Set(
        (
          await db
            .collection<OutboxRow>(OUTBOX_COLLECTION[table])
            .find({ _id: { $in: marked.flatMap((s) => [...s.ids]) }, feed_event: { $exists: true } }, { projection: { _id: 1 } })
            .toArray()
        ).map((d) => d._id),
      );
      for (const s of marked) if (!s.ids.some((id) => carrying.has(id))) gone.add(s.event);
    }
    return gone;
  };

  return {
    async appendEvents(all, settle = []) {
      // With outbox rows: an event a sweep offers again after a crash between the insert and the
      // markers' clearing is already stored under its id; it is not stored twice.
      const present =
        settle.length === 0 || all.length === 0
          ? new Set<string>()
          : new Set((await events.find({ _id: { $in: all.map((e) => e.id) } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
      const gone = all.length === 0 ? new Set<string>() : await settledBefore(settle);
      const batch = all.filter((e) => !present.has(e.id) && !gone.has(e.id));
      const stored = batch.length === 0 ? [] : await insertEvents(batch, new Set(settle.map((s) => s.event)));
      // After the events: a crash in between leaves the markers, and the sweep finds the events stored.
      // One unordered bulk write per collection, one update per marker (a batch of sync ops shares its write's).
      for (const table of new Set(settle.map((s) => s.table))) {
        const byMarker = new Map<string | undefined, number[]>();
        for (const s of settle) {
          if (s.table !== table || s.ids.length === 0) continue;
          const ids = byMarker.get(s.marker);
          if (ids) ids.push(...s.ids);
          else byMarker.set(s.marker, [...s.ids]);
        }
        const ops = [...byMarker].map(([marker, ids]) => ({
          updateMany: {
            // With its marker: only rows still carrying it (a row written again since owes the newer event).
            filter: { _id: { $in: ids }, ...(marker === undefined ? {} : { feed_event: marker }) },
            update: { $unset: { feed_event: '' as const } },
          },
        }));
        if (ops.length > 0) await db.collection<OutboxRow>(OUTBOX_COLLECTION[table]).bulkWrite(ops, { ordered: false });
      }
      return stored;
    },
    async eventsAfter(locationId, after, limit) {
      return (
        await events
          .find({ location_id: locationId, seq: { $gt: after } })
          .sort({ seq: 1 })
          .limit(limit)
          .toArray()
      ).map(toEvent);
    },
    async latestSeqs() {
      return new Map((await seqs.find({}).toArray()).map((d) => [d._id, d.seq]));
    },
    async pruneEvents(before, keep, options = {}) {
      const limit = options.limit ?? EVENT_PRUNE_BATCH;
      let deleted = 0;
      for (const { _id: locationId, seq } of await seqs.find({}).toArray()) {
        if (deleted >= limit) break;
        if (seq <= keep) continue;
        // A bounded read and a bounded delete on the (location_id, seq) index, as on SQLite.
        const rows = await events
          .find({ location_id: locationId, seq: { $lte: seq - keep } }, { projection: { seq: 1, at: 1 } })
          .sort({ seq: 1 })
          .limit(limit - deleted)
          .toArray();
        const last = prunablePrefix(rows, before, options.holds?.get(locationId), options.hardBefore);
        if (last !== null) deleted += (await events.deleteMany({ location_id: locationId, seq: { $lte: last } })).deletedCount;
      }
      return deleted;
    },
    async watchEvents(onEvent, onError) {
      const stream: ChangeStream<EventDoc, ChangeStreamInsertDocument<EventDoc>> = events.watch([{ $match: { operationType: 'insert' } }]);
      stream.on('change', (change) => onEvent(toEvent(change.fullDocument)));
      stream.on('error', onError);
      return { close: () => stream.close() };
    },
    async acquireLease(name, node, now, until) {
      try {
        // No match (held by another node, still valid) → the upsert's insert collides on _id: not ours.
        await leases.updateOne(
          { _id: name, $or: [{ owner_node: node }, { lease_until: { $lt: now } }] },
          { $set: { owner_node: node, lease_until: until } },
          { upsert: true },
        );
        return true;
      } catch (e) {
        if (isDuplicateKey(e)) return false;
        throw e;
      }
    },
    async releaseLease(name, node) {
      await leases.deleteOne({ _id: name, owner_node: node });
    },
    async claimDevice(sn, node, until) {
      const before = await devices.findOneAndUpdate(
        { serial_number: sn },
        { $set: { owner_node: node, lease_until: until } },
        { returnDocument: 'before', projection: LEASE_FIELDS },
      );
      return before ? toLease(before) : undefined;
    },
    async deviceLease(sn) {
      const d = await devices.findOne({ serial_number: sn }, { projection: LEASE_FIELDS });
      return d ? toLease(d) : undefined;
    },
    async setPresence(sn, to, marker, now) {
      const update =
        marker === undefined
          ? { $set: { presence: to }, $unset: { presence_event: '' as const, presence_at: '' as const } }
          : { $set: { presence: to, presence_event: marker, presence_at: now ?? new Date().toISOString() } };
      return (await devices.updateOne({ serial_number: sn, presence: { $ne: to } }, update)).modifiedCount === 1;
    },
    async owePresence(sn, marker, now) {
      const update = { $set: { presence_event: marker, presence_at: now } };
      return (await devices.updateOne({ serial_number: sn, presence: 'online' }, update)).matchedCount === 1;
    },
    async presenceAnnounced(sn, marker) {
      await devices.updateOne({ serial_number: sn, presence_event: marker }, { $unset: { presence_event: '', presence_at: '' } });
    },
    async unannouncedPresence(before, limit) {
      const docs = await devices
        .find(
          { presence_event: { $exists: true }, presence_at: { $lt: before } },
          { projection: { serial_number: 1, location_id: 1, presence: 1, presence_event: 1, presence_at: 1 } },
        )
        .sort({ presence_at: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({
        sn: d.serial_number,
        location_id: d.location_id ?? null,
        presence: d.presence === 'online' ? ('online' as const) : ('offline' as const),
        marker: d.presence_event as string,
        at: d.presence_at as string,
      }));
    },
    async staleOnline(before, now, limit) {
      const docs = await devices
        .find(
          {
            presence: 'online',
            $and: [
              { $or: [{ last_seen: null }, { last_seen: { $lt: before } }] },
              { $or: [{ lease_until: null }, { lease_until: { $exists: false } }, { lease_until: { $lt: now } }] },
            ],
          },
          { projection: { serial_number: 1, location_id: 1 } },
        )
        .sort({ last_seen: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({ sn: d.serial_number, location_id: d.location_id ?? null }));
    },
  };
}
