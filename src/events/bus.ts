/**
 * The typed in-process event bus (DESIGN.md "Events"). Producers emit facts in
 * the past tense; the MQTT bridge, the WebSocket stream, metrics and the device
 * hub subscribe. A failing listener is logged and never breaks the producer:
 * a synchronous throw and an async listener's rejection alike (zigbee2mqtt's
 * eventBus wraps each callback the same way), so no listener can cause an
 * unhandled rejection that ends the process.
 */
import type {
  AccessLevel,
  AlertIncident,
  AlertRule,
  Attendance,
  AuditEntry,
  Command,
  CountedArea,
  Device,
  Schedule,
  StoredDoorEvent,
} from '../store/ports/index.js';
import type { SyncViewData } from '../views/device-sync.js';
import type { PresenceEntry } from '../views/time-card.js';

export interface BusEvents {
  /** `feed_event`: set when emitted with `emitStored` (src/devices/presence.ts: the change's marker stays until stored). */
  'device.online': { location_id: number | null; sn: string; at: string; feed_event?: string };
  'device.offline': { location_id: number | null; sn: string; at: string; feed_event?: string };
  /**
   * `changed_options`: set by a terminal's session update, the option keys it set or changed (the event carries only these).
   * `feed_event`: the outbox marker an operator's change was written under (src/events/outbox.ts).
   */
  'device.updated': {
    location_id: number | null;
    device: Device;
    changed_options?: Readonly<Record<string, string>>;
    feed_event?: string;
  };
  /**
   * A terminal's roster sync state changed (src/sync/terminal-state.ts), emitted with `emitStored` under
   * `feed_event`, a fresh id: the change's outbox marker stays until the event is stored.
   */
  'device.sync': { location_id: number | null; sn: string; sync: SyncViewData; feed_event?: string };
  'device.conflict': { location_id: number | null; sn: string; addresses: readonly string[] };
  /** `feed_event`: the outbox marker the command's transition was written under (src/events/outbox.ts). */
  'command.updated': { location_id: number | null; command: Command; feed_event?: string };
  /**
   * A command whose row still carries the marker of an event not stored yet (another node's `pending`,
   * say), offered by the claim about to move it on: only the feed takes it, as the `command.updated`
   * the sweep would store, and answers `emitStored` once it is stored, so the next transition's
   * event comes after it (src/devices/lifecycle.ts `announceOwed`).
   */
  'command.owed': { location_id: number; command: Command; feed_event: string };
  /** New pending work for a device (commands or sync ops): held polls are released. */
  'mailbox.changed': { location_id: number | null; sn: string };
  /** `feed_event`: the outbox marker the records were written under (src/events/outbox.ts). */
  'attendance.recorded': { location_id: number; records: readonly Attendance[]; feed_event?: string };
  /**
   * Who is in after punches were stored (src/attendance/presence-feed.ts): the location's head count and the presence
   * of the PINs punched. At most once (GET /api/presence is the truth to read again).
   */
  'presence.changed': { location_id: number; count: number; users: readonly PresenceEntry[]; absent: readonly string[] };
  /** A record voided through the API (src/attendance/manual.ts), emitted with `emitStored` right after the write (at most once). */
  'attendance.voided': { location_id: number; record: Attendance; feed_event?: string };
  /** A punch photo kept after its record (src/devices/handlers/photos.ts): the record it shows. At most once. */
  'attendance.photo': { location_id: number; record: Attendance };
  /** A door or alarm event as stored (src/devices/door-events.ts); only new ones, not re-sent duplicates. */
  'door.event': { location_id: number; record: StoredDoorEvent; feed_event?: string };
  /**
   * The users' state after a change: active (`upserted`), inactive (`deactivated`), gone (`deleted`). Emitted by
   * the sync outbox (src/sync/outbox.ts) with `emitStored` under `feed_event`, a fresh id its entries stay owed for.
   */
  'user.changed': { location_id: number; pins: readonly number[]; change: 'upserted' | 'deactivated' | 'deleted'; feed_event?: string };
  /** A schedule or access level created, changed or deleted (src/users/access.ts), emitted with `emitStored`. */
  'schedule.changed': { location_id: number; schedule: Schedule; change: 'created' | 'updated' | 'deleted'; feed_event?: string };
  'access_level.changed': { location_id: number; level: AccessLevel; change: 'created' | 'updated' | 'deleted'; feed_event?: string };
  /** An audit log entry appended (src/audit-log/store.ts), announced by the door that acted, after its commit. At most once. */
  'audit.recorded': { location_id: number; entry: AuditEntry };
  /** An alert incident raised or cleared by the alerts job (src/alerts/evaluate.ts), after its compare-and-set. At most once. */
  'alert.raised': { location_id: number; rule: AlertRule; incident: AlertIncident; cleared_at: null };
  'alert.cleared': { location_id: number; rule: AlertRule; incident: AlertIncident; cleared_at: string };
  /** An area created, renamed or deleted (src/users/areas.ts), emitted with `emitStored` under `feed_event`. */
  'area.changed': {
    location_id: number;
    area: CountedArea | { id: number; name: string };
    change: 'created' | 'updated' | 'deleted';
    feed_event?: string;
  };
}

export type BusEventName = keyof BusEvents;
/** May be async: a rejected promise is caught and reported like a throw; `false` tells emitStored it was not kept. */
type Listener<K extends BusEventName> = (payload: BusEvents[K]) => void | boolean | Promise<void | boolean>;

export class EventBus {
  readonly #listeners = new Map<BusEventName, Set<Listener<never>>>();
  readonly #onError: (err: unknown, event: BusEventName) => void;

  constructor(onError: (err: unknown, event: BusEventName) => void = () => {}) {
    this.#onError = onError;
  }

  on<K extends BusEventName>(event: K, listener: Listener<K>): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  emit<K extends BusEventName>(event: K, payload: BusEvents[K]): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        const result: unknown = (listener as Listener<K>)(payload);
        if (isThenable(result)) result.then(undefined, (err: unknown) => this.#report(err, event));
      } catch (err) {
        this.#report(err, event);
      }
    }
  }

  /**
   * Emits, then waits for the listeners that answer with a promise: true unless one said false or
   * failed. The feed answers for an outbox event whether it was stored (src/events/feed-appender.ts),
   * so a producer keeps what it owes until it was.
   */
  async emitStored<K extends BusEventName>(event: K, payload: BusEvents[K]): Promise<boolean> {
    const answers: Promise<boolean>[] = [];
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        const result: unknown = (listener as Listener<K>)(payload);
        if (isThenable(result))
          answers.push(
            Promise.resolve(result).then(
              (r) => r !== false,
              (err: unknown) => (this.#report(err, event), false),
            ),
          );
      } catch (err) {
        this.#report(err, event);
        answers.push(Promise.resolve(false));
      }
    }
    return (await Promise.all(answers)).every(Boolean);
  }

  /** The error callback itself must not throw into the producer. */
  #report(err: unknown, event: BusEventName): void {
    try {
      this.#onError(err, event);
    } catch {
      // Nothing sensible is left to do; the producer carries on.
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function'
  );
}
