/**
 * The `result` of a location-wide command (issue #36 item 3) and how it ends. The fan-out (src/commands/fan-out.ts)
 * writes it first; the lifecycle updates `targets` as children finish and ends the command when none is
 * outstanding:
 *
 *   {targets: {queued, success, failed, unsupported}, children: [ids], refused: [{sn, reason}], fanning?}
 *
 * `queued`: children created; `unsupported`: terminals whose protocol cannot carry the preset (no child);
 * `failed`: children that failed plus terminals refused when queueing (`refused`: a full mailbox).
 */
import type { CommandOutcome, GroupCounts } from '../store/ports/index.js';
import { isWideResult, type WideResult } from '../views/command.js';

export type { WideResult };

function counted(r: WideResult, n: GroupCounts): WideResult {
  const { fanning: _f, ...rest } = r;
  return { ...rest, targets: { ...r.targets, success: n.success, failed: n.failed + r.refused.length } };
}

/** The result with the children finished so far; undefined while fanning out or not a location-wide result. */
export function wideProgress(prior: unknown, n: GroupCounts): WideResult | undefined {
  if (!isWideResult(prior) || prior.fanning) return undefined;
  return counted(prior, n);
}

/** How the command ends once no child is outstanding; undefined while fanning out. */
export function wideSettled(prior: unknown, n: GroupCounts): CommandOutcome | undefined {
  if (!isWideResult(prior) || prior.fanning) return undefined;
  const result = counted(prior, n);
  const t = result.targets;
  const summary = `${t.success} of ${t.queued} terminals succeeded, ${t.failed} failed${t.unsupported > 0 ? `, ${t.unsupported} do not support it` : ''}`;
  return t.failed === 0 && t.queued > 0
    ? { status: 'success', response: summary, result }
    : { status: 'failed', response: summary, error_message: summary, result };
}
