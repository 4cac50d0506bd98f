/** The commands port: queued device commands, their mailbox order and their status transitions (command-transitions.ts). */
import type { Unannounced } from './cluster.js';
import type { Iso, Page, Window } from './records.js';

export type CommandStatus = 'pending' | 'sent' | 'success' | 'failed';
export type CommandOrigin = 'api' | 'sync' | 'system';

export interface Command {
  readonly id: number;
  readonly location_id: number | null;
  readonly sn: string;
  /** Preset identifier (`reboot`, `sync-users`, `custom`, …) as the API shows it. */
  readonly command: string;
  readonly params: Readonly<Record<string, unknown>> | null;
  readonly priority: number;
  readonly origin: CommandOrigin;
  readonly status: CommandStatus;
  readonly response: string | null;
  readonly error_message: string | null;
  readonly result: unknown;
  readonly sent_at: Iso | null;
  readonly acknowledged_at: Iso | null;
  readonly expires_at: Iso | null;
  /** Coalescing key of a sync op (`user:1001`); pending ops with the same (sn, key) are merged. */
  readonly sync_key: string | null;
  readonly attempts: number;
  /** For child lines of a multi-line command: the record they belong to. */
  readonly parent_id: number | null;
  /** The wire lines as sent (for diagnostics). */
  readonly wire: string | null;
  /**
   * A composite preset (`sync-users`) and the commands it stands for share a group: the composite's
   * own id. The composite never enters the mailbox; its status follows its group (devices/groups.ts).
   */
  readonly group_id: number | null;
  readonly created_by_token_id: number | null;
  readonly idempotency_key: string | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

/** What creating a command takes: the caller's fields; status, timestamps and ids are the store's. */
export type NewCommand = Pick<Command, 'location_id' | 'sn' | 'command' | 'params' | 'priority' | 'origin' | 'expires_at'> &
  Partial<Pick<Command, 'sync_key' | 'parent_id' | 'created_by_token_id' | 'idempotency_key' | 'group_id'>> & {
    /** A composite record: its group is its own id, and it is never delivered itself. */
    readonly composite?: boolean;
    /** The outbox marker of the event announcing the new command (OutboxTable in ./cluster.ts), written with it. */
    readonly feed_event?: string;
  };

/**
 * The `sn` stored on a location-wide command (issue #36 item 3: POST /api/commands with a `target`): a composite
 * whose group is one child command per terminal. No terminal has it, so it never enters a mailbox; the views
 * show it as null.
 */
export const LOCATION_WIDE_SN = '';

/** error_message of a sent sync op that a newer pending op for the same device and user replaced (requeue, unclaim). */
export const SYNC_SUPERSEDED = 'superseded by a newer pending sync op for the same user';

/** error_message of a child line whose command was sent again: a late answer to it changes nothing. */
export const ATTEMPT_SUPERSEDED = 'superseded by a newer attempt';

/** How the members of a command group stand (the composite record itself not counted). */
export interface GroupCounts {
  readonly pending: number;
  readonly sent: number;
  readonly success: number;
  readonly failed: number;
  /** Of `failed`: sync ops replaced by a newer op for the same user (not a delivery failure). */
  readonly superseded: number;
}

export interface CommandFilter {
  readonly sn?: string;
  readonly status?: CommandStatus;
  readonly command?: string;
  readonly since?: Iso;
}

export interface CommandOutcome {
  readonly status: 'success' | 'failed';
  readonly response?: string | null;
  readonly error_message?: string | null;
  readonly result?: unknown;
}

export interface CommandsPort {
  create(input: NewCommand, now: Iso): Promise<Command>;
  /**
   * Sync ops in bulk, coalesced: where a pending op with the same (sn, sync_key) exists it is
   * replaced (params, priority; it keeps its group, or joins the op's group when it had none) instead
   * of a new one being added. Returns how many were created and how many replaced, and the created
   * records (each is a new `pending` command: one command.updated event each).
   */
  enqueueSync(ops: readonly NewCommand[], now: Iso): Promise<{ created: number; replaced: number; inserted: readonly Command[] }>;
  get(locationId: number, id: number): Promise<Command | undefined>;
  getById(id: number): Promise<Command | undefined>;
  findByIdempotencyKey(locationId: number, tokenId: number | null, key: string): Promise<Command | undefined>;
  /** Newest first. */
  list(locationId: number, filter: CommandFilter, window: Window): Promise<Page<Command>>;
  /** Pending top-level commands of a device: priority desc, then id asc (composites never). */
  pending(sn: string, limit: number): Promise<readonly Command[]>;
  /**
   * Sent top-level commands of one preset on a device of the location, in the order they were sent (oldest first):
   * the check-attendance a v2 ATTLOG upload answers, the reboots a handshake completes, the firmware
   * a terminal may fetch. Served by an index on the device, never a scan of the location's commands.
   */
  sentOf(locationId: number, sn: string, command: string, limit: number): Promise<readonly Command[]>;
  /** Pending top-level commands of a device; with `origin`, only those (the mailbox bound counts API commands only). */
  countPending(sn: string, origin?: CommandOrigin): Promise<number>;
  /**
   * Atomic pending → sent for each id; returns the ids this caller won (safe across nodes). `marked`:
   * the ids whose `sent` is announced, written with the outbox marker of that event (src/events/outbox.ts).
   */
  claim(
    ids: readonly number[],
    wire: ReadonlyMap<number, string>,
    now: Iso,
    marked?: { readonly marker: string; readonly ids: ReadonlySet<number> },
  ): Promise<readonly number[]>;
  /**
   * Finishes a command that is sent (or pending, for failures before dispatch). No-op when already final.
   * With `attempt`, only the attempt sent at that instant (an answer to an attempt that was re-queued meanwhile changes nothing).
   * `feedEvent`: the command is written carrying this outbox marker (OutboxTable in ./cluster.ts), in
   * the same write; given only for a command that is announced (top-level, of a location).
   */
  finish(id: number, outcome: CommandOutcome, now: Iso, attempt?: Iso, feedEvent?: string): Promise<Command | undefined>;
  /**
   * pending → failed with `message`, atomically: undefined when the command is no longer pending (a
   * poll claimed it meanwhile). Cancellation uses it so a sent command is never marked cancelled.
   */
  failIfPending(id: number, message: string, now: Iso, feedEvent?: string): Promise<Command | undefined>;
  /**
   * A claimed batch whose reply never reached the device: sent → pending again for each id still
   * sent since `sentAt` (attempts unchanged, progress cleared; a composite keeps its counts); child
   * lines of that attempt are superseded. Returns the commands put back.
   */
  unclaim(ids: readonly number[], sentAt: Iso, now: Iso): Promise<readonly Command[]>;
  /** Whether any member of the group is still pending or sent. */
  groupOutstanding(groupId: number): Promise<boolean>;
  groupCounts(groupId: number): Promise<GroupCounts>;
  /**
   * Pending members of a group → failed with `message` (a cancelled composite). Returns them.
   * `feedEvent` here and below: the outbox marker written on each command changed that is announced
   * (top-level, of a location); child lines and commands without a location never carry one.
   */
  failGroupPending(groupId: number, message: string, now: Iso, feedEvent?: string): Promise<readonly Command[]>;
  /** Pending → failed for every command of the device (unassignment). Returns the failed commands. */
  failPendingFor(sn: string, message: string, now: Iso, feedEvent?: string): Promise<readonly Command[]>;
  /** Pending commands whose expires_at is past → failed. Returns them. */
  expire(now: Iso, feedEvent?: string): Promise<readonly Command[]>;
  /**
   * Sent top-level commands with sent_at older than the cutoff (ack timeout sweep), by (sent_at, id);
   * `after` pages on: only those after that command in this order.
   */
  sentBefore(cutoff: Iso, limit: number, after?: Pick<Command, 'sent_at' | 'id'>): Promise<readonly Command[]>;
  /**
   * sent → pending again (re-sends of sync ops, with back-off); increments attempts, clears progress, and
   * supersedes the child lines of the attempt that went unanswered. `feedEvent`: as for finish, on
   * the command (back to pending, or superseded), not on its lines. `attempt`: only if it is still
   * the attempt sent at that time (a later send is left alone).
   */
  requeue(id: number, now: Iso, feedEvent?: string, attempt?: Iso): Promise<Command | undefined>;
  /** Commands still owing their feed event (written with a marker not cleared yet), by marker then id, at most `limit`. */
  unannounced(limit: number): Promise<readonly Unannounced<Command>[]>;
  /**
   * Of these commands, the ones still owing their feed event, with the marker they carry: what a
   * claim offers the feed first, so a transition is never stored after the one that follows it.
   */
  owedMarkers(ids: readonly number[]): Promise<ReadonlyMap<number, string>>;
  /** Child lines of a multi-line command (of every attempt; see ATTEMPT_SUPERSEDED). */
  children(parentId: number): Promise<readonly Command[]>;
  /**
   * Records what is known so far of a sent command that is not finished yet (the first line's
   * result of a multi-line command, users a device uploads for load-users): persisted so a
   * restart in the middle loses nothing. No-op unless the command is sent (or is a composite that
   * is not final yet: its counts while its group is delivered).
   */
  progress(id: number, progress: { response?: string | null; result: unknown }, now: Iso): Promise<Command | undefined>;
  /**
   * [COMMANDS §2.5] sent → pending again with the fallback wire lines (LF-joined) in `wire`,
   * attempts + 1, sent_at kept (it was delivered; the API still shows it sent, see devices/lifecycle.ts): the next dispatch sends those lines instead of rendering the preset. Child lines
   * of the refused attempt are superseded.
   */
  retry(id: number, wire: string, now: Iso): Promise<Command | undefined>;
  /**
   * Pins of users this device was sent by delivered sync ops (`success`, or `sent` with the result on
   * its way) of locations other than `locationId` whose last delivered op for that pin was not a
   * confirmed delete (assignment cleanup); with `ever`, every PIN such an op carried, whatever its last
   * op (the audit). See store/sync-history.ts.
   */
  syncedPinsElsewhere(sn: string, locationId: number, ever?: boolean): Promise<readonly number[]>;
  /** Deletes finished commands (and their child lines) last updated before `before`. Returns how many top-level records went. */
  prune(before: Iso, limit: number): Promise<number>;
  /** Total per status (metrics). */
  countByStatus(): Promise<Readonly<Record<CommandStatus, number>>>;
}
