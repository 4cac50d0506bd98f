/**
 * The feed outbox (issue #32): facts whose feed events must survive a crash or a long store outage
 * between the data and its event: attendance and door events a terminal was told OK for, command
 * transitions (src/devices/lifecycle.ts: a delivery, a result a terminal posted and what follows from
 * it, an ack timeout, an API client's queueing and cancelling, expiry, unassignment; sync ops as
 * src/sync/enqueue.ts queues them) and an operator's device changes (src/devices/assignment.ts:
 * assign, unassign, registration reset). `user.changed` is owed by the sync outbox instead
 * (src/sync/outbox.ts): its entry stays until the event is stored (EventBus.emitStored).
 *
 * Invariants:
 * - The rows are written carrying a marker (`feed_event`, one per store write) in the same write as
 *   the rows themselves (ClusterPort OutboxTable; SQLite keeps a punch write's marker once, with its range
 *   of ids); the append that stores their feed event clears it
 *   (SQLite: in the same transaction; MongoDB: right after, and a repeat of the same id is skipped).
 * - A feed event's id follows from its marker and its first row id, so the live path and a sweep
 *   name the same event alike and it is stored once (by two nodes sweeping at once as well).
 * - A command or a device carries at most one marker: its latest marked write's. The append of an
 *   earlier write's event clears only its own marker, so the newer event stays owed; a sweep offers
 *   the row as stored, which is what its latest write's event said live. A device's marker is
 *   stored with the location whose feed owes it (an unassigned device has none of its own).
 * - Only rows whose event is stored are marked (commands: top-level, of a location): every marker
 *   has an event that clears it.
 * - A command's events are stored in the order of its transitions, whichever node wrote them: before
 *   a claim (and before a composite is settled) the event its row still owes is stored, by the
 *   claiming node if need be (bus `command.owed`, src/devices/lifecycle.ts announceOwed; after
 *   letting its writer's append land, ./owed-wait.ts), so a `sent` never precedes the `pending`
 *   another node's append still carries.
 * - Owed by their producer instead (EventBus.emitStored, a fresh event id each time: at least once):
 *   user.changed (src/sync/outbox.ts), device.sync (src/sync/terminal-state.ts), device.online and
 *   device.offline (src/devices/presence.ts); each keeps its own marker until the event is stored.
 * - The sweep (at start, then every SWEEP_EVERY_MS for markers older than SWEEP_AGE_MS) hands every
 *   row still carrying a marker to the appender, as the event it would have been; markers the
 *   appender is working on now are left to it. It reads at most SWEEP_PAGE rows per table and round.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Attendance, Command, OutboxSettle, StoredDoorEvent, Unannounced } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import type { BusEvents } from './bus.js';

/** How often a gateway looks for events owed past an outage. */
export const SWEEP_EVERY_MS = 60_000;
/** Markers younger than this may still be in another node's appender (which waits out a minute of outage). */
export const SWEEP_AGE_MS = 120_000;
/** Rows read per table and sweep round. */
const SWEEP_PAGE = 5_000;

/**
 * What an event owes the outbox: its id, and the rows whose markers its append clears (none for an
 * event whose owner keeps it owed until told it was stored: the sync outbox's user.changed).
 */
export interface FactOutbox {
  readonly eventId: string;
  readonly settle?: OutboxSettle;
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
  if (name === 'device.updated') {
    const p = payload as BusEvents['device.updated'];
    if (p.feed_event === undefined) return undefined;
    const eventId = outboxEventId(p.feed_event, p.device.id);
    return { eventId, settle: { event: eventId, table: 'devices', ids: [p.device.id], marker: p.feed_event } };
  }
  if (name === 'command.updated') {
    const p = payload as BusEvents['command.updated'];
    if (p.feed_event === undefined) return undefined;
    const eventId = outboxEventId(p.feed_event, p.command.id);
    return { eventId, settle: { event: eventId, table: 'commands', ids: [p.command.id], marker: p.feed_event } };
  }
  if (
    name === 'user.changed' ||
    name === 'area.changed' ||
    name === 'attendance.voided' ||
    name === 'schedule.changed' ||
    name === 'access_level.changed' ||
    name === 'device.sync' ||
    name === 'device.online' ||
    name === 'device.offline'
  ) {
    const p = payload as BusEvents[
      'user.changed' | 'area.changed' | 'schedule.changed' | 'device.sync' | 'device.online' | 'device.offline'];
    return p.feed_event === undefined ? undefined : { eventId: p.feed_event };
  }
  return undefined;
}

/** A new marker for a command's transition, when the command is one that is announced (top-level, of a location). */
export function commandMarker(command: Pick<Command, 'parent_id' | 'location_id'>): string | undefined {
  return command.parent_id === null && command.location_id !== null ? randomUUID() : undefined;
}

/** A new marker for one store write (its rows' events are derived from it with their ids). */
export const newMarker = (): string => randomUUID();

/** An event the sweep found owed, as the bus event that would have carried it. */
export type Owed =
  | { readonly name: 'attendance.recorded'; readonly payload: BusEvents['attendance.recorded'] }
  | { readonly name: 'door.event'; readonly payload: BusEvents['door.event'] }
  | { readonly name: 'command.updated'; readonly payload: BusEvents['command.updated'] }
  | { readonly name: 'device.updated'; readonly payload: BusEvents['device.updated'] };

/**
 * One round of the sweep: the owed events of up to a page of rows per table, rows written before
 * `before` (all when undefined). Attendance rows of one marker form one event, as they did live; a
 * command or a device is one event, the row as stored.
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
  for (const row of await store.commands.unannounced(SWEEP_PAGE)) {
    const command: Command = row.record;
    // The marker is as old as the transition that wrote it.
    if (young({ created_at: command.updated_at ?? command.created_at })) continue;
    owed.push({ name: 'command.updated', payload: { location_id: command.location_id, command, feed_event: row.marker } });
  }
  for (const row of await store.devices.unannounced(SWEEP_PAGE)) {
    if (young({ created_at: row.record.updated_at ?? row.record.created_at })) continue;
    owed.push({ name: 'device.updated', payload: { location_id: row.location_id, device: row.record, feed_event: row.marker } });
  }
  return owed;
}
