/**
 * The feed outbox (issue #32): attendance and door events a terminal was told OK for owe their feed
 * events even across a crash or a long store outage.
 *
 * Invariants:
 * - The rows are written carrying a marker (`feed_event`, one per store write) in the same write as
 *   the rows themselves (ClusterPort OutboxTable); the append that stores their feed event clears it
 *   (SQLite: in the same transaction; MongoDB: right after, and a repeat of the same id is skipped).
 * - A feed event's id follows from its marker and its first row id, so the live path and a sweep
 *   name the same event alike and it is stored once.
 * - The sweep (at start, then every SWEEP_EVERY_MS for markers older than SWEEP_AGE_MS) hands every
 *   row still carrying a marker to the appender, as the event it would have been; markers the
 *   appender is working on now are left to it.
 */
import { createHash } from 'node:crypto';
import type { Attendance, OutboxSettle, StoredDoorEvent, Unannounced } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import type { BusEvents } from './bus.js';

/** How often a gateway looks for events owed past an outage. */
export const SWEEP_EVERY_MS = 60_000;
/** Markers younger than this may still be in another node's appender (which waits out a minute of outage). */
export const SWEEP_AGE_MS = 120_000;
/** Rows read per table and sweep round. */
const SWEEP_PAGE = 5_000;

/** What an event owes the outbox: its id, and the rows whose markers its append clears. */
export interface FactOutbox {
  readonly eventId: string;
  readonly settle: OutboxSettle;
}

/** A UUID-shaped id derived from a marker and a row id (RFC 4122 layout, version 5 bits). */
export function outboxEventId(marker: string, firstId: number): string {
  const h = createHash('sha1').update(`${marker}:${firstId}`).digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x50;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** The outbox part of a bus event written with a marker; undefined for every other event. */
export function outboxOf(name: keyof BusEvents, payload: unknown): FactOutbox | undefined {
  if (name === 'attendance.recorded') {
    const p = payload as BusEvents['attendance.recorded'];
    const first = p.records[0];
    if (p.feed_event === undefined || !first) return undefined;
    const eventId = outboxEventId(p.feed_event, first.id);
    return { eventId, settle: { event: eventId, table: 'attendance', ids: p.records.map((r) => r.id) } };
  }
  if (name === 'door.event') {
    const p = payload as BusEvents['door.event'];
    if (p.feed_event === undefined) return undefined;
    const eventId = outboxEventId(p.feed_event, p.record.id);
    return { eventId, settle: { event: eventId, table: 'door_events', ids: [p.record.id] } };
  }
  return undefined;
}

/** An event the sweep found owed, as the bus event that would have carried it. */
export type Owed =
  | { readonly name: 'attendance.recorded'; readonly payload: BusEvents['attendance.recorded'] }
  | { readonly name: 'door.event'; readonly payload: BusEvents['door.event'] };

/**
 * One round of the sweep: the owed events of up to a page of rows per table, rows written before
 * `before` (all when undefined). Attendance rows of one marker form one event, as they did live.
 */
export async function owedEvents(store: Store, before: string | undefined): Promise<Owed[]> {
  const young = (r: { created_at: string }) => before !== undefined && r.created_at >= before;
  const owed: Owed[] = [];
  const groups = new Map<string, Unannounced<Attendance>[]>();
  for (const row of await store.attendance.unannounced(SWEEP_PAGE)) {
    if (young(row.record)) continue;
    const key = `${row.marker}\u0000${row.record.location_id}`;
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  for (const [, rows] of groups) {
    const first = rows[0] as Unannounced<Attendance>;
    owed.push({
      name: 'attendance.recorded',
      payload: { location_id: first.record.location_id, records: rows.map((r) => r.record), feed_event: first.marker },
    });
  }
  for (const row of await store.doorEvents.unannounced(SWEEP_PAGE)) {
    if (young(row.record)) continue;
    const record: StoredDoorEvent = row.record;
    owed.push({ name: 'door.event', payload: { location_id: record.location_id, record, feed_event: row.marker } });
  }
  return owed;
}
