/**
 * The transition methods of CommandsPort, written once on an adapter's compare-and-set
 * (CommandRecords) from the table of allowed transitions (ports/command-transitions.ts). Each
 * method is one rule: the adapter decides how to make it atomic and fast (SQLite: one statement, or
 * one transaction where a step has consequences; MongoDB: single-document updates).
 */
import { ATTEMPT_SUPERSEDED, SYNC_SUPERSEDED, type Command, type CommandsPort } from './ports/commands.js';
import type { CommandCas, CommandRecords } from './ports/command-records.js';
import { COMMAND_TRANSITIONS as T } from './ports/command-transitions.js';
import type { Iso } from './ports/records.js';

/** error_message of a pending command whose expires_at passed. */
const EXPIRED = 'expired before delivery';

/** Child lines of the attempt that went unanswered: a late answer to them changes nothing. */
const supersededLines = (now: Iso): CommandCas => ({
  rule: T.supersedeLines,
  change: { error_message: ATTEMPT_SUPERSEDED, updated_at: now },
});

/** A sync op that a newer pending op for the same user replaced while it was out. */
const supersededOp = (now: Iso): CommandCas => ({ rule: T.supersede, change: { error_message: SYNC_SUPERSEDED, updated_at: now } });

/** The outbox marker a change writes (ports/cluster.ts OutboxTable), when one is given. */
const marked = (feedEvent: string | undefined): { feed_event?: string } => (feedEvent === undefined ? {} : { feed_event: feedEvent });

export function commandsPort(records: CommandRecords): CommandsPort {
  const { setOne, setEach, setMany, ...reads } = records;
  return {
    ...reads,
    async claim(ids, wire, now, announced) {
      const won = await setEach(
        ids.map((id) => ({ id })),
        ({ id }) => ({
          rule: T.claim,
          change: {
            sent_at: now,
            wire: wire.get(id) ?? null,
            ...marked(announced?.ids.has(id) ? announced.marker : undefined),
            updated_at: now,
          },
        }),
      );
      return ids.filter((_, i) => won[i] !== undefined);
    },
    finish(id, outcome, now, attempt, feedEvent) {
      const change = {
        response: outcome.response ?? null,
        error_message: outcome.error_message ?? null,
        result: outcome.result ?? null,
        acknowledged_at: now,
        ...marked(feedEvent),
        updated_at: now,
      };
      return setOne(attempt === undefined ? { id } : { id, sent_at: attempt }, {
        rule: outcome.status === 'success' ? T.succeed : T.fail,
        change,
      });
    },
    failIfPending(id, message, now, feedEvent) {
      return setOne({ id }, { rule: T.cancel, change: { error_message: message, ...marked(feedEvent), updated_at: now } });
    },
    async unclaim(ids, sentAt, now) {
      const back = await setEach(
        ids.map((id) => ({ id, sent_at: sentAt })),
        () => ({
          rule: T.unclaim,
          change: { sent_at: null, response: null, result: null, compositeKeepsResult: true, updated_at: now },
          otherwise: supersededOp(now),
          lines: supersededLines(now),
        }),
      );
      return back.filter((c): c is Command => c?.status === 'pending');
    },
    failGroupPending(groupId, message, now, feedEvent) {
      return setMany(
        { group: groupId },
        { rule: T.failPending, change: { error_message: message, ...marked(feedEvent), updated_at: now } },
      );
    },
    failPendingFor(sn, message, now, feedEvent) {
      return setMany({ sn }, { rule: T.failPending, change: { error_message: message, ...marked(feedEvent), updated_at: now } });
    },
    expire(now, feedEvent) {
      return setMany({ expiredBy: now }, { rule: T.expire, change: { error_message: EXPIRED, ...marked(feedEvent), updated_at: now } });
    },
    requeue(id, now, feedEvent, attempt) {
      // Sent again: an op renders the user's state at dispatch (render.ts), so a late re-run undoes
      // nothing. When a newer pending op for the same (sn, sync_key) already carries the change, the
      // one-pending-op-per-key rule keeps this one from going back: it is superseded instead. The
      // outbox marker goes with either (both are announced), never with the lines.
      const marker = marked(feedEvent);
      const change = { sent_at: null, result: null, response: null, nextAttempt: true as const, ...marker, updated_at: now };
      const otherwise = supersededOp(now);
      return setOne(attempt === undefined ? { id } : { id, sent_at: attempt }, {
        rule: T.requeue,
        change,
        otherwise: { ...otherwise, change: { ...otherwise.change, ...marker } },
        lines: supersededLines(now),
      });
    },
    progress(id, progress, now) {
      const change = {
        result: progress.result ?? null,
        ...(progress.response !== undefined ? { response: progress.response } : {}),
        updated_at: now,
      };
      return setOne({ id }, { rule: T.progress, change });
    },
    retry(id, wire, now) {
      return setOne({ id }, { rule: T.retry, change: { wire, nextAttempt: true, updated_at: now }, lines: supersededLines(now) });
    },
  };
}
