/**
 * What a handler of device events is given: the state it needs, not the actor. One context per
 * actor (`HandlerContext`), one state per request (`RequestState`), changed as its events are handled.
 */
import type { DeviceEvent, DeviceReply } from '../../../protocols/index.js';
import type { Logger } from '../../log.js';
import type { Device, DeviceSessionPatch, Location } from '../../store/ports/index.js';
import type { ActorDeps, PushRequest } from '../actor-types.js';
import type { DeviceSession } from '../device-session.js';
import type { DeviceLease } from '../lease.js';
import { LogBudget } from '../log-budget.js';
import type { ResultContext } from '../results.js';

export interface HandlerContext extends Pick<
  ActorDeps,
  | 'store'
  | 'bus'
  | 'clock'
  | 'config'
  | 'firmware'
  | 'presence'
  | 'guard'
  | 'onTemplatesChanged'
  | 'onAccessTablesStored'
  | 'onUnknownTable'
  | 'onReportedCounts'
> {
  readonly sn: string;
  readonly log: Logger;
  /** Log lines caused by what this serial sends (log-budget.ts). */
  readonly logBudget: LogBudget;
  readonly session: DeviceSession;
  readonly lease: DeviceLease;
  /** The context of command results (results.ts), reading the device afresh each time. */
  readonly results: ResultContext;
}

/** One request as its events are handled: the device and location as they stand, what was accepted. */
export interface RequestState {
  readonly req: PushRequest;
  device: Device | undefined;
  location: Location | undefined;
  /** Records accepted: the `n` of the upload reply [PUSH-v2 §6.1]. */
  accepted: number;
  /** A poll: answered with the mailbox's commands (or none), not with an upload reply. */
  hold: boolean;
  /** No earlier request of this serial is known (not in the record, not in this node's presence). */
  readonly firstContact: boolean;
}

/** A handler's answer: the reply that ends the request, or undefined to go on with its next event. */
export type Handled = DeviceReply | undefined;

/** The handler of one kind of event. */
export type Handler<T extends DeviceEvent['type']> = (
  ctx: HandlerContext,
  state: RequestState,
  event: Extract<DeviceEvent, { type: T }>,
) => Promise<Handled> | Handled;

export const nowIso = (ctx: HandlerContext): string => ctx.clock.now().toISOString();

/**
 * The result context for one reply: the device is read once for all of its results (each result
 * may teach a capability [COMMANDS §2.6]) and replaced by what this reply's own updates return.
 */
export function replyResults(ctx: HandlerContext): ResultContext {
  const session = ctx.session;
  let device: ReturnType<ResultContext['device']> | undefined;
  return Object.assign(Object.create(ctx.results) as ResultContext, {
    device: () => (device ??= session.read()),
    updateDevice: async (patch: DeviceSessionPatch) => {
      const updated = await session.update(patch);
      device = Promise.resolve(updated);
      return updated;
    },
  });
}

/** A property of the context's own, as a plain object's would be. */
const own = (value: unknown): PropertyDescriptor => ({ value, enumerable: true, writable: true });

/**
 * The handlers' context of one actor. The actor's dependencies are its prototype, shared by every
 * actor (memory per terminal); its own are the serial, the logger (made on first use: most actors
 * never log) and its session, lease and log budget.
 */
export function handlerContext(sn: string, deps: ActorDeps, session: DeviceSession, lease: DeviceLease, log: () => Logger): HandlerContext {
  const logger = { get: log, enumerable: true };
  const results = Object.create(deps, {
    sn: own(sn),
    log: logger,
    device: own(() => session.read()),
    updateDevice: own((patch: DeviceSessionPatch) => session.update(patch)),
  }) as ResultContext;
  return Object.create(deps, {
    sn: own(sn),
    log: logger,
    // Log lines caused by what this serial sends: 5 a minute at most.
    logBudget: own(new LogBudget(5, 60_000)),
    session: own(session),
    lease: own(lease),
    results: own(results),
  }) as HandlerContext;
}
