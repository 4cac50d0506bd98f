/**
 * One device request in the actor's turn: the trust check [API-CONTRACT §6], the lease, presence, the
 * request in the device's language, then its events, one by one, through the dispatcher; the reply is
 * the first a handler gives, else the poll's (its commands follow) or the upload's [PUSH-v2 §6.1].
 */
import type { DeviceReply } from '../../../protocols/index.js';
import type { Device, Location } from '../../store/ports/index.js';
import type { PushRequest } from '../actor-types.js';
import { SAMPLES_PER_REQUEST, truncateBytes } from '../log-budget.js';
import { checkTrust } from '../trust.js';
import { nowIso, type HandlerContext, type RequestState } from './context.js';
import { dispatch } from './index.js';
import { refuse } from './refuse.js';

/** `known`: a poll's device and location from the poll snapshot; otherwise the store is read. */
export async function handleRequest(
  ctx: HandlerContext,
  req: PushRequest,
  known: { device: Device | undefined; location: Location | undefined } | undefined,
): Promise<DeviceReply> {
  const { session } = ctx;
  let device = known ? known.device : await session.ensure();
  const verdict = checkTrust(device, req, ctx.guard.throttle, ctx.clock.now().getTime());
  // [API-CONTRACT §6] refused: no data in, none out, not even presence.
  if (!verdict.ok) return refuse(ctx, verdict, req);
  if (verdict.bind) {
    // [PUSH-v3 §5] the terminal presented the token of its registration: from now on it must.
    device = await session.update({ token_bound_at: nowIso(ctx), token_bound_address: req.remoteAddress });
    ctx.log.info('registration token bound: requests without it are refused from now on');
  }
  await ctx.lease.own(device);
  // [PUSH-v3 §3.2] The first contact opens registration: what this node knows rules most requests out
  // cheaply, and the store's compare-and-set decides between nodes racing for the same serial.
  const firstContact =
    !device ||
    (device.version === null &&
      device.registered_at === null &&
      device.last_seen === null &&
      ctx.presence.lastSeenOf(ctx.sn) === undefined &&
      (await ctx.store.devices.claimFirstContact(ctx.sn, nowIso(ctx))));
  ctx.presence.seen(ctx.sn, device?.location_id ?? null, req.remoteAddress, ctx.clock.now().getTime());
  const decoded = session.decoded(req, device);
  if (decoded.rejected > 0) {
    // Device-sent text, possibly from an unauthenticated sender: truncated, few, rate-limited.
    const suppressed = ctx.logBudget.take(ctx.clock.now().getTime());
    if (suppressed !== undefined) {
      const samples = decoded.rejectedSamples.slice(0, SAMPLES_PER_REQUEST).map((l) => truncateBytes(l));
      ctx.log.warn({ rejected: decoded.rejected, samples, endpoint: decoded.endpoint, suppressed }, 'device lines rejected');
    }
  }
  const state: RequestState = {
    req,
    device,
    location: known ? known.location : await session.location(device),
    accepted: 0,
    hold: false,
    firstContact,
  };
  for (const event of decoded.events) {
    const reply = await dispatch(ctx, state, event);
    if (reply) return reply;
  }
  const codec = session.codec;
  if (state.hold) return codec.replies.commands([]);
  return decoded.reply.kind === 'ok' || decoded.reply.kind === 'commands'
    ? codec.replies.ok()
    : codec.replies.upload(decoded.reply, state.accepted);
}
