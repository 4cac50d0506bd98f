/**
 * A request that failed the trust check (devices/trust.ts). 403 for an address outside the allow-list;
 * 401 for a wrong or missing comm key or registration token, and while wrong keys are throttled (the
 * same answer, so a guesser cannot tell which attempts were checked). Any non-200 makes the terminal
 * keep its data and retry after ErrorDelay [PUSH-v2 §2.2, §4.3; PUSH-v3 §4.1]. Logged within the
 * serial's log budget, and always when a throttle window opens; the token and key are never logged.
 */
import type { DeviceReply } from '../../../protocols/index.js';
import { textReply, type PushRequest } from '../actor-types.js';
import type { TrustVerdict } from '../trust.js';
import type { HandlerContext } from './context.js';

export function refuse(ctx: HandlerContext, verdict: Exclude<TrustVerdict, { ok: true }>, req: PushRequest): DeviceReply {
  ctx.guard.refused(verdict.reason);
  const opened = verdict.reason === 'comm_key' && verdict.failures === ctx.guard.freeFailures + 1;
  const suppressed = ctx.logBudget.take(ctx.clock.now().getTime());
  if (opened || suppressed !== undefined) {
    ctx.log.warn(
      {
        reason: verdict.reason,
        address: req.remoteAddress,
        endpoint: req.decoded.endpoint,
        suppressed: suppressed ?? 0,
        ...(verdict.blockedMs ? { blocked_ms: verdict.blockedMs } : {}),
      },
      opened ? 'repeated wrong comm keys: this serial is throttled' : 'device request refused',
    );
  }
  return verdict.reason === 'network' ? textReply(403, 'Forbidden') : textReply(401, 'Unauthorized');
}
