/**
 * Answers to what BioGate asked or a terminal asks back: command results, matched by id only
 * [PUSH-v2 §8.4], query answers [PUSH-v3 §10.3, §10.5], door states [PUSH-v3 §7.3] and remote user
 * lookups [PUSH-v2 §6.10].
 */
import { randomUUID } from 'node:crypto';
import { doorEventBusPayload, doorEventsFromRtstate } from '../door-events.js';
import { addProgress, applyResult } from '../results.js';
import { sanitizeOptions } from '../session.js';
import { nowIso, replyResults, type Handler } from './context.js';

/** One commit for the reply's results (50 commands are some 300 small writes). */
export const commandResults: Handler<'commandResults'> = async (ctx, _state, event) => {
  await ctx.store.unitOfWork(async () => {
    const results = replyResults(ctx);
    for (const result of event.results) await applyResult(results, ctx.session.codec, result);
  });
  return undefined;
};

/** [PUSH-v3 §10.5] the answer to GET OPTIONS: the command's progress and the device's options. */
export const queryOptions: Handler<'queryOptions'> = async (ctx, state, event) => {
  const id = Number(event.cmdId);
  const options = sanitizeOptions(event.options.values);
  if (Number.isSafeInteger(id)) await addProgress(ctx.results, id, (p) => ({ ...p, options }));
  state.device = await ctx.session.update({ options });
  return undefined;
};

/** [PUSH-v3 §10.3] a count: the reply echoes it; the command's result comes by devicecmd. */
export const queryCount: Handler<'queryCount'> = () => undefined;

export const doorStates: Handler<'doorStates'> = async (ctx, state, event) => {
  const { device, location } = state;
  if (device && location) {
    // With the outbox marker of their feed events (src/events/outbox.ts).
    const feedEvent = randomUUID();
    const stored = await ctx.store.doorEvents.append(doorEventsFromRtstate(ctx.sn, location, event.records), nowIso(ctx), feedEvent);
    for (const e of stored) ctx.bus.emit('door.event', { ...doorEventBusPayload(e), feed_event: feedEvent });
  }
  state.accepted += event.records.length;
  return undefined;
};

/** [PUSH-v2 §6.10] BioGate holds no users a terminal does not: the lookup finds none. */
export const remoteUserLookup: Handler<'remoteUserLookup'> = (ctx) => ctx.session.codec.replies.remoteUser([]);
