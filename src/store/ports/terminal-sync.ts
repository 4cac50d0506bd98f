/**
 * The per-terminal sync state port: what BioGate knows of each terminal's roster besides the owed
 * sync ops themselves (those are `sync-users` commands, ./commands.ts). The rules above it live in
 * src/sync/terminal-state.ts; adapters give the reads and compare-and-set, no policy.
 */
import type { Iso, Page, Window } from './records.js';

export type TerminalSyncState = 'in_sync' | 'syncing' | 'drift' | 'unknown';

/** What is stored per terminal: the state last announced, and when the terminal last confirmed or was audited. */
export interface TerminalSyncRecord {
  readonly sn: string;
  readonly location_id: number | null;
  readonly state: TerminalSyncState;
  readonly reason: string | null;
  readonly last_confirmed_at: Iso | null;
  readonly last_audit_at: Iso | null;
  /** When the audit now outstanding (or the last one) was started; its query command. */
  readonly audit_started_at: Iso | null;
  readonly audit_command_id: number | null;
  readonly changed_at: Iso;
}

/** Owed `sync-users` ops of one terminal (top-level, pending or sent), by their `params.op`. */
export interface OwedCounts {
  readonly owed: number;
  /** Of `owed`: `user.delete` ops. */
  readonly revocations: number;
  /** Owed PINs whose line the terminal refused (see refusals). */
  readonly refused: number;
  /** created_at of the oldest owed op. */
  readonly oldest: Iso | null;
}

/** One owed PIN: since its op was created; `code` when the terminal refused it. */
export interface OwedPin {
  readonly pin: number;
  readonly since: Iso;
  readonly code?: number;
}

/** A refusal of a PIN's line by a terminal, kept while that PIN is owed. */
export interface SyncRefusal {
  readonly pin: number;
  readonly code: number;
  readonly message: string;
  /** The first refusal of this PIN on this terminal since its last confirmation. */
  readonly since: Iso;
  /** The latest refusal. */
  readonly at: Iso;
}

export interface TerminalSyncPort {
  get(sns: readonly string[]): Promise<readonly TerminalSyncRecord[]>;
  /**
   * Compare-and-set of the state: written only when the stored state is `from` (null: no record yet).
   * True when this caller changed it (of several nodes one announces the change). `marker`: the
   * outbox marker of the change's `device.sync` event, kept until `announced` (src/sync/terminal-state.ts).
   */
  setState(
    sn: string,
    locationId: number | null,
    from: TerminalSyncState | null,
    to: TerminalSyncState,
    reason: string | null,
    now: Iso,
    marker?: string,
  ): Promise<boolean>;
  /** The `device.sync` event owed under `marker` is stored: the marker goes, unless a newer change replaced it. */
  announced(sn: string, marker: string): Promise<void>;
  /** Terminals whose last state change's `device.sync` event is still owed, changed before `before`, oldest first. */
  unannounced(before: Iso, limit: number): Promise<readonly { readonly sn: string; readonly marker: string }[]>;
  /** last_confirmed_at moves forward to `at`, never back (creates the record as `unknown` if needed). */
  confirmed(sn: string, locationId: number | null, at: Iso): Promise<void>;
  /**
   * Claims the start of an audit by compare-and-set (of several nodes one starts it): true when no audit
   * is outstanding, i.e. none was started, the last one finished (last_audit_at at or after its start)
   * or it was started before `staleBefore` (its query never answered). Creates the record if needed.
   */
  claimAudit(sn: string, locationId: number, staleBefore: Iso, now: Iso): Promise<boolean>;
  /** The query command of the audit just claimed. */
  auditCommand(sn: string, commandId: number): Promise<void>;
  /**
   * Claims a new audit in place of the outstanding one whose query `commandId` ended without an answer
   * (failed, cancelled, expired), by compare-and-set on that command: of several callers one wins.
   */
  reclaimAudit(sn: string, commandId: number, now: Iso): Promise<boolean>;
  /** An audit's comparison was made at `at`: last_audit_at moves forward to it. */
  audited(sn: string, at: Iso): Promise<void>;
  /** Owed ops per serial (every serial asked for is in the map). */
  owed(sns: readonly string[]): Promise<ReadonlyMap<string, OwedCounts>>;
  /**
   * Owed PINs of one terminal whose op is `op`, oldest first; refused ones carry their code. With
   * `locationId`, only that location's ops (not a moved terminal's deletes of no location).
   */
  owedPins(sn: string, op: 'user.upsert' | 'user.delete', window: Window, locationId?: number | null): Promise<Page<OwedPin>>;
  /** Records a refusal; `since` is kept from an earlier refusal of the same PIN. */
  refuse(sn: string, pin: number, code: number, message: string, now: Iso): Promise<void>;
  /**
   * Refusals of PINs still owed, oldest first: a refusal counts while an op for its PIN created no
   * later than the refusal is owed (a newer op carries a newer change, not yet refused).
   */
  refusals(sn: string, window: Window): Promise<Page<SyncRefusal>>;
  /**
   * Forgets refusals: of each PIN confirmed, those older than its confirmation (one of the same
   * instant or later stays: it may answer a newer line); without `confirmed`, every refusal of the terminal.
   */
  clearRefusals(sn: string, confirmed?: readonly { readonly pin: number; readonly at: Iso }[]): Promise<void>;
}
