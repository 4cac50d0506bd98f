/**
 * Comm key guessing throttle (README "Security model"): after a few wrong keys for a serial, requests
 * for that serial are refused without checking the key for a window that doubles with each further
 * failure (1 s … 5 min) and ends on the next success. State is per node and bounded: at most
 * `maxEntries` serials, least recently failed forgotten first; a serial quiet for twice the longest
 * window starts afresh. Timestamps come from the caller's injected clock.
 */

export interface ThrottleOptions {
  /** Wrong keys allowed before the back-off starts. */
  readonly freeFailures: number;
  readonly baseMs: number;
  readonly maxMs: number;
  readonly maxEntries: number;
}

export const THROTTLE_DEFAULTS: ThrottleOptions = { freeFailures: 3, baseMs: 1_000, maxMs: 300_000, maxEntries: 10_000 };

interface Entry {
  failures: number;
  until: number;
  last: number;
}

export interface CommKeyThrottle {
  /** Milliseconds before a key for `sn` is checked again; 0 = check now. */
  blockedFor(sn: string, nowMs: number): number;
  /** Records a wrong key; returns the failures so far and the window it opened (0 = none yet). */
  failed(sn: string, nowMs: number): { readonly failures: number; readonly blockedMs: number };
  succeeded(sn: string): void;
  /** Serials refused without checking right now (metrics gauge). */
  throttled(nowMs: number): number;
  readonly size: number;
}

export function createCommKeyThrottle(options: Partial<ThrottleOptions> = {}): CommKeyThrottle {
  const o = { ...THROTTLE_DEFAULTS, ...options };
  const entries = new Map<string, Entry>();
  const current = (sn: string, nowMs: number): Entry | undefined => {
    const e = entries.get(sn);
    if (e && nowMs - e.last > 2 * o.maxMs) {
      entries.delete(sn);
      return undefined;
    }
    return e;
  };
  return {
    blockedFor(sn, nowMs) {
      const e = current(sn, nowMs);
      return e ? Math.max(0, e.until - nowMs) : 0;
    },
    failed(sn, nowMs) {
      const e = current(sn, nowMs) ?? { failures: 0, until: 0, last: nowMs };
      e.failures++;
      e.last = nowMs;
      const over = e.failures - o.freeFailures;
      const blockedMs = over > 0 ? Math.min(o.maxMs, o.baseMs * 2 ** Math.min(over - 1, 30)) : 0;
      e.until = nowMs + blockedMs;
      // Re-insert: Map order is then least recently failed first, which is what the cap evicts.
      entries.delete(sn);
      entries.set(sn, e);
      while (entries.size > o.maxEntries) entries.delete(entries.keys().next().value as string);
      return { failures: e.failures, blockedMs };
    },
    succeeded(sn) {
      entries.delete(sn);
    },
    throttled(nowMs) {
      let n = 0;
      for (const e of entries.values()) if (e.until > nowMs) n++;
      return n;
    },
    get size() {
      return entries.size;
    },
  };
}
