/**
 * Before a claim stores an event another writer still owes (bus `command.owed`, ./outbox.ts), it lets that
 * writer's append land: a node's append is milliseconds away, and two nodes storing one event at once cost
 * the feed a hole (the loser's seq, which every node's lane waits out before skipping it).
 *
 * Invariants:
 * - The owed commands asked for in one turn of the event loop are checked together: one store read per
 *   round for all of them, every POLL_MS, for at most WAIT_MS (real time: an append is real I/O).
 * - A command is answered `true` as soon as its row no longer carries the marker it was offered with
 *   (that event is stored, or a newer transition replaced it); `false` once WAIT_MS passed with the
 *   marker still there (its writer crashed or is slow: the caller stores it itself).
 * - A store error answers every command of the round `false`: the caller stores what it can.
 */
import type { Store } from '../store/types.js';

/** How long a claim lets another writer's append land. */
export const WAIT_MS = 1_000;
const POLL_MS = 20;

interface Round {
  /** Command id → the marker it was offered with. */
  readonly markers: Map<number, string>;
  readonly cleared: Promise<ReadonlySet<number>>;
}

export class OwedWait {
  readonly #store: Store;
  #round: Round | undefined;

  constructor(store: Store) {
    this.#store = store;
  }

  /** Resolves true once the command no longer carries `marker`, false when it still does after WAIT_MS. */
  async cleared(commandId: number, marker: string): Promise<boolean> {
    let round = this.#round;
    if (!round) {
      const markers = new Map<number, string>();
      // The round closes at the end of this turn: later offers start the next one.
      const cleared = new Promise<void>((r) => setImmediate(r)).then(() => {
        this.#round = undefined;
        return this.#poll(markers);
      });
      round = this.#round = { markers, cleared };
    }
    round.markers.set(commandId, marker);
    return (await round.cleared).has(commandId);
  }

  async #poll(markers: ReadonlyMap<number, string>): Promise<ReadonlySet<number>> {
    const cleared = new Set<number>();
    const started = Date.now();
    try {
      for (;;) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        const left = [...markers.keys()].filter((id) => !cleared.has(id));
        const owed = await this.#store.commands.owedMarkers(left);
        for (const id of left) if (owed.get(id) !== markers.get(id)) cleared.add(id);
        if (cleared.size === markers.size || Date.now() - started >= WAIT_MS) return cleared;
      }
    } catch {
      return cleared;
    }
  }
}
