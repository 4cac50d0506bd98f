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

export type SyncOp = 'user.upsert' | 'user.delete' | 'template.upsert' | 'template.delete' | 'photo.delete';

/** A revocation: owed until confirmed (no expiry), in the delete lane. A photo removed is one too (issue #35 item 4). */
export const isRevocation = (op: SyncOp): boolean => op === 'user.delete' || op === 'template.delete' || op === 'photo.delete';

export const priorityOf = (op: SyncOp): number =>
  isRevocation(op) ? SYNC_PRIORITY.delete : op === 'user.upsert' ? SYNC_PRIORITY.upsert : SYNC_PRIORITY.template;

/**
 * One pending op per (device, user), per template slot, or per user photo: a newer change replaces an
 * older one of the same key.
 */
export function syncKeyOf(op: SyncOp, pin: number, slot?: { readonly type: number; readonly no: number }): string {
  if (slot) return `template:${pin}:${slot.type}:${slot.no}`;
  return op === 'photo.delete' ? `photo:${pin}` : `user:${pin}`;
}

/**
 * Upserts stay pending this long before they expire (a device offline for a month gets a fresh roster
 * on assignment or sync-users). Revocations (isRevocation) never expire: they are owed until the
 * terminal confirms them or is unassigned (issue #31).
 */
export const SYNC_EXPIRY_S = 30 * 86_400;
