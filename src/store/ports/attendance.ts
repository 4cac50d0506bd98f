/** The attendance port: punches as terminals reported them, deduplicated, with a cursor feed. */
import type { Unannounced } from './cluster.js';
import type { Iso, Page, Window } from './records.js';

export interface Attendance {
  readonly id: number;
  readonly location_id: number;
  /** The terminal; '' for a manual punch (`source: 'manual'`). */
  readonly sn: string;
  readonly pin: string;
  readonly user_id: number | null;
  /** UTC instant, computed from local_time and the location's time zone. */
  readonly timestamp: Iso;
  /** `YYYY-MM-DD HH:MM:SS` as the device reported it. */
  readonly local_time: string;
  readonly status: number;
  readonly verify: number;
  readonly work_code: string | null;
  readonly created_at: Iso;
  /** device: a terminal's punch; manual: entered through the API (issue #35 item 3). */
  readonly source: 'device' | 'manual';
  /** A manual punch's reason, and the token that entered it (its id and label then); null for a terminal's. */
  readonly reason: string | null;
  readonly created_by: { readonly token_id: number; readonly label: string | null } | null;
  /** Voided through the API: the record stays, it leaves the time cards. Never both unset and set again. */
  readonly voided_at: Iso | null;
  readonly void_reason: string | null;
}

/** What a manual punch adds to its record. */
export interface ManualFacts {
  readonly reason: string;
  readonly token_id: number;
  readonly label: string | null;
}

/** A record to store: a terminal's punch, or a manual one with `manual` (then `sn` is ''). */
export type NewAttendance = Omit<Attendance, 'id' | 'created_at' | 'source' | 'reason' | 'created_by' | 'voided_at' | 'void_reason'> & {
  readonly manual?: ManualFacts;
};

export interface AttendanceFilter {
  readonly from?: Iso;
  readonly to?: Iso;
  readonly pin?: string;
  readonly sn?: string;
  /** Only records that arrived after this one, in the order of `listAfter` (the BioTime API's `id__gt`). */
  readonly after?: AttendanceCursor;
  /** Only records with an id above this (a cursor whose record is gone: its id is all that is known). */
  readonly after_id?: number;
}

/**
 * The order of `list`: `newest` (timestamp, then id, descending: the REST API's), by arrival (the order of
 * `listAfter`) or by punch time, ascending or descending (the BioTime API's `ordering`).
 */
export type AttendanceOrder = 'newest' | 'arrival' | '-arrival' | 'time' | '-time';

/** Position in the attendance feed: the last record a consumer has seen. */
export interface AttendanceCursor {
  readonly id: number;
  readonly created_at: Iso;
}

export interface AttendancePort {
  /**
   * Stores records not seen before (dedup key: location_id, sn, pin, local_time, status, verify); returns the new ones.
   * `feedEvent`: the new rows owe their feed event under this outbox marker, written with them (see OutboxTable in
   * ./cluster.ts; SQLite keeps it once for the write's range of ids, MongoDB on every row).
   */
  record(records: readonly NewAttendance[], now: Iso, feedEvent?: string): Promise<readonly Attendance[]>;
  /**
   * Rows still owing their feed event, grouped by marker, in id order within one. About `limit`: SQLite keeps a
   * write's rows together (one event), so its last write may pass the limit.
   */
  unannounced(limit: number): Promise<readonly Unannounced<Attendance>[]>;
  /**
   * Newest first unless `order` says otherwise. In arrival order, or with `filter.after`, only what `listAfter`
   * at `now` would give (on MongoDB, records older than its settle window), so that paging through a growing
   * list never passes a record over.
   */
  list(locationId: number, filter: AttendanceFilter, window: Window, order?: AttendanceOrder, now?: Iso): Promise<Page<Attendance>>;
  /**
   * The cursor feed (GET /api/attendance?after=): records that arrived after `after` (null: from the
   * first), oldest arrival first, at most `limit`. Arrival order is the adapter's: SQLite's ids (one
   * writer, so commit order); on MongoDB ids come in per-node blocks, so (created_at, id), and only
   * records older than `now` minus a settle window, so a write still in flight cannot be passed over.
   */
  listAfter(
    locationId: number,
    after: AttendanceCursor | null,
    filter: AttendanceFilter,
    limit: number,
    now: Iso,
  ): Promise<readonly Attendance[]>;
  /**
   * How many records `listAfter` from the first would give (`after` null, the same `now`), counting
   * at most `max`: an export checks its size before it reads a row.
   */
  count(locationId: number, filter: AttendanceFilter, max: number, now: Iso): Promise<number>;
  /** One record of the location; undefined when there is none. */
  get(locationId: number, id: number): Promise<Attendance | undefined>;
  /**
   * Voids a record not voided yet (compare-and-set on voided_at): the voided record; 'voided' when it was already,
   * undefined when the location has no such record.
   */
  voidRecord(locationId: number, id: number, reason: string, at: Iso): Promise<Attendance | 'voided' | undefined>;
  /** Deletes records whose timestamp is before `before` (retention). Returns how many went. */
  prune(before: Iso, limit: number): Promise<number>;
}
