/**
 * Which command status may follow which: the one table of the command status machine. The store's
 * transition methods (src/store/commands.ts) are built on it, once for both adapters; the adapters
 * only apply a rule's compare-and-set (src/store/ports/command-records.ts) and hold no policy.
 * src/devices/lifecycle.ts sequences these transitions, settles composite groups and announces each
 * change. The table lives on the store floor, below the domain, because the store's own transition
 * methods need it and the store imports nothing above itself.
 *
 *   pending ──claim──► sent ──succeed──► success
 *      │  ▲              │  └──fail──► failed
 *      │  └─unclaim, requeue, retry─┘
 *      └──fail, cancel, failPending, expire──► failed
 *
 * `sent → pending` is documented three ways: a batch whose reply never reached the terminal is put
 * back (unclaim), a background sync op whose result never came goes again (requeue, with back-off), a
 * preset refused with a fallback goes again in its fallback form [COMMANDS §2.5] (retry). When a
 * newer pending sync op for the same (device, user) exists, a sync op cannot go back to pending
 * (one pending op per key): it is superseded instead (supersede, `SYNC_SUPERSEDED`).
 */
import type { CommandStatus } from './commands.js';

/** A compare-and-set rule: the statuses a record may be in, and the status it takes (null: unchanged). */
export interface CommandTransition {
  readonly from: readonly CommandStatus[];
  readonly to: CommandStatus | null;
  /** Further statuses a composite record (a group's own record) may be in. */
  readonly compositeFrom?: readonly CommandStatus[];
}

const rule = (from: readonly CommandStatus[], to: CommandStatus | null, compositeFrom?: readonly CommandStatus[]): CommandTransition =>
  compositeFrom ? { from, to, compositeFrom } : { from, to };

export const COMMAND_TRANSITIONS = {
  /** A poll takes the command for delivery (exactly one claimer wins). */
  claim: rule(['pending'], 'sent'),
  /** The device answered (or, pending, a composite whose group settled). Acknowledged only when it was sent. */
  succeed: rule(['pending', 'sent'], 'success'),
  /** A negative answer, an ack timeout, or a failure before dispatch. */
  fail: rule(['pending', 'sent'], 'failed'),
  /** Cancellation: only while nothing was delivered, so a sent command is never marked cancelled. */
  cancel: rule(['pending'], 'failed'),
  /** Pending commands of a device (unassignment) or a cancelled group. */
  failPending: rule(['pending'], 'failed'),
  /** Pending commands past their expires_at. */
  expire: rule(['pending'], 'failed'),
  /** The claimed batch never reached the terminal: back to pending, as the same attempt. */
  unclaim: rule(['sent'], 'pending'),
  /** A sync op without a result goes again as a new attempt. */
  requeue: rule(['sent'], 'pending'),
  /** [COMMANDS §2.5] the refused preset goes again in its fallback form, as a new attempt. */
  retry: rule(['sent'], 'pending'),
  /** A sync op that cannot go back to pending because a newer op for the same key is pending. */
  supersede: rule(['sent'], 'failed'),
  /** Child lines of an attempt that will not be answered any more (`ATTEMPT_SUPERSEDED`). */
  supersedeLines: rule(['pending', 'sent'], 'failed'),
  /** Not a transition: what is known so far of a command in flight (a composite's counts while its group is pending). */
  progress: rule(['sent'], null, ['pending']),
} as const satisfies Readonly<Record<string, CommandTransition>>;
