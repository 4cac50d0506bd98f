/** The sync outbox port: users whose device sync is owed. */
import type { Iso } from './records.js';

/**
 * A user whose device sync is owed [DESIGN "Sync"]: every user write that changes a user (create,
 * update, deactivate, delete) leaves one for (location, pin), committed no later than the change
 * itself (same transaction on SQLite; written before the change on MongoDB). The sync outbox
 * processor (src/sync/outbox.ts) queues the ops the user's current state implies and removes it.
 */
export interface OutboxEntry {
  readonly location_id: number;
  readonly pin: number;
  /** Changes with every write that marks the user: removal only takes the revision it processed. */
  readonly rev: string;
  readonly since: Iso;
  /**
   * The areas the user left by the writes this entry stands for (issue #33): the terminals of those
   * areas may hold the user and are sent its delete; absent when no write changed the user's areas.
   */
  readonly areas?: readonly number[];
}

export interface SyncOutboxPort {
  /** The entries of these pins. */
  get(locationId: number, pins: readonly number[]): Promise<readonly OutboxEntry[]>;
  /** Entries marked at or before `before`, oldest first (the recovery sweep). */
  due(before: Iso, limit: number): Promise<readonly OutboxEntry[]>;
  /**
   * Removes each entry that still holds the given revision; returns the ones it did not remove
   * (marked again meanwhile, or already gone): their user changed while they were processed.
   */
  done(entries: readonly OutboxEntry[]): Promise<readonly OutboxEntry[]>;
}
