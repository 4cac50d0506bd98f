/**
 * What an adapter gives the commands port: inserts, reads and queries, and compare-and-set of a
 * command's fields from a set of allowed statuses. The transition methods of CommandsPort are built
 * once on these (src/store/commands.ts) from the table in command-transitions.ts; an adapter holds
 * indexes and atomicity, not policy.
 */
import type { Command, CommandsPort } from './commands.js';
import type { CommandTransition } from './command-transitions.js';
import type { Iso } from './records.js';

/** The methods an adapter implements as they are: inserts, reads, queries and retention. */
export type CommandReads = Omit<
  CommandsPort,
  'claim' | 'finish' | 'failIfPending' | 'unclaim' | 'failGroupPending' | 'failPendingFor' | 'expire' | 'requeue' | 'progress' | 'retry'
>;

/** Fields a compare-and-set writes (absent: unchanged). The status is the rule's `to`. */
export interface CommandChange {
  readonly sent_at?: Iso | null;
  readonly wire?: string | null;
  readonly response?: string | null;
  readonly error_message?: string | null;
  /** Stored as JSON; null clears it. */
  readonly result?: unknown;
  /** With `result`: a composite record keeps its result (its group's counts). */
  readonly compositeKeepsResult?: true;
  /** Set only on a record that was `sent` (the device acknowledged it); kept otherwise. */
  readonly acknowledged_at?: Iso;
  /** Adds one to attempts (a new attempt). */
  readonly nextAttempt?: true;
  /**
   * The outbox marker of the feed event this change owes (ports/cluster.ts OutboxTable); absent:
   * unchanged. A set-many writes it only on top-level commands of a location (those announced).
   */
  readonly feed_event?: string;
  readonly updated_at: Iso;
}

/** One compare-and-set: the rule's `from` statuses guard it, and it writes `to` and the change. */
export interface CommandCas {
  readonly rule: CommandTransition;
  readonly change: CommandChange;
}

/** A compare-and-set, optionally with what follows from it. */
export interface CommandStep extends CommandCas {
  /**
   * Tried on the same target when `rule` did not apply: the status moved on, or (back to `pending`)
   * a newer pending op holds the record's sync key, which a unique index refuses.
   */
  readonly otherwise?: CommandCas;
  /** When the record changed (by `rule` or `otherwise`): its child lines take this step too. */
  readonly lines?: CommandCas;
}

/** One command: by id, and when given, only the attempt sent at `sent_at`. */
export interface CommandTarget {
  readonly id: number;
  readonly sent_at?: Iso;
}

/** The top-level commands a set-many selects (each then compared and set on its own). */
export type CommandSelector =
  | { readonly sn: string }
  /** The members of a group, its composite record left out. */
  | { readonly group: number }
  /** Records whose expires_at is at or before this instant. */
  | { readonly expiredBy: Iso };

export interface CommandRecords extends CommandReads {
  /**
   * Compare-and-set of one command: applies `step` when the command's status is one of the rule's
   * `from`, atomically with its `otherwise` and `lines` (SQLite: one transaction; MongoDB: single
   * writes in that order, each safe to repeat). Returns the command as the step left it, or undefined
   * when neither the rule nor `otherwise` applied.
   */
  setOne(target: CommandTarget, step: CommandStep): Promise<Command | undefined>;
  /** `setOne` for each target, in one commit where the store can (a poll's claim). Results in target order. */
  setEach(targets: readonly CommandTarget[], step: (target: CommandTarget) => CommandStep): Promise<readonly (Command | undefined)[]>;
  /** `setOne` for every command the selector finds in one of the rule's `from` statuses. Returns the changed ones. */
  setMany(selector: CommandSelector, step: CommandCas): Promise<readonly Command[]>;
}
