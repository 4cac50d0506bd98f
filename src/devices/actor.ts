/**
 * One actor per device (DESIGN.md "Actor"): it holds the turn (requests of its serial are processed
 * one at a time, to completion) and the held poll. What a request does is the handlers'
 * (./handlers/), the session's (./device-session.ts), the lease's (./lease.ts), the poll snapshot's
 * (./poll-snapshot.ts) and delivery's (./delivery.ts). Its state lives in the store, so the hub may
 * drop it when idle and a restart loses nothing.
 */
import type { Logger } from '../log.js';
import type { ActorDeps, ActorReply, PushRequest } from './actor-types.js';
import { Delivery } from './delivery.js';
import { DeviceSession } from './device-session.js';
import { handlerContext, type HandlerContext } from './handlers/context.js';
import { refuse } from './handlers/refuse.js';
import { handleRequest } from './handlers/request.js';
import { DeviceLease } from './lease.js';
import { PollSnapshot } from './poll-snapshot.js';
import { checkTrust } from './trust.js';

/** Why a held poll's wait ended. */
type Wake = 'work' | 'recheck' | 'timeout' | 'superseded';

export class DeviceActor {
  readonly sn: string;
  lastActivity = 0;
  heldPolls = 0;
  /** Requests of this serial in progress: a busy actor is never dropped (a second actor for the same serial would break "one message at a time"). */
  busy = 0;
  readonly #deps: ActorDeps;
  /** The actor's child logger, made on first use: most actors never log (memory per terminal). */
  #childLog: Logger | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #wakers = new Set<(why: Wake) => void>();
  /**
   * Counts wake-ups. A poll notes it before it looks at the mailbox and waits only if it has not
   * moved since: work queued between the look and the wait (no waiter registered yet) is not missed
   * until the next periodic re-check.
   */
  #wakeGeneration = 0;
  /** Counts getrequests: only the newest poll of the serial is held and takes commands (issue #32). */
  #newestPoll = 0;
  readonly #session: DeviceSession;
  readonly #lease: DeviceLease;
  readonly #snapshot: PollSnapshot;
  readonly #delivery: Delivery;
  readonly #handlers: HandlerContext;

  constructor(sn: string, deps: ActorDeps) {
    this.sn = sn;
    this.#deps = deps;
    const log = () => (this.#childLog ??= deps.log.child({ sn }));
    this.#session = new DeviceSession(sn, deps, log, () => this.forget());
    this.#lease = new DeviceLease(sn, deps, log);
    this.#snapshot = new PollSnapshot(this.#session, () => this.#trustMs());
    this.#handlers = handlerContext(sn, deps, this.#session, this.#lease, log);
    this.#delivery = new Delivery(this, this.#handlers, this.#snapshot);
  }

  /** Counts wake-ups (see `wake`). */
  get wakeGeneration(): number {
    return this.#wakeGeneration;
  }

  /** Processes one device request and returns the reply the firmware expects. */
  async handle(req: PushRequest): Promise<ActorReply> {
    this.lastActivity = this.#deps.clock.now().getTime();
    this.busy++;
    try {
      const r = this.#inCharset(req.decoded.endpoint === 'getrequest' ? await this.#poll(req) : await this.turn(() => this.#process(req)));
      return this.#deps.exchanges.noted(this.sn, this.#session.locationId, req, r, this.#deps.clock.now().getTime());
    } finally {
      this.busy--;
    }
  }

  /** [COMMANDS §3.10] names go out in the device's character set (GB2312 for language 83). */
  #inCharset(r: ActorReply): ActorReply {
    const charset = this.#session.replyCharset;
    return charset === 'utf-8' ? r : { ...r, charset };
  }

  /**
   * An idle poll answered from the actor's state in the turn it arrived, without a store read or a
   * promise: the terminal is assigned, nothing is pending, the snapshot and the pending hint are
   * trusted, the lease needs no renewal and its dialect's polls are not held. It does what the full
   * path does for such a poll (the trust check, presence, the empty reply) and nothing else; anything
   * else (other events in the poll, a registration token to bind, a lease to renew, work queued,
   * another request of this serial in progress) is undefined: `handle` then.
   */
  answerIdle(req: PushRequest): ActorReply | undefined {
    const decoded = req.decoded;
    // A poll decodes to one heartbeat; one with INFO takes the full path (its counts are checked).
    const event = decoded.events[0];
    if (
      this.busy > 0 ||
      decoded.endpoint !== 'getrequest' ||
      decoded.rejected > 0 ||
      decoded.events.length !== 1 ||
      event?.type !== 'heartbeat' ||
      event.info !== null
    )
      return undefined;
    const s = this.#snapshot.trusted();
    if (!s?.location || !this.#snapshot.drained(this.#wakeGeneration)) return undefined;
    if (this.#deps.config.longpollS[s.codec.version] > 0) return undefined;
    const nowMs = this.#deps.clock.now().getTime();
    if (!this.#lease.fresh(nowMs) || this.#lease.moved) return undefined;
    const verdict = checkTrust(s.device, req, this.#deps.guard.throttle, nowMs);
    if (verdict.ok && verdict.bind) return undefined;
    this.lastActivity = nowMs;
    // [API-CONTRACT §6] refused: no data in, none out, not even presence (the full path's answer too).
    if (!verdict.ok) return refuse(this.#handlers, verdict, req);
    this.#deps.presence.seen(this.sn, s.device.location_id, req.remoteAddress, nowMs);
    this.#session.speaks(s.device);
    return this.#deps.exchanges.noted(this.sn, s.device.location_id, req, this.#inCharset(s.codec.replies.commands([])), nowMs);
  }

  /**
   * Another node serves this terminal now (it reached that node with a newer request): held polls
   * here answer empty and claim nothing, since the terminal is no longer listening on them.
   */
  release(): void {
    this.#lease.release();
    this.wake();
  }

  /** The device or its location changed (or may have, as far as this node can tell): the next poll reads both from the store. */
  forget(): void {
    this.#snapshot.forget();
    // A held poll looks again: its terminal may have been unassigned, or its location disabled.
    this.#notify('recheck');
  }

  /** Whether a location change may concern this actor: its snapshot is of that location, or it has none (a read may be under way). */
  servesLocation(locationId: number): boolean {
    return this.#snapshot.servesLocation(locationId);
  }

  /** New pending work: release held polls. */
  wake(): void {
    this.#wakeGeneration++;
    this.#notify('work');
  }

  /**
   * What this actor holds on the feed's word may be stale (the feed lost or regained the other
   * nodes, or another process wrote to the store): the next poll reads the store, and held polls
   * look at it now.
   */
  doubt(): void {
    this.#snapshot.doubt();
    this.forget();
  }

  #notify(why: Wake): void {
    if (this.#wakers.size === 0) return;
    const wakers = [...this.#wakers];
    this.#wakers.clear();
    for (const w of wakers) w(why);
  }

  /** How often a held poll looks at the store (ms; RuntimeConfig.pollTrust). */
  #trustMs(): number {
    const trust = this.#deps.config.pollTrust;
    return this.#deps.feedTrusted() ? trust.trustedMs : trust.untrustedMs;
  }

  /** The turn: `fn` runs once every earlier request of this serial has finished. */
  turn<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(fn, fn);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #process(req: PushRequest) {
    // An idle poll works from the snapshot; every other request reads the store.
    const known = req.decoded.endpoint === 'getrequest' ? await this.#snapshot.current(true) : undefined;
    return handleRequest(this.#handlers, req, known);
  }

  // ------------------------------------------------------------------ the held poll

  async #poll(req: PushRequest): Promise<ActorReply> {
    const delivery = this.#delivery;
    let seen = this.#wakeGeneration;
    // The newest poll wins: a terminal listens on its latest request, so older held ones answer empty now.
    const mine = ++this.#newestPoll;
    this.#notify('superseded');
    const newest = () => mine === this.#newestPoll;
    const first = await this.turn(async () => {
      seen = this.#wakeGeneration;
      const r = await this.#process({ ...req, decoded: { ...req.decoded } });
      if (r.status === 401 || r.status === 403) return { denied: r, ...(await delivery.none()) };
      return { denied: undefined, ...(await (newest() ? delivery.take(req.client) : delivery.none())) };
    });
    if (first.denied) return first.denied;
    if (first.batch.lines.length > 0) return delivery.send(first.codec, first.batch);
    const holdMs = this.#deps.config.longpollS[first.codec.version] * 1000;
    if (holdMs <= 0 || !first.assigned) return first.codec.replies.commands([]);
    // Hold the poll (DESIGN.md "Command delivery"): answer as soon as work arrives. A command queued
    // on another node (or by the CLI) wakes it through the feed; while the feed cannot be trusted to
    // say so, the store is looked at every `#trustMs()` as well.
    const deadline = Date.now() + holdMs;
    this.heldPolls++;
    this.#deps.presence.hold(this.sn, 1);
    try {
      while (!req.client.gone && newest() && Date.now() < deadline) {
        const why: Wake =
          seen !== this.#wakeGeneration
            ? 'work'
            : await this.#waitForWork(Math.min(this.#trustMs(), deadline - Date.now()), req.client.signal);
        seen = this.#wakeGeneration;
        if (req.client.gone || !newest() || (why === 'timeout' && Date.now() >= deadline)) break;
        // A newer request of the terminal reached another node: this poll is half-open, claim nothing.
        if (!(await this.#lease.stillOwned())) break;
        // The device or its location changed (or may have): unassigned, or the location disabled, it
        // is answered now, as its next poll would be.
        if (why === 'recheck' && !(await this.#snapshot.current(false)).location) break;
        // Woken: work was queued, go for it. A look on the timer or in doubt asks the store first
        // (cheaper); it also catches work no event announced here (the pending hint is dropped for it).
        if (why === 'work' || (await delivery.pendingInStore(this.sn))) {
          // The device may have gone while this waited its turn: claim nothing it would never receive.
          const next = await this.turn(() => (this.#lease.held && newest() ? delivery.take(req.client) : delivery.none()));
          if (next.batch.lines.length > 0) return delivery.send(next.codec, next.batch);
        }
      }
    } finally {
      this.heldPolls--;
      this.#deps.presence.hold(this.sn, -1);
      this.lastActivity = this.#deps.clock.now().getTime();
    }
    return first.codec.replies.commands([]);
  }

  /** Resolves with why it ended: woken (new work, or released), a doubt, the timeout or an abort. */
  #waitForWork(ms: number, signal: AbortSignal): Promise<Wake> {
    return new Promise((resolve) => {
      const done = (why: Wake) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        this.#wakers.delete(done);
        resolve(why);
      };
      const aborted = () => done('timeout');
      const timer = setTimeout(aborted, Math.max(0, ms));
      signal.addEventListener('abort', aborted, { once: true });
      this.#wakers.add(done);
    });
  }
}
