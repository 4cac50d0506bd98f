/**
 * API callers' tokens and locations, kept in memory between requests (a token's hash,
 * its row and its location's row were read on every call; three quarters of `GET /api/me`).
 *
 * What is kept is what the store said, and for how long it may be used without asking again is
 * `trustMs()`: long while the event feed tells this node of every change, a second while it cannot
 * (FEED_TRUST_MS). Changes drop entries at once, here and on every other node: a token revoked
 * (`forgetToken`, the feed's `token.revoked`), a location updated or disabled (`forgetLocation`,
 * `location.changed`), and all of it when the feed may have missed something (`forgetAll`). Expiry is
 * checked against the clock on every call, so an expired token is refused on time whatever is kept.
 * Unknown tokens are never kept (nothing a caller invents takes memory), and at most MAX_KEPT are.
 */
import { performance } from 'node:perf_hooks';
import type { Store } from '../store/types.js';
import { accepted, lookUp, tokenHashOf, type Caller, type Found } from './authenticate.js';

const MAX_KEPT = 10_000;

export interface Credentials {
  /** The caller of an Authorization header, or 401/403 (as authenticate() would answer). */
  authenticate(authorization: string | undefined, now: Date): Promise<Caller>;
  forgetToken(id: number): void;
  forgetLocation(id: number): void;
  forgetAll(): void;
}

/**
 * `trustMs`: how long a kept answer may be used now; `catchUp`: called before a kept answer is used,
 * so that changes other processes announced are applied first (ClusterFeed.catchUp).
 */
export function createCredentials(store: Store, trustMs: () => number, catchUp: () => void = () => undefined): Credentials {
  const kept = new Map<string, { found: Found; until: number }>();
  /** Bumped by every forget: a read that started before one may be older than it and is not kept. */
  let generation = 0;
  const forget = (drop: (f: Found) => boolean) => {
    generation++;
    for (const [hash, entry] of kept) if (drop(entry.found)) kept.delete(hash);
  };
  return {
    async authenticate(authorization, now) {
      const hash = tokenHashOf(authorization);
      catchUp();
      const entry = kept.get(hash);
      if (entry && performance.now() < entry.until) return accepted(entry.found, now);
      const before = generation;
      const found = await lookUp(store, hash);
      if (found.location && before === generation) {
        if (kept.size >= MAX_KEPT) kept.clear();
        kept.set(hash, { found, until: performance.now() + trustMs() });
      } else kept.delete(hash);
      return accepted(found, now);
    },
    forgetToken: (id) => forget((f) => f.token.id === id),
    forgetLocation: (id) => forget((f) => f.token.location_id === id),
    forgetAll: () => forget(() => true),
  };
}
