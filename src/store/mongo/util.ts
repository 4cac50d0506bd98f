/** Small helpers shared by the MongoDB repositories. */
import { MongoBulkWriteError, MongoServerError, type Collection, type Filter } from 'mongodb';
import type { Window } from '../ports/index.js';

/** E11000: a unique index refused the write (alone, or every failed item of an unordered bulk write). */
export function isDuplicateKey(e: unknown): boolean {
  if (e instanceof MongoBulkWriteError) {
    const errors = [e.writeErrors].flat();
    return errors.length > 0 && errors.every((w) => w.code === 11000);
  }
  return e instanceof MongoServerError && e.code === 11000;
}

/** Rethrows anything but a duplicate key: for writes where "already there" is a normal outcome. */
export function ignoreDuplicates(e: unknown): void {
  if (!isDuplicateKey(e)) throw e;
}

/**
 * The write's result, or `undefined` when a unique index refused it: another writer got there
 * first (a `settle` loop then looks again, or the caller treats "taken" as an answer). Other
 * errors propagate.
 */
export function unlessDuplicate<T>(write: Promise<T>): Promise<T | undefined> {
  return write.catch((e: unknown) => {
    ignoreDuplicates(e);
    return undefined;
  });
}

/** `f(value)` for a found document, `undefined` for none (findOne answers null). */
export function maybe<T, R>(value: T | null | undefined, f: (value: T) => R): R | undefined {
  return value === null || value === undefined ? undefined : f(value);
}

/** The value, or an error naming what is missing (for documents that must exist). */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`mongo store: ${what} is missing`);
  return value;
}

/**
 * Runs `attempt` until it settles. An attempt answers `undefined` when it lost a race to another
 * writer (a duplicate key on insert, a document that moved between two single-document steps);
 * the next attempt starts from the state that writer left. Bounded, so a bug cannot spin forever.
 */
export async function settle<T>(what: string, attempt: () => Promise<T | undefined>, max = 10): Promise<T> {
  for (let i = 0; i < max; i++) {
    const out = await attempt();
    if (out !== undefined) return out;
  }
  throw new Error(`mongo store: ${what} did not settle after ${max} attempts`);
}

/** `fn` over `items` with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** How many single-document writes one call keeps in flight (well below the default pool of 100). */
export const PARALLEL = 16;

/** skip/limit for a page; `undefined` when the window is empty (MongoDB's limit 0 means "no limit"). */
export function pageOf(window: Window): { skip: number; limit: number } | undefined {
  return window.limit > 0 ? { skip: window.offset, limit: window.limit } : undefined;
}

/**
 * Case-insensitive literal substring test of string fields (and of a number's decimal form) as an
 * aggregation expression for `$expr`: `$indexOfCP` of the lower-cased text, so `%`, `_`, `\` and
 * regex syntax in the search are plain characters, as in the SQLite adapter's escaped LIKE.
 * `$toLower` folds ASCII only, like SQLite's lower().
 */
export function containsAny(needle: string, textFields: readonly string[], numberFields: readonly string[] = []): Record<string, unknown> {
  const lower = needle.toLowerCase();
  const found = (expr: unknown, text: string) => ({ $gte: [{ $indexOfCP: [expr, text] }, 0] });
  return {
    $or: [
      ...textFields.map((f) => found({ $toLower: { $ifNull: [`$${f}`, ''] } }, lower)),
      ...numberFields.map((f) => found({ $toString: `$${f}` }, needle)),
    ],
  };
}

/** Opaque maps (command params/result, device options) are stored as JSON text, as in SQLite, so
 * keys with `.` or a leading `$` round-trip on every server and version. */
export const toJson = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
export const fromJson = <T>(v: string | null | undefined): T | null => (typeof v === 'string' ? (JSON.parse(v) as T) : null);

/**
 * Keeps the newest `keep` documents of a location (by `_id`, which grows with arrival) and deletes at most
 * `limit` of the older ones, oldest first; returns how many went (a quota trim: call again while it is `limit`).
 */
export async function trimLocation<T extends { _id: number; location_id: number | null }>(
  collection: Collection<T>,
  locationId: number,
  keep: number,
  limit: number,
): Promise<number> {
  const [edge] = await collection
    .find({ location_id: locationId } as Filter<T>, { projection: { _id: 1 } })
    .sort({ _id: -1 })
    .skip(keep - 1)
    .limit(1)
    .toArray();
  if (!edge) return 0;
  const old = await collection
    .find({ location_id: locationId, _id: { $lt: edge['_id'] } } as Filter<T>, { projection: { _id: 1 } })
    .sort({ _id: 1 })
    .limit(limit)
    .toArray();
  if (old.length === 0) return 0;
  return (await collection.deleteMany({ _id: { $in: old.map((d) => d['_id']) } } as Filter<T>)).deletedCount;
}
