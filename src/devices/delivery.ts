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
 * - A batch's commands become `sent` for everyone once the reply was written in full; when the
 *   terminal went away first they go back to pending, in the actor's turn, so the terminal's next poll
 *   claims after the put-back and gets them. Until then the actor is busy and the pending hint is void.
 */
import type { Codec, QueuedLine } from '../../protocols/index.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { ActorReply, PushRequest } from './actor-types.js';
import type { DeviceSession } from './device-session.js';
import type { CommandLifecycle } from './lifecycle.js';
import { EMPTY_BATCH, takeBatch, type Batch } from './outbox.js';
import type { PollSnapshot } from './poll-snapshot.js';
import type { ResultContext } from './results.js';

/** A batch taken for a poll, the codec it was rendered with, and whether the device is assigned. */
export interface Taken {
  readonly codec: Codec;
  readonly batch: Batch;
  readonly assigned: boolean;
}

export interface DeliveryContext {
  readonly store: Store;
  readonly lifecycle: CommandLifecycle;
  readonly log: () => Logger;
  readonly session: DeviceSession;
  readonly snapshot: PollSnapshot;
  readonly results: ResultContext;
  /** The actor's wake generation (see DeviceActor.wake). */
  readonly generation: () => number;
  /** Runs `fn` in the actor's turn. */
  readonly turn: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Marks the actor busy (+1) or done (-1). */
  readonly busy: (delta: 1 | -1) => void;
  readonly wake: () => void;
}

export class Delivery {
  readonly #ctx: DeliveryContext;

  constructor(ctx: DeliveryContext) {
    this.#ctx = ctx;
  }

  /** No batch: the reply of a refused request, a terminal gone, or a device no longer served here. */
  async none(): Promise<Taken> {
    await this.#ctx.session.read();
    return { codec: this.#ctx.session.codec, batch: EMPTY_BATCH, assigned: false };
  }

  /** The next batch of the mailbox for a poll (in the actor's turn). */
  async take(client: PushRequest['client']): Promise<Taken> {
    const { session, snapshot } = this.#ctx;
    if (client.gone) return this.none();
    // Noted before the store is read: a wake from here on makes the next poll read it again.
    const generation = this.#ctx.generation();
    const s = snapshot.trusted();
    if (s && snapshot.drained(generation)) return { codec: s.codec, batch: EMPTY_BATCH, assigned: s.location !== undefined };
    const { device, location } = await snapshot.current(false, true);
    const codec = session.codec;
    if (!device || !location) return { codec, batch: EMPTY_BATCH, assigned: false };
    const batch = await this.#ctx.store.unitOfWork(() => takeBatch(this.#ctx.results, codec, device, location));
    snapshot.noteDrained(batch.drained ? generation : undefined);
    return { codec, batch, assigned: true };
  }

  /** The held poll's periodic store check; work found there is taken even if the hint said empty. */
  async pendingInStore(sn: string): Promise<boolean> {
    if ((await this.#ctx.store.commands.countPending(sn)) === 0) return false;
    this.#ctx.snapshot.doubt();
    return true;
  }

  /** The reply carrying a batch, which learns whether it reached the terminal. */
  send(codec: Codec, batch: Batch): ActorReply {
    const ctx = this.#ctx;
    const putBack = () => {
      ctx.log().info({ commands: batch.lines.map((l) => l.id) }, 'reply with commands not delivered: they stay queued');
      ctx.snapshot.doubt();
      ctx.busy(1);
      ctx
        .turn(() => ctx.lifecycle.undelivered(batch.ids, batch.sentAt))
        .catch((err: unknown) => ctx.log().error({ err }, 'putting back an undelivered command batch failed'))
        .finally(() => {
          ctx.busy(-1);
          ctx.wake();
        });
    };
    return {
      ...codec.replies.commands(batch.lines as QueuedLine[]),
      onSettled: (delivered) => {
        if (delivered) ctx.lifecycle.delivered(batch.announce);
        else putBack();
      },
    };
  }
}
