/**
 * Integer ids from the `counters` collection: one document per collection holding the last id
 * handed out, advanced with an atomic `$inc` (findOneAndUpdate). An id is taken before the document
 * that uses it is written, so a crash in between leaves a gap, never a reuse.
 *
 * Blocks: each store instance (one per node) takes a block of ids per `$inc` and hands
 * them out locally, so the counter document of a busy collection sees one write per block instead
 * of one per insert from every node of the cluster. Ids stay integers, unique and never reused;
 * what is left of a block when the process stops is a gap. On one node ids still increase with
 * time; across nodes they interleave (node A may hand out 5 after node B handed out 101).
 */
import { MongoServerError, type Collection } from 'mongodb';
import type { CounterDoc, CounterName } from './schema.js';
import { ignoreDuplicates, present } from './util.js';

/** Returns the first of `count` consecutive fresh ids of the named sequence. */
export type Ids = (name: CounterName, count?: number) => Promise<number>;

/**
 * Ids taken from a counter at a time, per collection: large where inserts are hot (every punch,
 * every command and sync op, every raw record), 1 where they are rare and ids are read by people
 * (`--location 2` after a second `location create`, even from a short-lived CLI process that would
 * otherwise leave a gap of a whole block behind every run).
 */
export const BLOCK_SIZES: Readonly<Record<CounterName, number>> = {
  locations: 1,
  tokens: 1,
  devices: 10,
  areas: 1,
  access_levels: 1,
  holidays: 1,
  users: 50,
  templates: 50,
  commands: 100,
  attendance: 100,
  device_records: 100,
  door_events: 100,
  webhooks: 1,
  webhook_deliveries: 100,
  // One id per `$inc`: the audit cursor orders by id (src/store/mongo/audit-log.ts).
  audit_log: 1,
  alert_rules: 1,
  org_names: 1,
};

/** Free ids of a block: `next` up to, not including, `end`. */
interface Block {
  next: number;
  end: number;
}

/** The blocks of every allocator on a counters collection, so that catchUp can drop them. */
const blocksOf = new WeakMap<Collection<CounterDoc>, Map<CounterName, Block>>();

export function idAllocator(counters: Collection<CounterDoc>): Ids {
  const blocks = new Map<CounterName, Block>();
  blocksOf.set(counters, blocks);
  /** One refill per sequence at a time, so ids stay increasing on this node; others wait for it. */
  const refills = new Map<CounterName, Promise<number>>();

  /** Advances the counter by `n`; returns the first of the n ids it reserved. */
  const reserve = async (name: CounterName, n: number): Promise<number> => {
    // No upsert: a counter that vanished (dropped by hand) must not restart at 1 and hand out ids
    // that are taken; ensureCounters creates them at startup.
    // The document as it was *before* the $inc: mongo-java-server (the CI test server) builds the
    // "after" image with a separate read, so two connections incrementing at once could both be
    // shown the later value and hand out one range twice (test/scale/id-blocks.test.ts found it).
    const before = present(
      await counters.findOneAndUpdate({ _id: name }, { $inc: { seq: n } }, { returnDocument: 'before' }),
      `counter "${name}"`,
    );
    return before.seq + 1;
  };

  return async (name, count = 1) => {
    for (;;) {
      const block = blocks.get(name);
      if (block && block.end - block.next >= count) {
        const first = block.next;
        block.next += count;
        return first;
      }
      const pending = refills.get(name);
      if (pending) {
        await pending.catch(() => undefined); // its caller sees the error; this one tries again
        continue;
      }
      // The run asked for and, when it is smaller than a block, the rest of a fresh block after it,
      // in one `$inc`. A run larger than a block is taken exactly. The old block's rest is a gap.
      const n = Math.max(count, BLOCK_SIZES[name]);
      const refill = reserve(name, n)
        .then((first) => {
          blocks.set(name, { next: first + count, end: first + n });
          return first;
        })
        .finally(() => refills.delete(name));
      refills.set(name, refill);
      return refill;
    }
  };
}

/**
 * Creates missing counters at 0 before any traffic, so that concurrent first uses never race to
 * insert the counter document. Idempotent; a node starting at the same moment may win an insert
 * (duplicate key), which is fine.
 */
export async function ensureCounters(counters: Collection<CounterDoc>, names: readonly CounterName[]): Promise<void> {
  await counters
    .bulkWrite(
      names.map((name) => ({ updateOne: { filter: { _id: name }, update: { $setOnInsert: { seq: 0 } }, upsert: true } })),
      { ordered: false },
    )
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
 * (`$max`). Drops this process's block of that sequence first: it came from the counter that was
 * behind, so its other ids may be taken too.
 */
export async function catchUp(counters: Collection<CounterDoc>, collection: Collection<{ _id: number }>, name: CounterName): Promise<void> {
  blocksOf.get(counters)?.delete(name);
  const [top] = await collection
    .find({}, { projection: { _id: 1 } })
    .sort({ _id: -1 })
    .limit(1)
    .toArray();
  if (top) await counters.updateOne({ _id: name }, { $max: { seq: top._id } });
}
