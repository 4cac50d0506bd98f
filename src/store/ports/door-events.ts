/** The door events port: door and alarm events terminals reported [PUSH-v3 §7]. */
import type { Unannounced } from './cluster.js';
import type { Iso, Page, Window } from './records.js';

/**
 * What kind of door event: the [PUSH-v3 §7.7] event-code ranges of an `rtlog` line (`normal` 0–19 and
 * 200–253, `error` 20–99, `alarm` 100–199, `extended` 4000–6999, `other` any other code), or `state`
 * for an `rtstate` report of sensors, relays and alarms [PUSH-v3 §7.3].
 */
export type DoorEventType = 'normal' | 'error' | 'alarm' | 'extended' | 'other' | 'state';

/** A door or alarm event a terminal reported, stored per location (retention like attendance). */
export interface StoredDoorEvent {
  readonly id: number;
  readonly location_id: number;
  readonly sn: string;
  readonly type: DoorEventType;
  /** rtlog `event` code; null for a state report. */
  readonly event: number | null;
  /** rtlog `eventaddr` / rtstate `door`: the door number, when given. */
  readonly door: number | null;
  /** The user verified, null when none (`pin=0`). */
  readonly pin: string | null;
  readonly card_no: string | null;
  /** rtlog `verifytype`: a mode code or a NewVFStyles bit string [PUSH-v3 §7.8]. */
  readonly verify_type: string | null;
  /** rtlog `inoutstatus`: 0 in, 1 out. */
  readonly in_out: number | null;
  /** The terminal's own record number (rtlog `index`). */
  readonly device_index: number | null;
  /** `YYYY-MM-DD HH:MM:SS` as the terminal reported it. */
  readonly local_time: string;
  /** UTC instant, from local_time and the location's time zone. */
  readonly timestamp: Iso;
  /** rtstate bit fields as sent (hex): 2 bits of door sensor, 1 bit of relay, 1 byte of alarms per door. */
  readonly state: { readonly sensor: string; readonly relay: string; readonly alarm: string } | null;
  /** Keys the protocol reference does not name (sitecode, linkid, maskflag, temperature, …). */
  readonly extra: Readonly<Record<string, string>> | null;
  readonly created_at: Iso;
}

export type NewDoorEvent = Omit<StoredDoorEvent, 'id' | 'created_at'> & {
  /** What makes a re-sent record a duplicate within (location, sn) [PUSH-v3 §7.2]. */
  readonly dedup_key: string;
};

export interface DoorEventFilter {
  readonly from?: Iso;
  readonly to?: Iso;
  readonly sn?: string;
  readonly type?: DoorEventType;
}

export interface DoorEventsPort {
  /**
   * Stores events not seen before (same location, sn and dedup_key); returns the new ones, in input order.
   * `feedEvent`: the new rows are written carrying this outbox marker (see OutboxTable in ./cluster.ts).
   */
  append(events: readonly NewDoorEvent[], now: Iso, feedEvent?: string): Promise<readonly StoredDoorEvent[]>;
  /** Rows still owing their feed event, by marker then id, at most `limit`. */
  unannounced(limit: number): Promise<readonly Unannounced<StoredDoorEvent>[]>;
  /** Newest first (timestamp, then id). */
  list(locationId: number, filter: DoorEventFilter, window: Window): Promise<Page<StoredDoorEvent>>;
  /** Deletes events whose timestamp is before `before` (retention). Returns how many went. */
  prune(before: Iso, limit: number): Promise<number>;
  /**
   * BIOGATE_QUOTA_RECORDS: deletes up to `limit` of the location's oldest events beyond its newest `keep`
   * (by id, arrival order). Returns how many went.
   */
  trim(locationId: number, keep: number, limit: number): Promise<number>;
}
