/**
 * The command lifecycle: every status transition of a command goes through here, so each one is
 * announced once (`command.updated`), and a composite preset (`sync-users`) follows the commands it
 * stands for (DESIGN.md "Key mechanics": a command's status is the truth). Which status may follow
 * which is the table in src/store/ports/command-transitions.ts, on the store floor because the
 * store's transition methods (src/store/commands.ts) are built on it for both adapters; this module
 * sequences those transitions, settles groups and announces.
 *
 *   pending ──claim, reply delivered──► sent ──result ≥ 0──► success
 *      │                                  │ └──result < 0, ack timeout──► failed
 *      └──expiry, cancel, unassign──► failed
 *
 * Two transitions go back, both documented: a background sync op whose result never came is
 * re-queued (sent → pending, with back-off), and a batch whose reply never reached the terminal is put
 * back (its `sent` was never announced, see `delivered`). A preset answered with a refusal and
 * retried in its fallback form [COMMANDS §2.5] stays `sent` to the API (`publicStatus`).
 *
 * Feed outbox (src/events/outbox.ts): every transition announced here (create, the claim of a
 * delivery, finish from a terminal's result or an ack timeout, a composite settled, re-queue, cancel,
 * expiry, unassignment) writes the command with a marker in the same store write, and its event
 * carries it: a crash or an outage before the event is stored leaves it owed to the feed's sweep. A
 * set-many (expiry, unassignment, a cancelled group) and a claim write one marker, on the announced
 * commands only. A claimed batch that never reached the terminal is put back without its event; its
 * marker stays until the next claim's replaces it (or the sweep announces the command as it stands).
 */
import type { Clock } from '../clock.js';
import type { Store } from '../store/types.js';
import type { Command, CommandOutcome, NewCommand } from '../store/ports/index.js';
import type { EventBus } from '../events/bus.js';
import { commandMarker, newMarker } from '../events/outbox.js';
import { LOCATION_WIDE_SN } from '../store/ports/index.js';
import { wideProgress, wideSettled } from './wide-result.js';

/** A member of a composite's group (not the composite itself). */
const memberOf = (c: Command): number | undefined => (c.group_id !== null && c.group_id !== c.id ? c.group_id : undefined);

export interface CommandLifecycle {
  /** Stores a new command with the outbox marker of its event, and announces it. */
  create(input: NewCommand, now: string): Promise<Command>;
  /** New records stored elsewhere (sync ops): one event each, not in the outbox. */
  created(commands: readonly Command[]): void;
  /**
   * Finishes a pending or sent command (no-op when already final). `sameAttempt`: only if it is still
   * the attempt `command` was read as (a result racing a re-queue on another node changes nothing).
   */
  finish(command: Command, outcome: CommandOutcome, options?: { readonly sameAttempt?: boolean }): Promise<Command | undefined>;
  /** Cancels a command that is still pending (undefined when a poll took it meanwhile); a composite cancels its pending members. */
  cancel(command: Command): Promise<Command | undefined>;
  /**
   * Store side of a claim, done before the reply is written: a composite whose first member goes
   * out is claimed too. `commands` are the claimed records as the claim left them (the caller knows
   * what it wrote: no read again). Returns what `delivered` will announce and every id
   * `undelivered` would put back.
   */
  claimed(commands: readonly Command[], sentAt: string, marker: string): Promise<{ announce: readonly Command[]; ids: readonly number[] }>;
  /**
   * The reply reached the terminal: its commands are `sent` for everyone. Synchronous, so the event
   * goes out before the terminal can answer (events stay in order). `marker`: the claim's outbox
   * marker (see announcesClaim).
   */
  delivered(announce: readonly Command[], marker: string): void;
  /**
   * Before a claim: the events these commands (and the composites of their groups) still owe, stored
   * first, so the feed never shows a transition before the one it follows (a `pending` queued on
   * another node whose append is still on its way). Returns the ids whose owed event could not be
   * stored now: they and their groups' members stay pending for a later turn.
   */
  announceOwed(commands: readonly Command[]): Promise<ReadonlySet<number>>;
  /** A claimed batch did not reach the terminal: back to pending, nothing announced. */
  undelivered(ids: readonly number[], sentAt: string): Promise<void>;
  /** A sent sync op with no result goes again (documented sent → pending). */
  requeue(command: Command, options?: { readonly sameAttempt?: boolean }): Promise<Command | undefined>;
  /** The refused preset goes again in its fallback form: still `sent` to the API (publicStatus). */
  retry(command: Command, wire: string): Promise<Command | undefined>;
  /** Pending commands past their expiry fail. */
  expire(): Promise<void>;
  /** Unassignment: every pending command of the device fails. */
  failPendingFor(sn: string, message: string): Promise<void>;
  /** Settles a composite once none of its members is outstanding; `wide`: it may be a location-wide command (its targets follow). */
  settleGroup(groupId: number, wide?: boolean): Promise<void>;
}

/**
 * Whether a claim of this command (as read before the claim) is announced as `sent`, so written with
 * the claim's outbox marker: top-level commands of a location, except a fallback re-delivery, which
 * was `sent` all along (publicStatus): not a transition.
 */
export function announcesClaim(c: Pick<Command, 'parent_id' | 'location_id' | 'attempts' | 'origin'>): boolean {
  return c.parent_id === null && c.location_id !== null && (c.attempts === 0 || c.origin === 'sync');
}

export function createCommandLifecycle(deps: { store: Store; clock: Clock; bus: EventBus }): CommandLifecycle {
  const { store, clock, bus } = deps;
  const now = () => clock.now().toISOString();
  /** `feedEvent`: the outbox marker the transition was written under. */
  const announce = (c: Command | undefined, feedEvent?: string): void => {
    // Child lines of a multi-line command are not API records.
    if (c && c.parent_id === null)
      bus.emit('command.updated', {
        location_id: c.location_id,
        command: c,
        ...(feedEvent === undefined ? {} : { feed_event: feedEvent }),
      });
  };
  /** Announces the finished commands and settles the groups they belong to. */
  const finished = async (commands: readonly (Command | undefined)[], feedEvent?: string): Promise<void> => {
    // group → whether a member finished here was queued through the API: only a location-wide command's are.
    const groups = new Map<number, boolean>();
    for (const c of commands) {
      if (!c) continue;
      announce(c, feedEvent);
      const g = memberOf(c);
      if (g !== undefined) groups.set(g, groups.get(g) === true || c.origin === 'api');
    }
    for (const [g, wide] of groups) await settleGroup(g, wide);
  };

  /** See CommandLifecycle.announceOwed: the records at hand are offered as read, the composites read. */
  async function announceOwed(commands: readonly Command[]): Promise<ReadonlySet<number>> {
    const read = new Map(commands.map((c) => [c.id, c]));
    const ids = new Set<number>();
    for (const c of commands) {
      if (c.parent_id === null && c.location_id !== null) ids.add(c.id);
      const g = memberOf(c);
      if (g !== undefined) ids.add(g);
    }
    if (ids.size === 0) return new Set();
    const owed: { command: Command; marker: string }[] = [];
    for (const [id, marker] of await store.commands.owedMarkers([...ids])) {
      const command = read.get(id) ?? (await store.commands.getById(id));
      if (command) owed.push({ command, marker });
    }
    // Offered in one turn, so they leave in one append.
    const answers = owed.flatMap(({ command, marker }) =>
      command.location_id === null
        ? []
        : [
            bus
              .emitStored('command.owed', { location_id: command.location_id, command, feed_event: marker })
              .then((ok) => (ok ? [] : [command.id])),
          ],
    );
    return new Set((await Promise.all(answers)).flat());
  }

  async function settleGroup(groupId: number, wide = false): Promise<void> {
    if (await store.commands.groupOutstanding(groupId)) return wide ? settleWide(groupId, false) : undefined;
    const composite = await store.commands.getById(groupId);
    if (!composite || (composite.status !== 'pending' && composite.status !== 'sent')) return;
    // The composite's `sent` may be another node's, still on its way to the feed (stored first; an
    // outage that keeps it owed leaves it to the sweep, and the settling goes on).
    await announceOwed([composite]);
    if (composite.sn === LOCATION_WIDE_SN) return settleWide(groupId, true, composite);
    const n = await store.commands.groupCounts(groupId);
    const failed = n.failed - n.superseded;
    const prior = composite.result !== null && typeof composite.result === 'object' ? (composite.result as Record<string, unknown>) : {};
    const result = { ...prior, queued: n.success + n.failed, delivered: n.success, failed, superseded: n.superseded };
    const summary = `${n.success} of ${n.success + n.failed} operations acknowledged by the device, ${failed} failed${n.superseded > 0 ? `, ${n.superseded} replaced by newer changes` : ''}`;
    const marker = commandMarker(composite);
    announce(
      await store.commands.finish(
        groupId,
        failed === 0
          ? { status: 'success', response: summary, result }
          : { status: 'failed', error_message: summary, response: summary, result },
        now(),
        undefined,
        marker,
      ),
      marker,
    );
  }

  /**
   * A location-wide command: its `targets` follow its children as they finish (one write each, not announced), and
   * it ends once none is outstanding: success only when every child succeeded. Not while it is still being fanned
   * out (`result.fanning`): the fan-out settles it when done (src/commands/fan-out.ts).
   */
  async function settleWide(groupId: number, done: boolean, known?: Command): Promise<void> {
    const parent = known ?? (await store.commands.getById(groupId));
    if (!parent || parent.sn !== LOCATION_WIDE_SN || (parent.status !== 'pending' && parent.status !== 'sent')) return;
    const n = await store.commands.groupCounts(groupId);
    if (!done) {
      const result = wideProgress(parent.result, n);
      if (result) await store.commands.progress(groupId, { result }, now());
      return;
    }
    const outcome = wideSettled(parent.result, n);
    if (!outcome) return;
    const marker = commandMarker(parent);
    announce(await store.commands.finish(groupId, outcome, now(), undefined, marker), marker);
  }

  return {
    async create(input, at) {
      const marker = commandMarker({ parent_id: input.parent_id ?? null, location_id: input.location_id });
      const command = await store.commands.create(marker === undefined ? input : { ...input, feed_event: marker }, at);
      announce(command, marker);
      return command;
    },
    created(commands) {
      for (const c of commands) announce(c);
    },
    async finish(command, outcome, options) {
      const attempt = options?.sameAttempt === true && command.sent_at !== null ? command.sent_at : undefined;
      const marker = commandMarker(command);
      const done = await store.commands.finish(command.id, outcome, now(), attempt, marker);
      await finished([done], marker);
      return done;
    },
    async cancel(command) {
      const marker = commandMarker(command);
      const done = await store.commands.failIfPending(command.id, 'cancelled', now(), marker);
      if (!done) return undefined;
      const membersMarker = newMarker();
      const members = done.group_id === done.id ? await store.commands.failGroupPending(done.id, 'cancelled', now(), membersMarker) : [];
      for (const m of members) announce(m, membersMarker);
      await finished([done], marker);
      return done;
    },
    async claimed(commands, sentAt, marker) {
      const out: Command[] = [];
      const ids: number[] = [];
      for (const c of commands) {
        if (announcesClaim(c)) out.push(c);
        const g = memberOf(c);
        // pending → sent for the composite, once: the claim is conditional.
        if (g === undefined || (await store.commands.claim([g], new Map(), sentAt, { marker, ids: new Set([g]) })).length === 0) continue;
        ids.push(g);
        const composite = await store.commands.getById(g);
        if (composite) out.push(composite);
      }
      return { announce: out, ids };
    },
    announceOwed,
    delivered(commands, marker) {
      for (const c of commands) announce(c, marker);
    },
    async undelivered(ids, sentAt) {
      await store.commands.unclaim(ids, sentAt, now());
    },
    async requeue(command, options) {
      const marker = commandMarker(command);
      const attempt = options?.sameAttempt === true && command.sent_at !== null ? command.sent_at : undefined;
      const again = await store.commands.requeue(command.id, now(), marker, attempt);
      // A newer op for the same user superseded it (failed): that one carries the change.
      if (again?.status === 'failed') await finished([again], marker);
      else announce(again, marker);
      if (again?.status === 'pending') bus.emit('mailbox.changed', { location_id: again.location_id, sn: again.sn });
      return again;
    },
    async retry(command, wire) {
      const again = await store.commands.retry(command.id, wire, now());
      if (again) bus.emit('mailbox.changed', { location_id: again.location_id, sn: again.sn });
      return again;
    },
    async expire() {
      const marker = newMarker();
      await finished(await store.commands.expire(now(), marker), marker);
    },
    async failPendingFor(sn, message) {
      const marker = newMarker();
      await finished(await store.commands.failPendingFor(sn, message, now(), marker), marker);
    },
    settleGroup,
  };
}
