/**
 * Mailbox lanes. API commands carry the caller's priority 0–100. Background sync
 * ops use negative priorities so that, ordered by priority, explicit commands
 * always overtake them, and revocations go before additions [API-CONTRACT §5 Commands].
 * The API shows sync ops with priority 0.
 */
export const SYNC_PRIORITY = {
  /**
   * Deletes of the previous location's users from a moved terminal: above every API command (0–100),
   * since the device is handed nothing else until they are confirmed (devices/delivery.ts).
   */
  moved: 1_000,
  /** time-sync after a time zone or UTC offset change: the clock first, so punches are stamped right. */
  time: -5,
  /** user.delete and template.delete: revoking access first. */
  delete: -10,
  /** user.upsert */
  upsert: -20,
  /** template.upsert, after the user exists on the device. */
  template: -30,
  /** Reads of the terminal's tables for an audit (roster, rights): after every line owed before them. */
  audit: -40,
} as const;

export type SyncOp = 'user.upsert' | 'user.delete' | 'template.upsert' | 'template.delete';

/**
 * Upserts stay pending this long before they expire (a device offline for a month gets a fresh roster
 * on assignment or sync-users). Revocations (user.delete, template.delete) never expire: they are owed until the
 * terminal confirms them or is unassigned (issue #31).
 */
export const SYNC_EXPIRY_S = 30 * 86_400;
