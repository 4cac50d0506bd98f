/**
 * Picks the adapter from BIOGATE_STORE. The only module that names adapters;
 * everything else sees the ports (./ports/) through the Store of ./types.ts. Adapters load on demand, so a SQLite
 * deployment never loads the MongoDB driver and vice versa.
 *
 * It is also the adapter boundary for outages: every port method of the store it
 * returns turns an adapter error that means "the database cannot be reached" into
 * `BioGateError('STORE_UNAVAILABLE')` with `Retry-After`, so callers answer 503 (API: JSON, devices:
 * a plain 503 so the firmware keeps its data and resends) instead of 500.
 */
import { BioGateError } from '../errors.js';
import { withTestFaults } from './test-faults.js';
import type { Store } from './types.js';

/** Seconds a client is told to wait before retrying while the store is unreachable. */
export const STORE_RETRY_AFTER_S = 5;

export async function openStore(url: string): Promise<Store> {
  if (url.startsWith('sqlite:')) {
    const [{ openSqliteStore }, { isSqliteUnavailable }] = await Promise.all([import('./sqlite/index.js'), import('./sqlite/db.js')]);
    const store = openSqliteStore(url.slice('sqlite:'.length));
    // A write that waited out another process's lock makes the next ones fail at once, until the
    // lock is seen free again (./sqlite/lock-watch.ts).
    const unavailable = (err: unknown) => {
      store.locks.noteError(err);
      return isSqliteUnavailable(err);
    };
    return guardStore(withTestFaults(store), unavailable, () => store.locks.noteSuccess());
  }
  if (/^mongodb(\+srv)?:\/\//.test(url)) {
    const { openMongoStore, isMongoUnavailable } = await import('./mongo/index.js');
    return guardStore(withTestFaults(await openMongoStore(url)), isMongoUnavailable);
  }
  throw new Error(`BIOGATE_STORE: unsupported store URL "${url.replace(/\/\/[^@/]*@/, '//***@')}" (use sqlite:<path> or mongodb://…)`);
}

export function storeUnavailable(cause: unknown): BioGateError {
  return new BioGateError('STORE_UNAVAILABLE', 'The store cannot be reached; retry later', {
    cause,
    headers: { 'Retry-After': String(STORE_RETRY_AFTER_S) },
  });
}

/**
 * Wraps every function of every port (and `ping`) generically, so port methods added later are
 * covered without a list to keep. Synchronous throws (better-sqlite3) and rejections are both mapped;
 * other errors pass through unchanged. `succeeded` is told of every call that did not fail.
 */
export function guardStore(store: Store, isUnavailable: (err: unknown) => boolean, succeeded?: () => void): Store {
  const map = (err: unknown): unknown => (!(err instanceof BioGateError) && isUnavailable(err) ? storeUnavailable(err) : err);
  const guardFn =
    <A extends unknown[], R>(fn: (...args: A) => R, self: unknown) =>
    (...args: A): R => {
      let result: R;
      try {
        result = fn.apply(self, args);
      } catch (err) {
        throw map(err);
      }
      const failed = (err: unknown) => Promise.reject(map(err));
      if (!succeeded) return result instanceof Promise ? (result.catch(failed) as R) : result;
      if (!(result instanceof Promise)) {
        succeeded();
        return result;
      }
      return result.then((value: unknown) => {
        succeeded();
        return value;
      }, failed) as R;
    };
  // Wrappers are made once per port and method, on first use (hot paths take no new Proxy per call).
  const cached = (wrap: (key: string | symbol, value: unknown) => unknown): ProxyHandler<object> => {
    const made = new Map<string | symbol, { from: unknown; to: unknown }>();
    return {
      get(t, key) {
        const value: unknown = Reflect.get(t, key); // getters run on the real object (private fields)
        const hit = made.get(key);
        if (hit && hit.from === value) return hit.to;
        const to = wrap(key, value);
        made.set(key, { from: value, to });
        return to;
      },
    };
  };
  const guardPort = (port: object): object =>
    new Proxy(
      port,
      cached((_key, value) => (typeof value === 'function' ? guardFn(value as (...args: unknown[]) => unknown, port) : value)),
    );
  return new Proxy(
    store,
    cached((key, value) => {
      if (key === 'close') return value;
      if (typeof value === 'function') return guardFn(value as (...args: unknown[]) => unknown, store);
      return value !== null && typeof value === 'object' ? guardPort(value) : value;
    }),
  ) as Store;
}
