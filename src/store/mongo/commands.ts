/**
 * Commands (sharded on location_id). Ports without a location key (the device mailbox: pending,
 * claim, finish, …) address commands by serial number or id; in a sharded cluster those are
 * broadcast queries, answered by the `mailbox` and `_id` indexes on every shard.
 */
import type { Collection, Filter } from 'mongodb';
import { ATTEMPT_SUPERSEDED, SYNC_SUPERSEDED as SUPERSEDED, type Command, type CommandStatus, type CommandsPort, type NewCommand } from '../types.js';
import { catchUp, isIdCollision, type Ids } from './ids.js';
import type { CommandDoc, Collections } from './schema.js';
import { lastSyncedElsewhere } from '../sync-history.js';
import { fromJson, mapLimit, maybe, pageOf, PARALLEL, settle, toJson, unlessDuplicate } from './util.js';


const toCommand = ({ _id, params, result, idem: _idem, sync_slot: _slot, composite: _composite, group_id, ...rest }: CommandDoc): Command => ({
  id: _id, ...rest, group_id: group_id ?? null, params: fromJson<Record<string, unknown>>(params), result: fromJson<unknown>(result),
});

/** Members of a group, the composite record itself left out. */
const members = (groupId: number) => ({ group_id: groupId, composite: { $ne: true as const } });
/** Commands a device may be sent (composites never are). */
const deliverable = { parent_id: null, composite: { $ne: true as const } };

/** The slot value of a command that holds no key: unique because the id is. */
const own = (id: number) => `#${id}`;

/** See CommandDoc.idem: one command per (location, token, key). */
const idemKey = (tokenId: number | null, key: string) => `k:${tokenId ?? '-'}:${key}`;

function newDoc(id: number, c: NewCommand, now: string): CommandDoc {
  const syncKey = c.sync_key ?? null;
  const key = c.idempotency_key ?? null;
  const tokenId = c.created_by_token_id ?? null;
  return {
    _id: id, location_id: c.location_id, sn: c.sn, command: c.command, params: toJson(c.params), priority: c.priority, origin: c.origin,
    status: 'pending', response: null, error_message: null, result: null, sent_at: null, acknowledged_at: null, expires_at: c.expires_at,
    sync_key: syncKey, attempts: 0, parent_id: c.parent_id ?? null, wire: null, created_by_token_id: tokenId, idempotency_key: key,
    group_id: c.composite ? id : (c.group_id ?? null), ...(c.composite ? { composite: true as const } : {}),
    created_at: now, updated_at: null,
    idem: key === null ? own(id) : idemKey(tokenId, key),
    sync_slot: syncKey ?? own(id),
  };
}

/** The fields a coalesced sync op takes from the newer one. */
const replacement = (op: NewCommand) => ({ command: op.command, params: op.params, priority: op.priority, expires_at: op.expires_at });

export function mongoCommands(c: Collections, ids: Ids): CommandsPort {
  /** Leaves `pending` for a final status in one conditional update, releasing the sync slot. */
  const failPending = (id: number, message: string, now: string) =>
    c.commands.findOneAndUpdate({ _id: id, status: 'pending' }, { $set: { status: 'failed', error_message: message, updated_at: now, sync_slot: own(id) } }, { returnDocument: 'after' });

  /**
   * One sync op: replace the pending op that holds its (location, sn, sync_key) slot, else insert
   * it holding the slot. Both are single-document writes, and the claim that moves the op to
   * `sent` releases the slot in its own single update, so they serialise per document: the replace
   * lands while the op is pending (the claim then takes the replaced op) or after the claim (no
   * pending op holds the slot, a new op is inserted); a change never goes into an op already sent.
   * Why not one updateOne({sn, sync_key, status: 'pending'}, …, {upsert: true})? Without a unique
   * index two concurrent upserts may both insert (duplicates), and on servers that ignore partial
   * indexes no "unique while pending" index exists; the slot field gives that index everywhere.
   * Against a concurrent enqueue of the same key, the unique slot index lets one insert win; the
   * loser's next attempt replaces the winner's op.
   */
  const enqueueOne = (op: NewCommand, first: number, now: string) => {
    let id = first;
    return settle('sync enqueue', async () => {
      if (op.sync_key) {
        const { params, ...rest } = replacement(op);
        const slot = { location_id: op.location_id, sn: op.sn, sync_slot: op.sync_key, status: 'pending' as const };
        const set = { ...rest, params: toJson(params), updated_at: now };
        // The replaced op keeps its group, or joins this op's group when it had none.
        if (op.group_id != null && (await c.commands.updateOne({ ...slot, group_id: null }, { $set: { ...set, group_id: op.group_id } })).matchedCount > 0) return 'replaced' as const;
        const r = await c.commands.updateOne(slot, { $set: set });
        if (r.matchedCount > 0) return 'replaced' as const;
      }
      const doc = newDoc(id, op, now);
      return c.commands.insertOne(doc).then(
        () => doc,
        async (e: unknown) => {
          // A taken _id is not a lost race for the slot: retrying the same id would fail forever.
          // Move the counter past the collection and take a fresh id.
          if (isIdCollision(e)) {
            await catchUp(c.counters, c.commands as unknown as Collection<{ _id: number }>, 'commands');
            id = await ids('commands');
            return undefined;
          }
          return unlessDuplicate(Promise.reject(e));
        },
      );
    });
  };

  /** Per command (the slot to release is per document); each write is idempotent, and a crash midway leaves the rest pending for the next call. */
  const failEach = async (filter: Filter<CommandDoc>, message: string, now: string): Promise<Command[]> => {
    const candidates = await c.commands.find(filter, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray();
    const failed = await mapLimit(candidates, PARALLEL, (d) => failPending(d._id, message, now));
    return failed.filter((d): d is NonNullable<typeof d> => d !== null).map(toCommand);
  };

  /** Child lines of an attempt that will not be answered any more (requeue, retry, unclaim). */
  const supersedeChildren = (parentId: number, now: string) =>
    c.commands.updateMany(
      { parent_id: parentId, status: { $in: ['pending', 'sent'] } },
      { $set: { status: 'failed', error_message: ATTEMPT_SUPERSEDED, updated_at: now } },
    );

  return {
    async create(input, now) {
      // The unique (location_id, idem) index refuses a second command with the same idempotency key.
      // A composite's group is its own id, set in the same insert.
      const doc = newDoc(await ids('commands'), input, now);
      await c.commands.insertOne(doc);
      return toCommand(doc);
    },
    async enqueueSync(ops, now) {
      if (ops.length === 0) return { created: 0, replaced: 0, inserted: [] };
      // One block of ids for the batch, by input position, so queue order (id asc within a
      // priority) is the caller's order whatever order the parallel writes finish in. Ops for the
      // same slot are merged first (the later one's params win, as if applied in turn); the ids of
      // merged and replaced ops are left unused.
      const first = await ids('commands', ops.length);
      const bySlot = new Map<string, { op: NewCommand; id: number }>();
      const distinct: { op: NewCommand; id: number }[] = [];
      let merged = 0;
      ops.forEach((op, i) => {
        const slot = op.sync_key ? JSON.stringify([op.location_id, op.sn, op.sync_key]) : undefined;
        const earlier = slot === undefined ? undefined : bySlot.get(slot);
        if (earlier) {
          earlier.op = { ...earlier.op, ...replacement(op) };
          merged++;
          return;
        }
        const entry = { op, id: first + i };
        distinct.push(entry);
        if (slot !== undefined) bySlot.set(slot, entry);
      });
      const outcomes = await mapLimit(distinct, PARALLEL, (e) => enqueueOne(e.op, e.id, now));
      const inserted = outcomes.flatMap((o) => (o === 'replaced' ? [] : [toCommand(o)]));
      return { created: inserted.length, replaced: merged + outcomes.length - inserted.length, inserted };
    },
    async get(locationId, id) {
      return maybe(await c.commands.findOne({ _id: id, location_id: locationId, parent_id: null }), toCommand);
    },
    async getById(id) {
      return maybe(await c.commands.findOne({ _id: id }), toCommand);
    },
    async findByIdempotencyKey(locationId, tokenId, key) {
      return maybe(await c.commands.findOne({ location_id: locationId, idem: idemKey(tokenId, key) }), toCommand);
    },
    async list(locationId, filter, window) {
      const query: Filter<CommandDoc> = { location_id: locationId, parent_id: null };
      if (filter.sn) query.sn = filter.sn;
      if (filter.status) query.status = filter.status;
      if (filter.command) query.command = filter.command;
      if (filter.since) query.created_at = { $gte: filter.since };
      const page = pageOf(window);
      const [total, docs] = await Promise.all([
        c.commands.countDocuments(query),
        page ? c.commands.find(query).sort({ _id: -1 }).skip(page.skip).limit(page.limit).toArray() : [],
      ]);
      return { items: docs.map(toCommand), total };
    },
    async pending(sn, limit) {
      if (limit <= 0) return [];
      // Queue order: priority, then when queued. Not the id: several nodes take ids in blocks
      // (ids.ts), so a command queued later on another node may have the smaller id.
      const docs = await c.commands.find({ sn, status: 'pending', ...deliverable }).sort({ priority: -1, created_at: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toCommand);
    },
    async sentOf(locationId, sn, command, limit) {
      // The mailbox index (sn, status, …) narrows to the device's sent commands, a handful.
      const docs = await c.commands.find({ sn, status: 'sent', command, parent_id: null, location_id: locationId }).sort({ sent_at: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toCommand);
    },
    async countPending(sn, origin) {
      return c.commands.countDocuments({ sn, status: 'pending', ...deliverable, ...(origin === undefined ? {} : { origin }) });
    },
    async claim(claimIds, wire, now) {
      // Atomic pending → sent per command ({_id, status: 'pending'}): of several nodes claiming the
      // same id exactly one matches. Sent releases the sync slot, so a later change queues a new op.
      const won = await mapLimit(claimIds, PARALLEL, async (id) => {
        const r = await c.commands.updateOne(
          { _id: id, status: 'pending' },
          { $set: { status: 'sent', sent_at: now, wire: wire.get(id) ?? null, updated_at: now, sync_slot: own(id) } },
        );
        return r.modifiedCount === 1;
      });
      return claimIds.filter((_, i) => won[i]);
    },
    async finish(id, outcome, now) {
      const set = {
        status: outcome.status, response: outcome.response ?? null, error_message: outcome.error_message ?? null,
        result: toJson(outcome.result), updated_at: now, sync_slot: own(id),
      };
      // Two conditional updates instead of one conditional expression (no update pipelines on
      // every server): a sent command is acknowledged now; a pending one fails before dispatch and
      // is never acknowledged. Sent is tried first: if a claim turns pending into sent between the
      // two, both miss and the caller learns the command is no longer finishable as pending (a
      // cancel that lost to delivery).
      const acked = await c.commands.findOneAndUpdate({ _id: id, status: 'sent' }, { $set: { ...set, acknowledged_at: now } }, { returnDocument: 'after' });
      if (acked) return toCommand(acked);
      return maybe(await c.commands.findOneAndUpdate({ _id: id, status: 'pending' }, { $set: set }, { returnDocument: 'after' }), toCommand);
    },
    async failPendingFor(sn, message, now) {
      return failEach({ sn, status: 'pending' }, message, now);
    },
    async failIfPending(id, message, now) {
      return maybe(await failPending(id, message, now), toCommand);
    },
    async unclaim(claimIds, sentAt, now) {
      const back = await mapLimit(claimIds, PARALLEL, async (id) => {
        const doc = await c.commands.findOne({ _id: id, status: 'sent', sent_at: sentAt });
        if (!doc) return null;
        // Takes the sync slot back like requeue; a newer pending op holding it means this one is superseded.
        const r = await unlessDuplicate(
          c.commands.findOneAndUpdate(
            { _id: id, status: 'sent', sent_at: sentAt },
            { $set: { status: 'pending', sent_at: null, ...(doc.composite ? {} : { result: null }), response: null, updated_at: now, sync_slot: doc.sync_key ?? own(id) } },
            { returnDocument: 'after' },
          ),
        );
        const out = r === undefined
          ? await c.commands.findOneAndUpdate({ _id: id, status: 'sent' }, { $set: { status: 'failed', error_message: SUPERSEDED, updated_at: now } }, { returnDocument: 'after' })
          : r;
        if (out) await supersedeChildren(id, now);
        return out;
      });
      return back.filter((d): d is NonNullable<typeof d> => d !== null && d.status === 'pending').map(toCommand);
    },
    async groupOutstanding(groupId) {
      return (await c.commands.findOne({ ...members(groupId), status: { $in: ['pending', 'sent'] } }, { projection: { _id: 1 } })) !== null;
    },
    async groupCounts(groupId) {
      const rows = await c.commands
        .aggregate<{ _id: { status: CommandStatus; superseded: boolean }; n: number }>([
          { $match: members(groupId) },
          { $group: { _id: { status: '$status', superseded: { $eq: ['$error_message', SUPERSEDED] } }, n: { $sum: 1 } } },
        ])
        .toArray();
      const out = { pending: 0, sent: 0, success: 0, failed: 0, superseded: 0 };
      for (const r of rows) {
        out[r._id.status] += r.n;
        if (r._id.superseded) out.superseded += r.n;
      }
      return out;
    },
    async failGroupPending(groupId, message, now) {
      return failEach({ ...members(groupId), status: 'pending' }, message, now);
    },
    async expire(now) {
      const candidates = await c.commands.find({ status: 'pending', expires_at: { $lte: now } }, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray();
      const failed = await mapLimit(candidates, PARALLEL, (d) => failPending(d._id, 'expired before delivery', now));
      return failed.filter((d): d is NonNullable<typeof d> => d !== null).map(toCommand);
    },
    async sentBefore(cutoff, limit) {
      if (limit <= 0) return [];
      const docs = await c.commands.find({ status: 'sent', sent_at: { $lt: cutoff }, parent_id: null }).sort({ sent_at: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toCommand);
    },
    async requeue(id, now) {
      const current = await c.commands.findOne({ _id: id, status: 'sent' });
      if (!current) return undefined;
      // sent → pending takes the (sn, sync_key) slot back so later changes coalesce into it. When a
      // newer pending op already holds the slot (queued after this one was sent), the unique index
      // refuses the write: that op carries the change, and this one is superseded instead. Sent
      // again otherwise: an op renders the user's state at dispatch, so a late re-run undoes nothing.
      const requeued = await unlessDuplicate(
        c.commands.findOneAndUpdate(
          { _id: id, status: 'sent' },
          { $set: { status: 'pending', sent_at: null, result: null, response: null, updated_at: now, sync_slot: current.sync_key ?? own(id) }, $inc: { attempts: 1 } },
          { returnDocument: 'after' },
        ),
      );
      const doc = requeued === undefined
        ? await c.commands.findOneAndUpdate({ _id: id, status: 'sent' }, { $set: { status: 'failed', error_message: SUPERSEDED, updated_at: now } }, { returnDocument: 'after' })
        : requeued;
      if (doc) await supersedeChildren(id, now);
      return maybe(doc, toCommand);
    },
    async children(parentId) {
      return (await c.commands.find({ parent_id: parentId }).sort({ _id: 1 }).toArray()).map(toCommand);
    },
    async progress(id, progress, now) {
      const set: Record<string, unknown> = { result: toJson(progress.result), updated_at: now };
      if (progress.response !== undefined) set['response'] = progress.response;
      const doc = await c.commands.findOneAndUpdate({ _id: id, $or: [{ status: 'sent' }, { composite: true, status: 'pending' }] }, { $set: set }, { returnDocument: 'after' });
      return maybe(doc, toCommand);
    },
    async retry(id, wire, now) {
      // sent → pending; API commands hold no sync key, so their slot is their own id.
      const doc = await c.commands.findOneAndUpdate(
        { _id: id, status: 'sent' },
        { $set: { status: 'pending', wire, updated_at: now, sync_slot: own(id) }, $inc: { attempts: 1 } },
        { returnDocument: 'after' },
      );
      if (doc) await supersedeChildren(id, now);
      return maybe(doc, toCommand);
    },
    async syncedPinsElsewhere(sn, locationId) {
      // Once per assignment, by serial number: a broadcast query in a sharded cluster (see the header).
      const docs = await c.commands
        .find({ sn, origin: 'sync', status: 'success', parent_id: null }, { projection: { location_id: 1, params: 1 } })
        .sort({ _id: 1 })
        .toArray();
      return lastSyncedElsewhere(
        docs.map((d) => {
          const p = fromJson<Record<string, unknown>>(d.params) ?? {};
          return { location_id: d.location_id, pin: p['pin'], op: p['op'] };
        }),
        locationId,
      );
    },
    async prune(before, limit) {
      const old = await c.commands
        .find({ status: { $in: ['success', 'failed'] }, parent_id: null, updated_at: { $lt: before } }, { projection: { _id: 1 } })
        .limit(limit)
        .toArray();
      const ids = old.map((d) => d._id);
      if (ids.length === 0) return 0;
      // Children first: a crash in between leaves parents that the next sweep removes, never orphans.
      await c.commands.deleteMany({ parent_id: { $in: ids } });
      await c.commands.deleteMany({ _id: { $in: ids } });
      return ids.length;
    },
    async countByStatus() {
      const out: Record<CommandStatus, number> = { pending: 0, sent: 0, success: 0, failed: 0 };
      const rows = await c.commands.aggregate<{ _id: CommandStatus; n: number }>([{ $match: { parent_id: null } }, { $group: { _id: '$status', n: { $sum: 1 } } }]).toArray();
      for (const r of rows) out[r._id] = r.n;
      return out;
    },
  };
}
