/**
 * Commands a previous node handed to a held poll when the terminal's lease moves here (lease.ts). A reply
 * written to a half-open connection (the terminal already polls another node after a failover) counts
 * as delivered on the node that wrote it, yet the terminal never saw it. The terminal answers what it
 * received before it polls again [PUSH-v2 §7.3: execute, post the results, poll], so at its first poll
 * here a command still `sent` from before the move never reached it, or its result was lost:
 *
 * - what is safe to repeat goes again, now: sync lines (rendered from the current state at dispatch,
 *   the time sync included) and the read-only presets (REPEATABLE). Put back as a reply that never
 *   reached the terminal is (CommandsPort.unclaim): pending unannounced, the earlier attempt's child
 *   lines superseded, then claimed by this poll;
 * - anything else (a door opened twice is not a door opened once) fails with DELIVERY_NOT_CONFIRMED at
 *   once, not after the ack timeout.
 */
import type { Command } from '../store/ports/index.js';
import type { ResultContext } from './results.js';

/** error_message of a command handed to the previous node's held poll that cannot be repeated safely. */
export const DELIVERY_NOT_CONFIRMED = 'delivery not confirmed';

/** Presets that only read (or reload) what the terminal holds: repeating them changes nothing. */
const REPEATABLE: ReadonlySet<string> = new Set(['info', 'check', 'reload-options', 'load-users', 'check-attendance']);

/** The device's commands in doubt at most (a lease move is rare; more wait for the ack timeout). */
const LIMIT = 500;

const repeatable = (c: Command) => c.origin === 'sync' || c.origin === 'system' || REPEATABLE.has(c.command);

/** Settles the device's commands sent before `movedAt` (the lease's move here) that have no result. */
export async function settleInDoubt(ctx: ResultContext, locationId: number, movedAt: string): Promise<void> {
  const { items } = await ctx.store.commands.list(locationId, { sn: ctx.sn, status: 'sent' }, { offset: 0, limit: LIMIT });
  const again: Command[] = [];
  let failed = 0;
  for (const c of items) {
    // A composite follows its members.
    if (c.sent_at === null || c.sent_at >= movedAt || c.group_id === c.id) continue;
    if (repeatable(c)) again.push(c);
    else {
      await ctx.lifecycle.finish(c, { status: 'failed', error_message: DELIVERY_NOT_CONFIRMED });
      failed++;
    }
  }
  for (const c of again) await ctx.lifecycle.undelivered([c.id], c.sent_at as string);
  if (again.length + failed > 0)
    ctx.log.info({ repeated: again.length, failed }, 'lease moved here: commands the previous node handed out settled');
}
