/** Users of a location (sharded on location_id; unique (location_id, pin)). */
import type { Collection, Filter } from 'mongodb';
import {
  normalAreas,
  OFF_TERMINAL_FIELDS,
  USER_FIELDS,
  type UpsertResult,
  type User,
  type UserFields,
  type UsersPort,
} from '../ports/index.js';
import { catchUp, isIdCollision, type Ids } from './ids.js';
import type { LocationCounts } from './location-counts.js';
import type { Collections, UserDoc } from './schema.js';
import { outboxMarker } from './sync-state.js';
import { containsAny, ignoreDuplicates, mapLimit, maybe, pageOf, PARALLEL, settle, unlessDuplicate } from './util.js';

export const toUser = ({ _id, areas, access_levels, photo, department, position, ...rest }: UserDoc): User => ({
  id: _id,
  ...rest,
  areas: areas ?? [],
  access_levels: access_levels ?? [],
  photo: photo ?? null,
  department: department ?? null,
  position: position ?? null,
});

/** An upsert's result and whether it owes the terminals anything: created, or a field they hold changed. */
/** Whether a patch names a field a terminal holds (a patch of OFF_TERMINAL_FIELDS alone does not). */
const namesTerminalField = (fields: UserFields) =>
  Object.entries(fields).some(([k, v]) => v !== undefined && !OFF_TERMINAL_FIELDS.has(k as keyof UserFields));

/** The keys a patch sets (absent and undefined keys keep stored values; null clears). */
function patchOf(fields: UserFields): Partial<UserDoc> {
  const out: Record<string, unknown> = {};
  for (const key of USER_FIELDS) {
    const value = fields[key];
    if (value !== undefined) out[key] = Array.isArray(value) ? normalAreas(value as number[]) : value;
  }
  return out as Partial<UserDoc>;
}

/** A stored value and a patch's are the same (`areas` by its ids; absent `areas` is [], any other absent field null). */
const same = (stored: unknown, value: unknown): boolean =>
  Array.isArray(value) ? JSON.stringify(stored ?? []) === JSON.stringify(value) : (stored ?? null) === value;
/** Of the fields a patch sets, whether one a terminal holds differs from the stored document's. */
const syncedBy = (stored: Record<string, unknown>, set: Partial<UserDoc>): boolean =>
  Object.entries(set).some(([k, v]) => !OFF_TERMINAL_FIELDS.has(k as keyof UserFields) && !same(stored[k], v));

/** A new user: the defaults, then the patch. */
const newUser = (id: number, locationId: number, pin: number, set: Partial<UserDoc>, now: string): UserDoc => ({
  _id: id,
  location_id: locationId,
  pin,
  first_name: null,
  last_name: null,
  card_no: null,
  password: null,
  is_active: true,
  start_time: null,
  end_time: null,
  privilege: 0,
  group: 0,
  super_authorize: 0,
  areas: [],
  access_levels: [],
  department: null,
  position: null,
  ...set,
  created_at: now,
  updated_at: null,
});

export function mongoUsers(c: Collections, ids: Ids, counts: LocationCounts): UsersPort {
  const byPin = (locationId: number, pin: number) => ({ location_id: locationId, pin });
  // Every write marks the sync outbox BEFORE it changes a user (no transactions: see sync-state.ts)
  // and takes back the entries it created for users it left unchanged.
  const outbox = outboxMarker(c);

  /**
   * One user, atomic per document, no transaction:
   * 1. patch: one findOneAndUpdate whose filter also requires some patched field to differ, so a
   *    no-op writes nothing (updated_at kept) and `changed` is exact even with concurrent writers;
   * 2. no match: the user exists unchanged (no-op) or does not exist;
   * 3. insert with defaults; the unique (location_id, pin) index refuses it when a concurrent
   *    upsert created the user in between, and the next attempt patches that user instead.
   */
  const upsertOne = (locationId: number, pin: number, fields: UserFields, now: string): Promise<UpsertResult> => {
    const set = patchOf(fields);
    const differs = Object.entries(set).map(([k, v]) => ({ [k]: { $ne: v } }));
    return settle('user upsert', async () => {
      if (differs.length > 0) {
        // The document before the update (atomic with it); the one after is that with the patch applied.
        const before = await c.users.findOneAndUpdate(
          { ...byPin(locationId, pin), $or: differs } as Filter<UserDoc>,
          { $set: { ...set, updated_at: now } },
          { returnDocument: 'before' },
        );
        if (before) {
          const synced = syncedBy(before as unknown as Record<string, unknown>, set);
          return { user: toUser({ ...before, ...set, updated_at: now }), created: false, changed: true, synced };
        }
      }
      const existing = await c.users.findOne(byPin(locationId, pin));
      if (existing) {
        // The update above found nothing to change, but a concurrent writer may have created or
        // changed the user since: if it now differs from this write, go again (settle retries).
        const record = existing as unknown as Record<string, unknown>;
        if (Object.entries(set).some(([k, v]) => !same(record[k], v))) return undefined;
        return { user: toUser(existing), created: false, changed: false, synced: false };
      }
      const doc = newUser(await ids('users'), locationId, pin, set, now);
      return c.users.insertOne(doc).then(
        async (): Promise<UpsertResult> => {
          await counts.bump(locationId, 'users', 1);
          return { user: toUser(doc), created: true, changed: true, synced: true };
        },
        async (e: unknown) => {
          // A taken _id (a counter behind its collection) is not a concurrent create of this pin:
          // move the counter past the collection; the next attempt takes a fresh id.
          if (isIdCollision(e)) {
            await catchUp(c.counters, c.users as unknown as Collection<{ _id: number }>, 'users');
            return undefined;
          }
          return unlessDuplicate(Promise.reject(e));
        },
      );
    });
  };

  /**
   * Items with distinct pins at once, in a few round trips instead of upsertOne's two to four per
   * item (an import of 10,000 users must answer within a request's time), still atomic per user:
   * 1. one read of every pin's current document;
   * 2. new pins: one block of ids and one unordered insertMany; a pin a concurrent writer created
   *    in between is refused by the unique index and goes to step 4;
   * 3. known pins: nothing is written when the patch matches what was read; otherwise one
   *    compare-and-set update by _id whose filter requires the fields it changes to still hold the
   *    values read, so `changed` stays exact; a document changed in between goes to step 4;
   * 4. whatever lost a race runs through upsertOne.
   */
  const upsertDistinct = async (
    locationId: number,
    items: readonly { pin: number; fields: UserFields }[],
    now: string,
  ): Promise<UpsertResult[]> => {
    const out: UpsertResult[] = new Array<UpsertResult>(items.length);
    const found = new Map(
      (await c.users.find({ location_id: locationId, pin: { $in: items.map((i) => i.pin) } }).toArray()).map((d) => [d.pin, d]),
    );
    const raced: number[] = [];
    const fresh = items.flatMap((item, index) => (found.has(item.pin) ? [] : [{ ...item, index }]));
    if (fresh.length > 0) {
      const first = await ids('users', fresh.length);
      const docs = fresh.map((i, k) => newUser(first + k, locationId, i.pin, patchOf(i.fields), now));
      await c.users.insertMany(docs, { ordered: false }).catch(ignoreDuplicates);
      const inserted = new Set(
        (await c.users.find({ _id: { $in: docs.map((d) => d._id) } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id),
      );
      await counts.bump(locationId, 'users', inserted.size);
      fresh.forEach((i, k) => {
        const doc = docs[k] as UserDoc;
        if (inserted.has(doc._id)) out[i.index] = { user: toUser(doc), created: true, changed: true, synced: true };
        else raced.push(i.index);
      });
    }
    await mapLimit(items, PARALLEL, async ({ pin, fields }, index) => {
      const seen = found.get(pin);
      if (!seen) return;
      const set = patchOf(fields);
      const stale = Object.keys(set).filter((k) => !same(seen[k as keyof UserDoc], set[k as keyof UserDoc])) as (keyof UserDoc)[];
      if (stale.length === 0) {
        out[index] = { user: toUser(seen), created: false, changed: false, synced: false };
        return;
      }
      const synced = stale.some((k) => !OFF_TERMINAL_FIELDS.has(k as keyof UserFields));
      const expected = Object.fromEntries(stale.map((k) => [k, seen[k]]));
      const patched = await c.users.findOneAndUpdate(
        { _id: seen._id, location_id: locationId, ...expected } as Filter<UserDoc>,
        { $set: { ...set, updated_at: now } },
        { returnDocument: 'after' },
      );
      if (patched) out[index] = { user: toUser(patched), created: false, changed: true, synced };
      else raced.push(index);
    });
    await mapLimit(raced, PARALLEL, async (index) => {
      const { pin, fields } = items[index] as (typeof items)[number];
      out[index] = await upsertOne(locationId, pin, fields, now);
    });
    return out;
  };

  /** Per PIN, the areas these writes take the user out of, read before the writes (OutboxMarker.mark). */
  const leaving = async (locationId: number, items: readonly { pin: number; fields: UserFields }[]) => {
    const left = new Map<number, number[]>();
    const moving = items.filter((i) => i.fields.areas !== undefined);
    if (moving.length === 0) return left;
    const docs = await c.users
      .find({ location_id: locationId, pin: { $in: moving.map((i) => i.pin) } }, { projection: { pin: 1, areas: 1 } })
      .toArray();
    const before = new Map(docs.map((d) => [d.pin, d.areas ?? []]));
    for (const { pin, fields } of moving) {
      const gone = (before.get(pin) ?? []).filter((a) => !(fields.areas ?? []).includes(a));
      if (gone.length > 0) left.set(pin, [...(left.get(pin) ?? []), ...gone]);
    }
    return left;
  };

  /**
   * The PINs to mark before these writes: every item naming a field a terminal holds, and of the others (department,
   * position alone) those whose user does not exist yet, since creating a user owes its terminals the user.
   */
  const owing = async (locationId: number, items: readonly { pin: number; fields: UserFields }[]): Promise<number[]> => {
    const off = items.filter((i) => !namesTerminalField(i.fields)).map((i) => i.pin);
    if (off.length === 0) return items.map((i) => i.pin);
    const docs = await c.users.find({ location_id: locationId, pin: { $in: off } }, { projection: { pin: 1 } }).toArray();
    const known = new Set(docs.map((d) => d.pin));
    return items.filter((i) => namesTerminalField(i.fields) || !known.has(i.pin)).map((i) => i.pin);
  };

  /**
   * Marks what the writes owe and takes back the marks of users they left as the terminals hold them. A user created
   * although its PIN was not marked (deleted by a concurrent writer after `owing` read it) is marked after its write.
   */
  const settleOutbox = async (
    locationId: number,
    marked: ReadonlySet<number>,
    created: ReadonlyMap<number, string>,
    results: readonly UpsertResult[],
    now: string,
  ) => {
    const synced = new Set(results.filter((r) => r.synced).map((r) => r.user.pin));
    await outbox.unmark(locationId, created, (pin) => synced.has(pin));
    const late = results.filter((r) => r.created && !marked.has(r.user.pin)).map((r) => r.user.pin);
    if (late.length > 0) await outbox.mark(locationId, late, now);
  };

  return {
    async upsert(locationId, pin, fields, now) {
      const marked = new Set(await owing(locationId, [{ pin, fields }]));
      const created = await outbox.mark(locationId, [...marked], now, await leaving(locationId, [{ pin, fields }]));
      const r = await upsertOne(locationId, pin, fields, now);
      await settleOutbox(locationId, marked, created, [r], now);
      return r;
    },
    async upsertMany(locationId, items, now) {
      const marked = new Set(await owing(locationId, items));
      const created = await outbox.mark(locationId, [...marked], now, await leaving(locationId, items));
      // A pin that repeats waits for its earlier item (rounds of distinct pins), so a later item
      // always sees the earlier one's result, as if run in order.
      const out: UpsertResult[] = new Array<UpsertResult>(items.length);
      let pending = items.map((item, index) => ({ ...item, index }));
      while (pending.length > 0) {
        const seen = new Set<number>();
        const round: typeof pending = [];
        const later: typeof pending = [];
        for (const item of pending) {
          (seen.has(item.pin) ? later : round).push(item);
          seen.add(item.pin);
        }
        pending = later;
        const results = await upsertDistinct(locationId, round, now);
        round.forEach((i, k) => (out[i.index] = results[k] as UpsertResult));
      }
      await settleOutbox(locationId, marked, created, out, now);
      return out;
    },
    async get(locationId, pin) {
      const doc = await c.users.findOne(byPin(locationId, pin));
      return maybe(doc, toUser);
    },
    async getMany(locationId, pins) {
      return (
        await c.users
          .find({ location_id: locationId, pin: { $in: [...pins] } })
          .sort({ pin: 1 })
          .toArray()
      ).map(toUser);
    },
    async getById(locationId, id) {
      const doc = await c.users.findOne({ _id: id, location_id: locationId });
      return maybe(doc, toUser);
    },
    async list(locationId, filter, window) {
      const query: Filter<UserDoc> = { location_id: locationId };
      if (filter.privilege !== undefined) query.privilege = filter.privilege;
      if (filter.is_active !== undefined) query.is_active = filter.is_active;
      if (filter.pins !== undefined) query.pin = { $in: [...filter.pins] };
      if (filter.department !== undefined) query.department = filter.department;
      if (filter.position !== undefined) query.position = filter.position;
      if (filter.area !== undefined) query.areas = filter.area;
      const exprs: Record<string, unknown>[] = [];
      if (filter.search) exprs.push(containsAny(filter.search, ['first_name', 'last_name'], ['pin']));
      // $toLower on both sides folds ASCII only, as SQLite's lower() does.
      for (const key of ['first_name', 'last_name'] as const) {
        const value = filter[key];
        if (value !== undefined) exprs.push({ $eq: [{ $toLower: { $ifNull: [`$${key}`, ''] } }, { $toLower: { $literal: value } }] });
      }
      if (exprs.length > 0) query.$expr = exprs.length === 1 ? exprs[0] : { $and: exprs };
      const page = pageOf(window);
      // Unfiltered: the location's kept count (location-counts.ts), not a count of its users on every page.
      const everyone = Object.keys(query).length === 1;
      const [total, docs] = await Promise.all([
        everyone ? counts.read(locationId).then((n) => n.users) : c.users.countDocuments(query),
        page ? c.users.find(query).sort({ pin: 1 }).skip(page.skip).limit(page.limit).toArray() : [],
      ]);
      return { items: docs.map(toUser), total };
    },
    async count(locationId) {
      return c.users.countDocuments({ location_id: locationId });
    },
    async delete(locationId, pin, now = new Date().toISOString()) {
      if (!(await c.users.findOne(byPin(locationId, pin)))) return undefined;
      // The outbox entry first: it outlives the user until the user.delete ops are queued.
      const created = await outbox.mark(locationId, [pin], now);
      // Order without a transaction: templates first, then the user, then templates once more.
      // - A crash after the first step leaves a user without templates: still visible, and the
      //   retried DELETE finishes the job. The other order could leave orphan templates that a
      //   later user with the same PIN would inherit (someone else's fingerprints).
      // - The second sweep removes a template a device uploaded between the first two steps.
      // - A concurrent delete may remove the user between the steps: then this call answers
      //   undefined (it deleted no user), the other one returns it.
      await c.templates.deleteMany({ location_id: locationId, user_pin: pin });
      const deleted = await c.users.findOneAndDelete(byPin(locationId, pin));
      if (deleted) await counts.bump(locationId, 'users', -1);
      await c.templates.deleteMany({ location_id: locationId, user_pin: pin });
      await outbox.unmark(locationId, created, () => deleted !== null);
      return maybe(deleted, toUser);
    },
    async deactivate(locationId, pins, now) {
      const query: Filter<UserDoc> = { location_id: locationId, is_active: true };
      if (pins !== null) query.pin = { $in: [...pins] };
      const candidates = await c.users
        .find(query, { projection: { pin: 1 } })
        .sort({ pin: 1 })
        .toArray();
      const created = await outbox.mark(
        locationId,
        candidates.map((u) => u.pin),
        now,
      );
      // One conditional update per user: only the users this call switched off are returned.
      const switched = await mapLimit(candidates, PARALLEL, (u) =>
        c.users.findOneAndUpdate(
          { ...byPin(locationId, u.pin), is_active: true },
          { $set: { is_active: false, updated_at: now } },
          { returnDocument: 'after' },
        ),
      );
      const out = switched.filter((d): d is NonNullable<typeof d> => d !== null).map(toUser);
      const off = new Set(out.map((u) => u.pin));
      await outbox.unmark(locationId, created, (pin) => off.has(pin));
      return out;
    },
    async activePins(locationId, areaId = null) {
      const docs = await c.users
        .find({ location_id: locationId, is_active: true, ...(areaId === null ? {} : { areas: areaId }) }, { projection: { pin: 1 } })
        .sort({ pin: 1 })
        .toArray();
      return docs.map((d) => d.pin);
    },
    async setPhoto(locationId, pin, photo) {
      const doc = await c.users.findOneAndUpdate(byPin(locationId, pin), { $set: { photo } }, { returnDocument: 'after' });
      return maybe(doc, toUser);
    },
    async withAccessWindow(locationId) {
      const docs = await c.users
        .find({ location_id: locationId, is_active: true, $or: [{ start_time: { $ne: null } }, { end_time: { $ne: null } }] })
        .sort({ pin: 1 })
        .toArray();
      return docs.map(toUser);
    },
  };
}
