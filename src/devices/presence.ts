/**
 * Presence: who was seen when, from where. Every device request counts as "seen"
 * [PUSH-v2 §7.1]; `last_seen` is written behind in batches (losing a few seconds
 * on a crash is acceptable, DESIGN.md "Durability"); online/offline transitions
 * come from a timer so dashboards hear about a device that went quiet.
 */
import { BioGateError } from '../errors.js';
import type { EventBus } from './event-bus.js';
import type { Store } from '../store/types.js';
import type { Logger } from '../log.js';

interface Seen {
  locationId: number | null;
  at: number;
  address: string;
  online: boolean;
  /** Another address seen within the threshold (a cloned or spoofed serial), with when. */
  otherAddress?: { address: string; at: number };
  conflictReportedAt?: number;
}

export class Presence {
  readonly #seen = new Map<string, Seen>();
  readonly #dirty = new Set<string>();
  readonly #held = new Map<string, number>();
  #flushFailing = false;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly thresholdMs: number,
  ) {}

  seen(sn: string, locationId: number | null, address: string, now: number): void {
    const prev = this.#seen.get(sn);
    const entry: Seen = prev ?? { locationId, at: now, address, online: false };
    if (prev && prev.address !== address && now - prev.at <= this.thresholdMs) this.#conflict(sn, entry, address, now);
    entry.locationId = locationId;
    entry.at = now;
    entry.address = address;
    this.#seen.set(sn, entry);
    this.#dirty.add(sn);
    if (!entry.online) {
      entry.online = true;
      this.bus.emit('device.online', { location_id: locationId, sn, at: new Date(now).toISOString() });
    }
  }

  /** A held poll keeps a device online while it waits. */
  hold(sn: string, delta: 1 | -1): void {
    const n = (this.#held.get(sn) ?? 0) + delta;
    if (n <= 0) this.#held.delete(sn);
    else this.#held.set(sn, n);
  }

  /** Last request time this node saw (fresher than the store's write-behind value). */
  lastSeenOf(sn: string): string | undefined {
    const s = this.#seen.get(sn);
    return s ? new Date(s.at).toISOString() : undefined;
  }

  isOnline(sn: string): boolean {
    return this.#seen.get(sn)?.online ?? false;
  }

  onlineCount(): number {
    let n = 0;
    for (const s of this.#seen.values()) if (s.online) n++;
    return n;
  }

  /** Marks devices offline whose last request is older than the threshold (and no poll is held). */
  sweep(now: number): void {
    for (const [sn, s] of this.#seen) {
      if (this.#held.has(sn)) {
        s.at = now;
        this.#dirty.add(sn);
        continue;
      }
      if (s.online && now - s.at > this.thresholdMs) {
        s.online = false;
        this.bus.emit('device.offline', { location_id: s.locationId, sn, at: new Date(now).toISOString() });
      }
      if (!s.online && now - s.at > this.thresholdMs * 10 && !this.#dirty.has(sn)) this.#seen.delete(sn);
    }
  }

  /**
   * Writes pending last_seen values in one batch. When the store cannot be reached the batch stays
   * pending for the next flush (the map keeps the newest value), so an outage delays last_seen but
   * does not lose it (issue #12); one warning per outage, not one per flush.
   */
  async flush(): Promise<void> {
    if (this.#dirty.size === 0) return;
    const entries = [...this.#dirty].flatMap((sn) => {
      const s = this.#seen.get(sn);
      return s ? [{ sn, last_seen: new Date(s.at).toISOString(), last_address: s.address }] : [];
    });
    this.#dirty.clear();
    try {
      await this.store.devices.touchMany(entries);
    } catch (err) {
      for (const e of entries) this.#dirty.add(e.sn);
      if (!(err instanceof BioGateError) || err.code !== 'STORE_UNAVAILABLE') throw err;
      if (!this.#flushFailing) this.log.warn({ pending: this.#dirty.size }, 'store unavailable: last_seen writes kept for the next flush');
      this.#flushFailing = true;
      return;
    }
    if (this.#flushFailing) this.log.info({ written: entries.length }, 'store reachable again: pending last_seen written');
    this.#flushFailing = false;
  }

  #conflict(sn: string, entry: Seen, address: string, now: number): void {
    if (entry.conflictReportedAt !== undefined && now - entry.conflictReportedAt < 60_000) return;
    entry.conflictReportedAt = now;
    const addresses = [entry.address, address];
    this.log.warn({ sn, addresses }, 'two client addresses poll with the same serial number (cloned or spoofed device?)');
    this.bus.emit('device.conflict', { location_id: entry.locationId, sn, addresses });
  }
}
