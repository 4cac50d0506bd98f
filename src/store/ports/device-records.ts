/** The device records port: records of tables BioGate keeps without parsing, one row per record. */
import type { Iso, Page, Window } from './records.js';

/**
 * A record of a table BioGate keeps without parsing (v3 `userauthorize`, `timezone`, `holiday`,
 * `identitycard`, `workcode`…, v2 `IDCARD`), stored as the device sent it, one row per record.
 */
export interface DeviceRecord {
  readonly id: number;
  readonly location_id: number;
  readonly sn: string;
  /** the table name as the device sent it */
  readonly table: string;
  /** `upload` (pushed by the device) or `query` (answer to a command) */
  readonly source: 'upload' | 'query';
  /** the command answered (querydata `cmdid`), null for uploads */
  readonly cmd_id: string | null;
  readonly record: string;
  readonly received_at: Iso;
}

export interface DeviceRecordsBatch {
  readonly location_id: number;
  readonly sn: string;
  readonly table: string;
  readonly source: 'upload' | 'query';
  readonly cmd_id: string | null;
  readonly records: readonly string[];
}

export interface DeviceRecordsFilter {
  readonly sn: string;
  /** exact table name, compared case-insensitively */
  readonly table?: string;
}

export interface DeviceRecordsPort {
  /** Appends the records in order (no dedup: a re-sent batch is stored again); returns how many. */
  append(batch: DeviceRecordsBatch, now: Iso): Promise<number>;
  /** Newest first (received_at, then id). */
  list(locationId: number, filter: DeviceRecordsFilter, window: Window): Promise<Page<DeviceRecord>>;
  /** Deletes records received before `before` (retention). Returns how many went. */
  prune(before: Iso, limit: number): Promise<number>;
  /**
   * BIOGATE_QUOTA_RECORDS: deletes up to `limit` of the location's oldest records beyond its newest `keep`
   * (by id, arrival order). Returns how many went.
   */
  trim(locationId: number, keep: number, limit: number): Promise<number>;
}
