/** The cluster port: what several nodes on one store share (event feed, leases, device ownership, presence). */
import type { Iso } from './records.js';

/** One event of the cluster feed as stored (src/events/types.ts FeedEvent). */
export interface StoredEvent {
  readonly id: string;
  /** Per location: 1, 2, 3, … assigned atomically by appendEvents. */
  readonly seq: number;
  readonly location_id: number;
  readonly type: string;
  readonly at: Iso;
  readonly node: string;
  readonly data: unknown;
}

/** Events deleted by one pruneEvents call unless told otherwise (a bounded write: the caller yields in between). */
export const EVENT_PRUNE_BATCH = 1_000;

export interface EventPruneOptions {
  readonly limit?: number;
  /** Per location: the last seq every enabled webhook subscription has collected. */
  readonly holds?: ReadonlyMap<number, number>;
  /** Held events older than this go anyway (required with holds). */
  readonly hardBefore?: Iso;
}

/**
 * The last seq of a location's prunable prefix: `rows` are its oldest events in seq order (seq <= its latest
 * minus keep). A location's events are appended in time order, so what may go is a prefix: the walk stops at the
 * first event that must stay (too recent, or held by a webhook cursor and not past the hard cap).
 */
export function prunablePrefix(
  rows: readonly { readonly seq: number; readonly at: Iso }[],
  before: Iso,
  hold: number | undefined,
  hardBefore: Iso | undefined,
): number | null {
  let last: number | null = null;
  for (const r of rows) {
    const held = hold !== undefined && r.seq > hold;
    if (r.at >= (held ? (hardBefore ?? before) : before)) break;
    last = r.seq;
  }
  return last;
}

/** The one location of an event batch (ClusterPort.appendEvents); a mixed batch is a programming error. */
export function oneLocation(events: readonly { readonly location_id: number }[]): number {
  const id = events[0]?.location_id;
  if (id === undefined || events.some((e) => e.location_id !== id)) throw new Error('appendEvents: one location per batch');
  return id;
}

/**
 * The feed outbox: rows a terminal was told OK for (attendance, door events), command transitions
 * and an operator's device changes (assign, unassign, registration reset) are written carrying a marker
 * of the feed event they still owe (`feed_event`), in the same write as the row itself. The append
 * that stores the event clears the marker (ClusterPort.appendEvents `settle`), so a crash or an
 * outage between the two leaves the marker for the feed's sweep (src/events/outbox.ts).
 * A command is written again by its next transition, a device by the operator's next change: its
 * marker is then the newer one, which owes the event of the row as it now stands.
 */
export type OutboxTable = 'attendance' | 'door_events' | 'commands' | 'devices';

/** Rows whose owed feed event (`event`, its id) an append stores: their markers are cleared with it. */
export interface OutboxSettle {
  readonly event: string;
  readonly table: OutboxTable;
  readonly ids: readonly number[];
  /**
   * The marker the event is owed under (always given for `commands` and `devices`). When set, only rows still
   * carrying it are cleared: a row written again under a newer marker keeps that one, and the
   * event is still stored. When none of its rows carries a marker any more, this event or a newer
   * one of the same rows was stored before: it is not stored (a sweep's stale offer).
   */
  readonly marker?: string;
}

/** A row still owing its feed event, with the marker it was written under. */
export interface Unannounced<R> {
  readonly marker: string;
  readonly record: R;
}

/** Who serves a device (the `owner_node` / `lease_until` of its record) and its last announced presence. */
export interface DeviceLease {
  readonly owner_node: string | null;
  readonly lease_until: Iso | null;
  /** The last presence event the cluster emitted for it (null: none yet). */
  readonly presence: 'online' | 'offline' | null;
}

export interface EventWatch {
  close(): Promise<void>;
  /**
   * Hands over now, in this turn, what other processes appended since the last look (SQLite: a read
   * of `PRAGMA data_version`, and the events only when it moved). Absent where events are pushed
   * (a MongoDB change stream delivers them as they come).
   */
  catchUp?(): void;
}

/** What several nodes on one store share: the event feed, job leases, device ownership and presence. */
export interface ClusterPort {
  /**
   * Stores events of ONE location under its next sequence numbers, consecutive and in the given order
   * (taken atomically: two nodes never get the same). One write for the lot: the feed appends what
   * accumulated while the previous append ran (group commit). Returns them with their seqs.
   * `settle`: outbox rows whose markers are cleared in the same write (SQLite: one transaction;
   * MongoDB: right after the insert). An outbox event stored before is not stored again (its
   * rows carry no marker any more; MongoDB also: its id is stored, as after a crash between the insert
   * and the clearing), so a sweep offering it again changes nothing.
   */
  appendEvents(events: readonly Omit<StoredEvent, 'seq'>[], settle?: readonly OutboxSettle[]): Promise<readonly StoredEvent[]>;
  /** Events of a location with seq > after, in seq order. */
  eventsAfter(locationId: number, after: number, limit: number): Promise<readonly StoredEvent[]>;
  /** The last sequence number handed out per location. */
  latestSeqs(): Promise<ReadonlyMap<number, number>>;
  /**
   * Deletes events older than `before`, except the newest `keep` of each location, oldest first, at most
   * `options.limit` (default EVENT_PRUNE_BATCH) in one call. `options.holds`: per location, events with a seq
   * above the hold stay (a webhook subscription has not collected them yet) unless older than
   * `options.hardBefore`. Returns how many went; the caller repeats while it gets `limit`.
   */
  pruneEvents(before: Iso, keep: number, options?: EventPruneOptions): Promise<number>;
  /**
   * Every event any node or process appends from now on: a MongoDB change stream on the events
   * collection; on SQLite, a look every 100 ms at whether another process (the CLI) committed.
   * `onOtherWrite`: another process wrote something, announced or not (SQLite only; what this node
   * keeps from the store may be stale). Undefined where the store cannot offer it: MongoDB without a
   * replica set (one node: its own events are delivered in process).
   */
  watchEvents(
    onEvent: (event: StoredEvent) => void,
    onError: (err: unknown) => void,
    onOtherWrite?: () => void,
  ): Promise<EventWatch | undefined>;
  /** Takes or renews a named lease for `node` until `until`, if it is free, expired, or already ours. */
  acquireLease(name: string, node: string, now: Iso, until: Iso): Promise<boolean>;
  releaseLease(name: string, node: string): Promise<void>;
  /**
   * The node serving a device's request owns it: sets owner_node/lease_until unconditionally (the
   * terminal is where its latest request is) and returns what was there before. Undefined: no such device.
   */
  claimDevice(sn: string, node: string, until: Iso): Promise<DeviceLease | undefined>;
  deviceLease(sn: string): Promise<DeviceLease | undefined>;
  /**
   * Compare-and-set of the announced presence: true when this call changed it (the caller emits the
   * event). `marker`: the outbox marker of that event, kept with `now` until `presenceAnnounced`.
   */
  setPresence(sn: string, to: 'online' | 'offline', marker?: string, now?: Iso): Promise<boolean>;
  /**
   * A device announced online was assigned (its `device.online` reached no location yet): owe that
   * event again under `marker`, as setPresence would. False when the store does not read it online.
   */
  owePresence(sn: string, marker: string, now: Iso): Promise<boolean>;
  /** The presence event owed under `marker` is stored: the marker goes, unless a newer change replaced it. */
  presenceAnnounced(sn: string, marker: string): Promise<void>;
  /** Devices whose presence change (before `before`) still owes its event, oldest first. */
  unannouncedPresence(
    before: Iso,
    limit: number,
  ): Promise<readonly { sn: string; location_id: number | null; presence: 'online' | 'offline'; marker: string; at: Iso }[]>;
  /** Devices announced online whose last_seen is before `before` and whose owner's lease ended before `now`. */
  staleOnline(before: Iso, now: Iso, limit: number): Promise<readonly { sn: string; location_id: number | null }[]>;
}
