/**
 * Integer ids from the `counters` collection: one document per collection holding the last id
 * handed out, advanced with an atomic `$inc` (findOneAndUpdate). An id is taken before the document
 * that uses it is written, so a crash in between leaves a gap, never a reuse.
 */
import { MongoServerError, type Collection } from 'mongodb';
import type { CounterDoc, CounterName } from './schema.js';
import { ignoreDuplicates, present } from './util.js';

/** Returns the first of `count` consecutive fresh ids of the named sequence. */
export type Ids = (name: CounterName, count?: number) => Promise<number>;

export function idAllocator(counters: Collection<CounterDoc>): Ids {
  return async (name, count = 1) => {
    // No upsert: a counter that vanished (dropped by hand) must not restart at 1 and hand out ids
    // that are taken; ensureCounters creates them at startup.
    const doc = present(await counters.findOneAndUpdate({ _id: name }, { $inc: { seq: count } }, { returnDocument: 'after' }), `counter "${name}"`);
    return doc.seq - count + 1;
  };
}

/**
 * Creates missing counters at 0 before any traffic, so that concurrent first uses never race to
 * insert the counter document. Idempotent; a node starting at the same moment may win an insert
 * (duplicate key), which is fine.
 */
export async function ensureCounters(counters: Collection<CounterDoc>, names: readonly CounterName[]): Promise<void> {
  await counters
    .bulkWrite(names.map((name) => ({ updateOne: { filter: { _id: name }, update: { $setOnInsert: { seq: 0 } }, upsert: true } })), { ordered: false })
    .catch(ignoreDuplicates);
}

/**
 * Whether a duplicate-key error is about `_id` (the counter handed out an id that is taken: a
 * counter restored or reset behind its collection) rather than another unique index (a lost race
 * for a slot). Servers name the index in `keyPattern` and in the message (`index: _id_`).
 */
export function isIdCollision(e: unknown): boolean {
  if (!(e instanceof MongoServerError) || e.code !== 11000) return false;
  const pattern = (e as { keyPattern?: Record<string, unknown> }).keyPattern;
  if (pattern && typeof pattern === 'object') return Object.keys(pattern).length === 1 && '_id' in pattern;
  return /index: _id_(?![A-Za-z0-9_])/.test(e.message);
}

/**
 * Moves the named counter past the highest `_id` of its collection (never back), after an id
 * collision, so the next ids handed out are free. Idempotent and safe with concurrent callers
 * (`$max`).
 */
export async function catchUp(counters: Collection<CounterDoc>, collection: Collection<{ _id: number }>, name: CounterName): Promise<void> {
  const [top] = await collection.find({}, { projection: { _id: 1 } }).sort({ _id: -1 }).limit(1).toArray();
  if (top) await counters.updateOne({ _id: name }, { $max: { seq: top._id } });
}
