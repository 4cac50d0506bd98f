/**
 * The audit log port (issue #36 item 1): append-only entries, one per change made through a door,
 * written by src/audit-log/ in the same unit of work as the change itself.
 */
import type { Iso } from './records.js';

/** Who made a change: a location token (the REST API, the console, MQTT requests), the admin token, the CLI, BioGate itself. */
export interface AuditActor {
  readonly kind: 'token' | 'admin' | 'cli' | 'system';
  readonly token_id?: number;
  readonly label?: string;
  /** The client's address (HTTP doors). */
  readonly address?: string;
}

/** A field's value before and after; a secret (token hash, password, card, templates, photo) only says that it changed. */
export type AuditChange = readonly [unknown, unknown] | '(changed)';

export interface NewAuditEntry {
  /** The location the change belongs to; null for a record of no location (an unassigned device the admin deleted). */
  readonly location_id: number | null;
  readonly at: Iso;
  readonly actor: AuditActor;
  /** `<target type>.<verb>`, e.g. `user.updated`, `scenario.started`. */
  readonly action: string;
  readonly target: { readonly type: string; readonly id: string };
  readonly changes: Readonly<Record<string, AuditChange>>;
}

export interface AuditEntry extends NewAuditEntry {
  /** Increasing in the order entries were appended (per store; on MongoDB one id per `$inc`). */
  readonly id: number;
}

export interface AuditFilter {
  readonly action?: string;
  readonly target_type?: string;
  /** Inclusive bounds on `at`. */
  readonly from?: Iso;
  readonly to?: Iso;
}

/** `location_id` undefined: every location's entries and those of none (the admin's view). */
export interface AuditScope {
  readonly location_id?: number;
}

/** How far the MongoDB cursor trails real time: longer than an append takes from its id to its write. */
export const AUDIT_TRAIL_MS = 5_000;

export interface AuditLogPort {
  /** Appends in order; the entries with their ids. */
  append(entries: readonly NewAuditEntry[]): Promise<readonly AuditEntry[]>;
  /** Newest first, a page at a time, with the total matching. */
  page(
    scope: AuditScope,
    filter: AuditFilter,
    window: { offset: number; limit: number },
  ): Promise<{ items: readonly AuditEntry[]; total: number }>;
  /**
   * Oldest first: entries with an id above `after`, at most `limit`. A cursor never skips an entry: on SQLite
   * ids are taken in commit order; on MongoDB (ids taken before the write, by any node) entries of the last
   * AUDIT_TRAIL_MS before `now` are left for the next call.
   */
  after(scope: AuditScope, filter: AuditFilter, after: number, now: Iso, limit: number): Promise<readonly AuditEntry[]>;
  /** Deletes up to `limit` entries older than `before`; how many went. */
  prune(before: Iso, limit: number): Promise<number>;
}
