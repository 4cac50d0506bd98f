/**
 * Per-token rate limit [API-CONTRACT §7]: a token bucket of `rps` tokens per
 * second with bursts of twice that. Excess gets 429 with Retry-After.
 */
import type { Clock } from '../clock.js';
import { BioGateError } from '../errors.js';

/** Shared by every door that acts for a token (REST, the stream, MQTT command requests): one bucket per token. */
export interface RateLimiter {
  /** Takes one request from the token's bucket. @throws RATE_LIMITED (429, Retry-After) when it is empty. */
  take(tokenId: number): void;
}

export function createRateLimiter(rps: number, clock: Clock, maxKeys = 100_000): RateLimiter {
  const burst = rps * 2;
  const buckets = new Map<number, { tokens: number; at: number }>();
  return {
    take(key: number): void {
      const now = clock.now().getTime();
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= maxKeys) buckets.clear(); // bounded memory; a reset only forgives
        buckets.set(key, (b = { tokens: burst, at: now }));
      }
      b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rps);
      b.at = now;
      if (b.tokens < 1) {
        const wait = Math.max(1, Math.ceil((1 - b.tokens) / rps));
        throw new BioGateError('RATE_LIMITED', `Rate limit of ${rps} requests/s exceeded`, { headers: { 'Retry-After': String(wait) } });
      }
      b.tokens -= 1;
    },
  };
}
