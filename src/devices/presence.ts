/**
 * Presence: who was seen when, from where. Every device request counts as "seen"
 * [PUSH-v2 §7.1]; `last_seen` is written behind in batches (losing a few seconds
 * on a crash is acceptable, DESIGN.md "Durability"); online/offline transitions
 * come from a timer so dashboards hear about a device that went quiet.
 *
 * Several nodes: the announced presence is kept in the device record and changed by
 * compare-and-set, so each transition is announced once in the cluster whichever node sees it.
 * A node whose terminal went quiet first asks the store: if another node owns it now (the terminal
 * moved), it forgets the device without a word. Devices of a node that died are announced offline
 * by `sweepOrphans`, which one node runs at a time.
 *
 * Every node's view: a terminal this node serves is online by its own last request; one another node
 * serves is online as the cluster announced it (`onlineElsewhere`: `device.online` through the event
 * feed, or the terminal moving to another node while online here), since the store's last_seen is
 * written behind. A move between nodes announces nothing and reads online on both all along; the
 * feed's `device.offline` (the serving node's sweep, or the orphan sweep) ends it, and so does a
 * doubt of the feed (then last_seen decides again).
 *
 * A terminal seen online while unassigned is announced online to the location it is assigned to, at
 * once (`located`): its location's consumers (MQTT availability, webhooks) never heard it.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { BioGateError } from '../errors.js';
import type { EventBus } from '../events/bus.js';
import { newMarker } from '../events/outbox.js';
import type { Store } from '../store/types.js';
import type { Logger } from '../log.js';

/** last_seen is written behind every 5 s: a stored value may be this much older than the truth. */
const FLUSH_MARGIN_MS = 10_000;
/**
 * last_seen rows written per store call. One call for all of them held the event loop for 150-290 ms
 * every 5 s at 10,000 held terminals on SQLite (commands queued meanwhile waited that long);
 * between batches the requests that arrived are served.
 */
const FLUSH_BATCH = 250;

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
  /** Terminals another node serves that the cluster announced online (see the file comment). */
  readonly #elsewhere = new Set<string>();
  /** Last request times of terminals that moved to another node, still to be written (flush). */
  readonly #leaving = new Map<string, { last_seen: string; last_address: string }>();
  #flushFailing = false;
  #flushing: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly thresholdMs: number,
    private readonly node: string,
  ) {}

  seen(sn: string, locationId: number | null, address: string, now: number): void {
    const prev = this.#seen.get(sn);
    this.#elsewhere.delete(sn);
    this.#leaving.delete(sn);
    const entry: Seen = prev ?? { locationId, at: now, address, online: false };
    // Assigned while polling, and the device.updated event was missed: announced to its location now.
    if (prev?.online && prev.locationId === null && locationId !== null) this.located(sn, locationId, now);
    if (prev && prev.address !== address && now - prev.at <= this.thresholdMs) this.#conflict(sn, entry, address, now);
    entry.locationId = locationId;
    entry.at = now;
    entry.address = address;
    this.#seen.set(sn, entry);
    this.#dirty.add(sn);
    if (!entry.online) {
      entry.online = true;
      void this.#announce(sn, locationId, 'online', now).then(undefined, (err: unknown) => {
        entry.online = false; // the next request tries again
        this.#announceFailed(err, sn);
      });
    }
  }

  /**
   * Another node serves the device now: forget it here, silently (it did not go offline). Its last
   * request time here is still written (the store keeps the newest), and until the cluster says
   * otherwise it reads online here, as it was announced.
   */
  forget(sn: string): void {
    const s = this.#seen.get(sn);
    if (s && this.#dirty.has(sn)) this.#leaving.set(sn, { last_seen: new Date(s.at).toISOString(), last_address: s.address });
    if (s?.online) this.#elsewhere.add(sn);
    this.#seen.delete(sn);
    this.#dirty.delete(sn);
  }

  /** Another node announced a presence change (the event feed). */
  announced(sn: string, online: boolean): void {
    if (this.#seen.get(sn)?.online) return; // served here: this node's own requests decide
    if (online) this.#elsewhere.add(sn);
    else this.#elsewhere.delete(sn);
  }

  /** The event feed may have missed announcements: last_seen decides again. */
  doubt(): void {
    this.#elsewhere.clear();
  }

  /** Whether the terminal is online on another node, as the cluster announced it (see the file comment). */
  onlineElsewhere(sn: string): boolean {
    return this.#elsewhere.has(sn) && !this.#seen.has(sn);
  }

  /**
   * The terminal's location changed (assigned, unassigned, moved): when it is online here, the new
   * location hears `device.online` now (not through the store's compare-and-set: the terminal was
   * announced online already, to no location or another one). The event is owed in the store like a
   * presence change (`owePresence`), so a crash or an outage before the feed stored it leaves it to the
   * outbox sweep, which announces it to the location the device then belongs to.
   */
  located(sn: string, locationId: number | null, now: number): void {
    const entry = this.#seen.get(sn);
    if (!entry?.online || entry.locationId === locationId) return;
    entry.locationId = locationId;
    if (locationId === null) return;
    const at = new Date(now).toISOString();
    const marker = newMarker();
    void this.store.cluster
      .owePresence(sn, marker, at)
      .then((owed) =>
        owed ? this.#emitStored(sn, locationId, 'online', at, marker) : this.bus.emit('device.online', { location_id: locationId, sn, at }),
      )
      .then(undefined, (err: unknown) => this.#announceFailed(err, sn));
  }

  /**
   * Compare-and-set in the store; only the node that changed it emits the transition. The change keeps
   * the outbox marker of its event until the feed stored it (else `sweepUnannounced` announces it).
   */
  async #announce(sn: string, locationId: number | null, to: 'online' | 'offline', now: number): Promise<void> {
    const at = new Date(now).toISOString();
    const marker = newMarker();
    if (await this.store.cluster.setPresence(sn, to, marker, at)) await this.#emitStored(sn, locationId, to, at, marker);
  }

  async #emitStored(sn: string, locationId: number | null, to: 'online' | 'offline', at: string, marker: string): Promise<void> {
    const payload = { location_id: locationId, sn, at, feed_event: randomUUID() };
    if (await this.bus.emitStored(to === 'online' ? 'device.online' : 'device.offline', payload))
      await this.store.cluster.presenceAnnounced(sn, marker);
  }

  /** The outbox sweep: presence changes made before `before` whose event a crash or an outage kept from the feed. */
  async sweepUnannounced(before: string): Promise<number> {
    const owed = await this.store.cluster.unannouncedPresence(before, 500);
    for (const o of owed) await this.#emitStored(o.sn, o.location_id, o.presence, o.at, o.marker);
    return owed.length;
  }

  #announceFailed(err: unknown, sn: string): void {
    if (err instanceof BioGateError && err.code === 'STORE_UNAVAILABLE')
      this.log.warn({ sn }, 'store unavailable: presence change announced later');
    else this.log.error({ err, sn }, 'presence change could not be stored');
  }

  /** Polls of `sn` held on this node now. */
  heldPolls(sn: string): number {
    return this.#held.get(sn) ?? 0;
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

  /**
   * Marks devices offline whose last request is older than the threshold (and no poll is held),
   * unless another node owns them now (moved, not gone). Resolves when every announcement is stored.
   */
  async sweep(now: number): Promise<void> {
    const quiet: [string, Seen][] = [];
    for (const [sn, s] of this.#seen) {
      if (this.#held.has(sn)) {
        s.at = now;
        this.#dirty.add(sn);
        continue;
      }
      if (s.online && now - s.at > this.thresholdMs) {
        s.online = false;
        quiet.push([sn, s]);
      }
      if (!s.online && now - s.at > this.thresholdMs * 10 && !this.#dirty.has(sn)) this.#seen.delete(sn);
    }
    for (const [sn, s] of quiet) {
      try {
        const lease = await this.store.cluster.deviceLease(sn);
        if (lease?.owner_node && lease.owner_node !== this.node && lease.lease_until !== null && Date.parse(lease.lease_until) > now) {
          this.forget(sn);
          continue;
        }
        await this.#announce(sn, s.locationId, 'offline', now);
      } catch (err) {
        s.online = true; // the next sweep tries again
        this.#announceFailed(err, sn);
      }
    }
  }

  /**
   * Devices announced online whose node is gone (lease expired, nothing seen for the threshold plus
   * the write-behind delay): announced offline. Run by one node at a time (a job lease).
   */
  async sweepOrphans(now: number): Promise<number> {
    const before = new Date(now - this.thresholdMs - FLUSH_MARGIN_MS).toISOString();
    let n = 0;
    for (const d of await this.store.cluster.staleOnline(before, new Date(now).toISOString(), 500)) {
      if (this.#seen.get(d.sn)?.online) continue; // served here: the node's own sweep decides
      this.#elsewhere.delete(d.sn);
      await this.#announce(d.sn, d.location_id, 'offline', now);
      n++;
    }
    return n;
  }

  /**
   * Writes pending last_seen values, FLUSH_BATCH at a time with a turn of the event loop between
   * batches. When the store cannot be reached what is not written stays pending for the next flush
   * (the map keeps the newest value), so an outage delays last_seen but does not lose it;
   * one warning per outage, not one per flush. One flush runs at a time: a second caller (shutdown)
   * waits for it and then writes what is still pending.
   */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#dirty.size === 0 && this.#leaving.size === 0) return;
    this.#flushing = this.#flushPending().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #flushPending(): Promise<void> {
    const pending = [...this.#dirty];
    this.#dirty.clear();
    // Terminals gone to another node go with the first batch (the store keeps the newer value).
    const leaving = [...this.#leaving].map(([sn, e]) => ({ sn, ...e }));
    this.#leaving.clear();
    for (let i = 0; i < Math.max(pending.length, 1); i += FLUSH_BATCH) {
      if (i > 0) await nextTurn();
      // Read now, not when the flush began: a terminal seen meanwhile gets its newest time.
      const entries = pending.slice(i, i + FLUSH_BATCH).flatMap((sn) => {
        const s = this.#seen.get(sn);
        return s ? [{ sn, last_seen: new Date(s.at).toISOString(), last_address: s.address }] : [];
      });
      try {
        await this.store.devices.touchMany(i === 0 ? [...leaving, ...entries] : entries);
      } catch (err) {
        for (const sn of pending.slice(i)) this.#dirty.add(sn);
        if (i === 0) for (const { sn, ...e } of leaving) if (!this.#seen.has(sn) && !this.#leaving.has(sn)) this.#leaving.set(sn, e);
        if (!(err instanceof BioGateError) || err.code !== 'STORE_UNAVAILABLE') throw err;
        if (!this.#flushFailing)
          this.log.warn({ pending: this.#dirty.size }, 'store unavailable: last_seen writes kept for the next flush');
        this.#flushFailing = true;
        return;
      }
    }
    if (this.#flushFailing) this.log.info({ written: pending.length }, 'store reachable again: pending last_seen written');
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
