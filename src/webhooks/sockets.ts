/**
 * The global bound on webhook requests (BIOGATE_WEBHOOK_SOCKETS) that slow receivers cannot fill.
 *
 * - A request takes a *fresh* slot; when all are taken it waits, first come first served.
 * - Still under way after SLOW_AFTER_MS, it gives its fresh slot to the next waiter and takes a *slow* slot
 *   (as many as fresh ones). When every slow slot is taken it is cut off (its AbortSignal fires) and the lane
 *   records a failed attempt, retried after its back-off.
 *
 * So at most 2 × size requests are open at once, and a ready lane only ever waits behind requests younger
 * than SLOW_AFTER_MS: a slow receiver never holds a slot another lane is waiting for.
 */
export const SLOW_AFTER_MS = 1_000;

export interface SocketPool {
  /** Runs `fn` under a slot; `signal` aborts when the request is cut off. After close(), `fn` is not called: null. */
  run<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T | null>;
  stats(): { fresh: number; slow: number; waiting: number };
  /** Releases every waiter (they get null). */
  close(): void;
}

export function createSocketPool(size: number, slowAfterMs = SLOW_AFTER_MS): SocketPool {
  let fresh = 0;
  let slow = 0;
  let closed = false;
  const waiting: ((granted: boolean) => void)[] = [];
  const take = (): Promise<boolean> => {
    if (closed) return Promise.resolve(false);
    if (fresh < size) {
      fresh++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  /** A fresh slot is handed to the next waiter as it is, or freed. */
  const releaseFresh = (): void => {
    const next = waiting.shift();
    if (next) next(true);
    else fresh--;
  };
  return {
    async run(fn) {
      if (!(await take())) return null;
      const abort = new AbortController();
      let state: 'fresh' | 'slow' | 'cut' = 'fresh';
      const timer = setTimeout(() => {
        releaseFresh();
        if (slow < size) {
          slow++;
          state = 'slow';
        } else {
          state = 'cut';
          abort.abort();
        }
      }, slowAfterMs);
      timer.unref();
      try {
        return await fn(abort.signal);
      } finally {
        clearTimeout(timer);
        if (state === 'fresh') releaseFresh();
        else if (state === 'slow') slow--;
      }
    },
    stats: () => ({ fresh, slow, waiting: waiting.length }),
    close() {
      closed = true;
      for (const w of waiting.splice(0)) w(false);
    },
  };
}
