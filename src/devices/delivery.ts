/**
 * Commands out to one terminal (DESIGN.md "Command delivery"): taking a batch from its mailbox,
 * sending it in a reply, putting it back when the reply did not reach the terminal.
 *
 * Invariants:
 * - A batch is taken in the actor's turn and in one unit of work (outbox.ts `takeBatch`), rendered with
 *   the device and location as stored now, never from the poll snapshot.
 * - Nothing is claimed for a terminal that went away while this waited its turn, nor for an unassigned
 *   device [API-CONTRACT §6]: it gets a valid reply without commands.
 * - An idle poll whose pending hint holds (poll-snapshot.ts) reads nothing from the store.
 * - The first poll after the terminal's lease moved here settles what the previous node handed out
 *   unanswered before it takes a batch (lease-move.ts): repeatable work goes again in this very poll.
 * - A moved terminal is handed only the deletes of its previous location's users until every one is
 *   settled (`moveGroup`); what is held back leaves the mailbox not drained, so polls keep reading it.
 * - A batch's commands become `sent` for everyone once the reply was written in full; when the
 *   terminal went away first they go back to pending, in the actor's turn, so the terminal's next poll
 *   claims after the put-back and gets them. Until then the actor is busy and the pending hint is void.
 */
import type { Codec, QueuedLine } from '../../protocols/index.js';
import type { Command, Device } from '../store/ports/index.js';
import type { ActorReply, PushRequest } from './actor-types.js';
import type { HandlerContext } from './handlers/context.js';
import { settleInDoubt } from './lease-move.js';
import { EMPTY_BATCH, takeBatch, type Batch } from './outbox.js';
import type { PollSnapshot } from './poll-snapshot.js';

/** A batch taken for a poll, the codec it was rendered with, and whether the device is assigned. */
export interface Taken {
  readonly codec: Codec;
  readonly batch: Batch;
  readonly assigned: boolean;
}

/** What delivery asks of its actor. */
export interface DeliveryHost {
  /** The actor's wake generation (see DeviceActor.wake). */
  readonly wakeGeneration: number;
  /** Requests of the serial in progress: the actor is busy while a put-back waits its turn. */
  busy: number;
  /** Runs `fn` in the actor's turn. */
  turn<T>(fn: () => Promise<T>): Promise<T>;
  wake(): void;
}

export class Delivery {
  readonly #host: DeliveryHost;
  readonly #ctx: HandlerContext;
  readonly #snapshot: PollSnapshot;

  constructor(host: DeliveryHost, ctx: HandlerContext, snapshot: PollSnapshot) {
    this.#host = host;
    this.#ctx = ctx;
    this.#snapshot = snapshot;
  }

  /** No batch: the reply of a refused request, a terminal gone, or a device no longer served here. */
  async none(): Promise<Taken> {
    await this.#ctx.session.read();
    return { codec: this.#ctx.session.codec, batch: EMPTY_BATCH, assigned: false };
  }

  /** The next batch of the mailbox for a poll (in the actor's turn). */
  async take(client: PushRequest['client']): Promise<Taken> {
    const session = this.#ctx.session;
    const snapshot = this.#snapshot;
    if (client.gone) return this.none();
    // Noted before the store is read: a wake from here on makes the next poll read it again.
    const generation = this.#host.wakeGeneration;
    const s = snapshot.trusted();
    const moved = this.#ctx.lease.moved;
    if (s && !moved && snapshot.drained(generation)) return { codec: s.codec, batch: EMPTY_BATCH, assigned: s.location !== undefined };
    const { device, location } = await snapshot.current(false, true);
    const codec = session.codec;
    if (!device || !location) return { codec, batch: EMPTY_BATCH, assigned: false };
    const movedAt = this.#ctx.lease.takeMove();
    if (movedAt !== undefined) await settleInDoubt(this.#ctx.results, location.id, movedAt);
    const only = await this.#moveDeletesOnly(device);
    const batch = await this.#ctx.store.unitOfWork(() => takeBatch(this.#ctx.results, codec, () => snapshot.current(false, true), only));
    snapshot.noteDrained(batch.drained ? generation : undefined);
    return { codec, batch, assigned: true };
  }

  /**
   * [API-CONTRACT §6] A moved terminal: while the deletes of its previous location's users are
   * outstanding (sync/queue.ts, `moveGroup`), only they are handed out, nothing of the new location,
   * API commands included. Once the group is settled the mark goes.
   */
  async #moveDeletesOnly(device: Device): Promise<((c: Command) => boolean) | undefined> {
    const group = device.state?.moveGroup;
    if (group === undefined) return undefined;
    if (await this.#ctx.store.commands.groupOutstanding(group)) return (c) => c.group_id === group;
    const { moveGroup: _settled, ...state } = device.state ?? {};
    await this.#ctx.session.update({ state });
    return undefined;
  }

  /** The held poll's periodic store check; work found there is taken even if the hint said empty. */
  async pendingInStore(sn: string): Promise<boolean> {
    if ((await this.#ctx.store.commands.countPending(sn)) === 0) return false;
    this.#snapshot.doubt();
    return true;
  }

  /** The reply carrying a batch, which learns whether it reached the terminal. */
  send(codec: Codec, batch: Batch): ActorReply {
    const { lifecycle } = this.#ctx.results;
    const host = this.#host;
    const putBack = () => {
      this.#ctx.log.info({ commands: batch.lines.map((l) => l.id) }, 'reply with commands not delivered: they stay queued');
      this.#snapshot.doubt();
      host.busy++;
      host
        .turn(() => lifecycle.undelivered(batch.ids, batch.sentAt))
        .catch((err: unknown) => this.#ctx.log.error({ err }, 'putting back an undelivered command batch failed'))
        .finally(() => {
          host.busy--;
          host.wake();
        });
    };
    return {
      ...codec.replies.commands(batch.lines as QueuedLine[]),
      onSettled: (delivered) => {
        if (delivered) lifecycle.delivered(batch.announce, batch.marker);
        else putBack();
      },
    };
  }
}
