/**
 * Commands (sharded on location_id). Ports without a location key (the device mailbox: pending,
 * claim, finish, …) address commands by serial number or id; in a sharded cluster those are
 * broadcast queries, answered by the `mailbox` and `_id` indexes on every shard. The adapter gives
 * inserts, reads and the compare-and-set primitives (ports/command-records.ts); the transition
 * methods are store/commands.ts's.
 */
import type { Collection, Filter, UpdateFilter } from 'mongodb';
import { commandsPort } from '../commands.js';
import type { CommandCas, CommandChange, CommandRecords, CommandSelector, CommandStep, CommandTarget } from '../ports/command-records.js';
import type { CommandTransition } from '../ports/command-transitions.js';
import { SYNC_SUPERSEDED as SUPERSEDED, type Command, type CommandStatus, type CommandsPort, type NewCommand } from '../ports/index.js';
import { catchUp, isIdCollision, type Ids } from './ids.js';
import type { CommandDoc, Collections } from './schema.js';
import { lastSyncedElsewhere } from '../sync-history.js';
import { fromJson, mapLimit, maybe, pageOf, PARALLEL, settle, toJson, unlessDuplicate } from './util.js';

const toCommand = ({
  _id,
  params,
  result,
  idem: _idem,
  sync_slot: _slot,
  composite: _composite,
  feed_event: _feedEvent,
  group_id,
  ...rest
}: CommandDoc): Command => ({
  id: _id,
  ...rest,
  group_id: group_id ?? null,
  params: fromJson<Record<string, unknown>>(params),
  result: fromJson<unknown>(result),
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
    _id: id,
    location_id: c.location_id,
    sn: c.sn,
    command: c.command,
    params: toJson(c.params),
    priority: c.priority,
    origin: c.origin,
    status: 'pending',
    response: null,
    error_message: null,
    result: null,
    sent_at: null,
    acknowledged_at: null,
    expires_at: c.expires_at,
    sync_key: syncKey,
    attempts: 0,
    parent_id: c.parent_id ?? null,
    wire: null,
    created_by_token_id: tokenId,
    idempotency_key: key,
    group_id: c.composite ? id : (c.group_id ?? null),
    ...(c.composite ? { composite: true as const } : {}),
    ...(c.feed_event === undefined ? {} : { feed_event: c.feed_event }),
    created_at: now,
    updated_at: null,
    idem: key === null ? own(id) : idemKey(tokenId, key),
    sync_slot: syncKey ?? own(id),
  };
}

/** The fields a coalesced sync op takes from the newer one. */
const replacement = (op: NewCommand) => ({ command: op.command, params: op.params, priority: op.priority, expires_at: op.expires_at });

/** The status condition of a rule. */
const guard = (rule: CommandTransition): Filter<CommandDoc> =>
  rule.compositeFrom
    ? { $or: [{ status: { $in: [...rule.from] } }, { composite: true, status: { $in: [...rule.compositeFrom] } }] }
    : { status: { $in: [...rule.from] } };

/** The fields a change writes (the sync slot and acknowledged_at are the caller's). */
function fields(rule: CommandTransition, ch: CommandChange, composite: boolean): Partial<CommandDoc> {
  const set: Partial<CommandDoc> = {};
  if (rule.to !== null) set.status = rule.to;
  if (ch.sent_at !== undefined) set.sent_at = ch.sent_at;
  if (ch.wire !== undefined) set.wire = ch.wire;
  if (ch.response !== undefined) set.response = ch.response;
  if (ch.error_message !== undefined) set.error_message = ch.error_message;
  if (ch.result !== undefined && !(ch.compositeKeepsResult && composite)) set.result = toJson(ch.result);
  if (ch.feed_event !== undefined) set.feed_event = ch.feed_event;
  set.updated_at = ch.updated_at;
  return set;
}

const selection = (s: CommandSelector): Filter<CommandDoc> =>
  'sn' in s ? { sn: s.sn } : 'group' in s ? members(s.group) : { expires_at: { $lte: s.expiredBy } };

export function mongoCommands(c: Collections, ids: Ids): CommandsPort {
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
        if (
          op.group_id != null &&
          (await c.commands.updateOne({ ...slot, group_id: null }, { $set: { ...set, group_id: op.group_id } })).matchedCount > 0
        )
          return 'replaced' as const;
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

  /**
   * One compare-and-set. Leaving `pending` releases the record's sync slot (it is its own id again);
   * going back to `pending` takes the slot back (its sync key, or its own id), which the unique slot
   * index refuses while a newer pending op holds that key (undefined: the step did not apply).
   */
  const cas = async (target: CommandTarget, step: CommandCas): Promise<CommandDoc | undefined> => {
    const { rule, change } = step;
    const filter: Filter<CommandDoc> = {
      _id: target.id,
      ...(target.sent_at === undefined ? {} : { sent_at: target.sent_at }),
      ...guard(rule),
    };
    const inc = change.nextAttempt ? { $inc: { attempts: 1 } } : {};
    const update = (set: Partial<CommandDoc>): UpdateFilter<CommandDoc> => ({ $set: set, ...inc });
    if (rule.to === 'pending') {
      const doc = await c.commands.findOne(filter, { projection: { sync_key: 1, composite: 1 } });
      if (!doc) return undefined;
      const set = { ...fields(rule, change, doc.composite === true), sync_slot: doc.sync_key ?? own(target.id) };
      return (await unlessDuplicate(c.commands.findOneAndUpdate(filter, update(set), { returnDocument: 'after' }))) ?? undefined;
    }
    const set = { ...fields(rule, change, false), ...(rule.to === null ? {} : { sync_slot: own(target.id) }) };
    const ack = change.acknowledged_at;
    if (ack === undefined || !rule.from.includes('sent'))
      return (await c.commands.findOneAndUpdate(filter, update(set), { returnDocument: 'after' })) ?? undefined;
    // Two conditional updates instead of one conditional expression (no update pipelines on every
    // server): a sent command is acknowledged now; from another status it never is. Sent is tried
    // first: if a claim turns pending into sent between the two, both miss and the caller learns the
    // command is no longer in the state it expected (a cancel that lost to delivery).
    const acked = await c.commands.findOneAndUpdate({ ...filter, status: 'sent' }, update({ ...set, acknowledged_at: ack }), {
      returnDocument: 'after',
    });
    if (acked) return acked;
    const rest = rule.from.filter((st) => st !== 'sent');
    if (rest.length === 0) return undefined;
    return (await c.commands.findOneAndUpdate({ ...filter, status: { $in: rest } }, update(set), { returnDocument: 'after' })) ?? undefined;
  };

  /** A step with its consequences, one single-document write after another (each safe to repeat). */
  const setOne = async (target: CommandTarget, step: CommandStep): Promise<Command | undefined> => {
    const doc = (await cas(target, step)) ?? (step.otherwise && (await cas(target, step.otherwise)));
    // Child lines hold no sync key: one updateMany, no slot to release.
    if (doc && step.lines) {
      const { rule, change } = step.lines;
      await c.commands.updateMany({ parent_id: target.id, ...guard(rule) }, { $set: fields(rule, change, false) });
    }
    return maybe(doc, toCommand);
  };

  /** Per command (the slot to release is per document); a crash midway leaves the rest for the next call. */
  const setMany = async (selector: CommandSelector, step: CommandCas): Promise<Command[]> => {
    const candidates = await c.commands
      .find({ ...selection(selector), ...guard(step.rule) }, { projection: { _id: 1, parent_id: 1, location_id: 1 } })
      .sort({ _id: 1 })
      .toArray();
    // The outbox marker only on the commands that are announced (top-level, of a location).
    const { feed_event: _marker, ...unmarked } = step.change;
    const plain = { ...step, change: unmarked };
    const stepOf = (d: Pick<CommandDoc, 'parent_id' | 'location_id'>) => (d.parent_id === null && d.location_id !== null ? step : plain);
    const changed = await mapLimit(candidates, PARALLEL, (d) => setOne({ id: d._id }, stepOf(d)));
    return changed.filter((x): x is Command => x !== undefined);
  };

  const records: CommandRecords = {
    setOne,
    setEach: (targets, step) => mapLimit(targets, PARALLEL, (t) => setOne(t, step(t))),
    setMany,
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
      const docs = await c.commands
        .find({ sn, status: 'pending', ...deliverable })
        .sort({ priority: -1, created_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toCommand);
    },
    async sentOf(locationId, sn, command, limit) {
      // The mailbox index (sn, status, …) narrows to the device's sent commands, a handful.
      const docs = await c.commands
        .find({ sn, status: 'sent', command, parent_id: null, location_id: locationId })
        .sort({ sent_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toCommand);
    },
    async countPending(sn, origin) {
      return c.commands.countDocuments({ sn, status: 'pending', ...deliverable, ...(origin === undefined ? {} : { origin }) });
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
    async sentBefore(cutoff, limit, after) {
      if (limit <= 0) return [];
      const page = after?.sent_at ? { $or: [{ sent_at: { $gt: after.sent_at } }, { sent_at: after.sent_at, _id: { $gt: after.id } }] } : {};
      const docs = await c.commands
        .find({ status: 'sent', sent_at: { $lt: cutoff }, parent_id: null, ...page })
        .sort({ sent_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toCommand);
    },
    async children(parentId) {
      return (await c.commands.find({ parent_id: parentId }).sort({ _id: 1 }).toArray()).map(toCommand);
    },
    async unannounced(limit) {
      const docs = await c.commands
        .find({ feed_event: { $exists: true } })
        .sort({ feed_event: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({ marker: d.feed_event as string, record: toCommand(d) }));
    },
    async owedMarkers(ids) {
      if (ids.length === 0) return new Map();
      const docs = await c.commands
        .find({ _id: { $in: [...ids] }, feed_event: { $exists: true } }, { projection: { feed_event: 1 } })
        .toArray();
      return new Map(docs.map((d) => [d._id, d.feed_event as string]));
    },
    async syncedPinsElsewhere(sn, locationId, ever = false) {
      // On an assignment, an audit and a moved terminal's load-users, by serial number: a broadcast query in a
      // sharded cluster (see the header). A terminal that never had an op of another location (or of none) holds
      // nothing of another: the `sn_location` index answers that without reading its history.
      const other = await c.commands.findOne(
        { sn, location_id: { $ne: locationId }, origin: 'sync', parent_id: null },
        { projection: { _id: 1 } },
      );
      if (!other) return [];
      const docs = await c.commands
        .find(
          { sn, origin: 'sync', status: { $in: ['success', 'sent'] }, parent_id: null },
          { projection: { location_id: 1, status: 1, params: 1 } },
        )
        .sort({ _id: 1 })
        .toArray();
      return lastSyncedElsewhere(
        docs.map((d) => {
          const p = fromJson<Record<string, unknown>>(d.params) ?? {};
          return { location_id: d.location_id, status: d.status, pin: p['pin'], op: p['op'] };
        }),
        locationId,
        ever,
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
      const rows = await c.commands
        .aggregate<{ _id: CommandStatus; n: number }>([{ $match: { parent_id: null } }, { $group: { _id: '$status', n: { $sum: 1 } } }])
        .toArray();
      for (const r of rows) out[r._id] = r.n;
      return out;
    },
  };
  return commandsPort(records);
}
