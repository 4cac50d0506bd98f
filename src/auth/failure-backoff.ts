/**
 * Back-off per client address after failed attempts at a secret (the admin token): the first
 * FREE_FAILURES failures cost nothing, each further one closes the address for a back-off that
 * doubles (BASE_BACKOFF_MS, 2×, 4×, … up to MAX_BACKOFF_MS). While closed, every attempt from the
 * address is refused without looking at the secret, so guessing proceeds at the back-off's pace
 * whatever the attacker sends. A success opens the address and forgets its failures; failures
 * are also forgotten after FORGET_MS without one.
 *
 * Bounded memory: at most MAX_ADDRESSES are tracked; when full, the least recently failing one is
 * forgotten (which only forgives). IPv6 addresses count per /64, the block one host usually gets.
 */
import type { Clock } from '../clock.js';
import { addressBytes } from '../net/cidr.js';

export const FREE_FAILURES = 5;
export const BASE_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 15 * 60_000;
export const FORGET_MS = 60 * 60_000;
export const MAX_ADDRESSES = 10_000;

export interface FailureBackoff {
  /** Milliseconds the address must still wait before it may try again; 0 when it may try now. */
  waitMs(address: string): number;
  /** A failed attempt from the address. */
  failed(address: string): void;
  /** A successful attempt: the address starts afresh. */
  succeeded(address: string): void;
  /** Addresses tracked now (for tests of the memory bound). */
  size(): number;
}

interface Entry {
  failures: number;
  lastFailure: number;
  openAt: number;
}

export function createFailureBackoff(clock: Clock, maxAddresses = MAX_ADDRESSES): FailureBackoff {
  // Map order is insertion order; a failing address is re-inserted, so the first entry is the stalest.
  const records = new Map<string, Entry>();
  const current = (key: string, now: number): Entry | undefined => {
    const r = records.get(key);
    if (r && now - r.lastFailure > FORGET_MS && now >= r.openAt) {
      records.delete(key);
      return undefined;
    }
    return r;
  };
  return {
    waitMs(address) {
      const now = clock.now().getTime();
      const r = current(keyOf(address), now);
      return r ? Math.max(0, r.openAt - now) : 0;
    },
    failed(address) {
      const key = keyOf(address);
      const now = clock.now().getTime();
      const r = current(key, now) ?? { failures: 0, lastFailure: now, openAt: now };
      r.failures++;
      r.lastFailure = now;
      if (r.failures >= FREE_FAILURES)
        r.openAt = now + Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** Math.min(r.failures - FREE_FAILURES, 20));
      records.delete(key);
      while (records.size >= maxAddresses) {
        const stalest = records.keys().next().value as string;
        records.delete(stalest);
      }
      records.set(key, r);
    },
    succeeded(address) {
      records.delete(keyOf(address));
    },
    size: () => records.size,
  };
}

/** IPv4 as is, IPv6 by its /64 (IPv4-mapped IPv6 counts as the IPv4 address); anything else as given. */
export function keyOf(address: string): string {
  const bytes = addressBytes(address);
  if (!bytes) return address;
  if (bytes.length === 4) return bytes.join('.');
  return Buffer.from(bytes.subarray(0, 8)).toString('hex') + '/64';
}
