/**
 * The device lease: which node serves a terminal (RuntimeConfig.deviceLeaseS).
 *
 * Invariants:
 * - The node serving the terminal's newest request owns it: the lease is taken from whoever held it
 *   (the terminal is where its newest request is) and renewed once half of it has run out.
 * - Taking it from a node whose lease had not run out tells that node (`onTakeover`), which lets go.
 * - A lease that moved here from another node is noted (`takeMove`): the next poll settles the commands
 *   that node handed out and the terminal never answered (lease-move.ts).
 * - `until` is this node's own belief: 0 once another node is known to own the terminal (`release`,
 *   or a held poll's check found another owner); a held poll claims nothing then.
 */
import type { Logger } from '../log.js';
import type { Device } from '../store/ports/index.js';
import type { ActorDeps } from './actor-types.js';

type LeaseDeps = Pick<ActorDeps, 'store' | 'clock' | 'config' | 'node' | 'onTakeover'>;

export class DeviceLease {
  readonly #sn: string;
  readonly #deps: LeaseDeps;
  readonly #log: () => Logger;
  /** Until when this node's lease on the device runs, as far as this node knows (0: not ours). */
  #until = 0;
  /** When the lease moved here from another node, until the next poll settles what that node handed out (lease-move.ts). */
  #movedAt: string | undefined;

  constructor(sn: string, deps: LeaseDeps, log: () => Logger) {
    this.#sn = sn;
    this.#deps = deps;
    this.#log = log;
  }

  /** Whether this node believes it serves the terminal. */
  get held(): boolean {
    return this.#until !== 0;
  }

  /** Whether the lease runs for more than half of its length from `nowMs`: no renewal due. */
  fresh(nowMs: number): boolean {
    return this.#until - nowMs > (this.#deps.config.deviceLeaseS * 1000) / 2;
  }

  /** Takes or renews the lease for a request of a known device. */
  async own(device: Device | undefined): Promise<void> {
    if (!device) return;
    const now = this.#deps.clock.now().getTime();
    if (this.fresh(now)) return;
    const until = now + this.#deps.config.deviceLeaseS * 1000;
    const before = await this.#deps.store.cluster.claimDevice(this.#sn, this.#deps.node, new Date(until).toISOString());
    this.#until = until;
    const previous = before?.owner_node;
    if (previous && previous !== this.#deps.node) this.#movedAt = new Date(now).toISOString();
    if (previous && previous !== this.#deps.node && before.lease_until !== null && Date.parse(before.lease_until) > now) {
      this.#log().info({ previous }, 'device moved here from another node');
      this.#deps.onTakeover(this.#sn, previous);
    }
  }

  /** Whether this node still serves the terminal: checked in the store before a held poll claims anything. */
  async stillOwned(): Promise<boolean> {
    if (this.#until === 0) return false;
    const lease = await this.#deps.store.cluster.deviceLease(this.#sn);
    if (lease && lease.owner_node !== null && lease.owner_node !== this.#deps.node) {
      this.#until = 0;
      return false;
    }
    return true;
  }

  /** Whether the lease moved here and the next poll has yet to settle what the previous node handed out. */
  get moved(): boolean {
    return this.#movedAt !== undefined;
  }

  /** When the lease moved here from another node, once: the poll that asks settles what that node handed out. */
  takeMove(): string | undefined {
    const at = this.#movedAt;
    this.#movedAt = undefined;
    return at;
  }

  /** Another node serves the terminal now. */
  release(): void {
    this.#until = 0;
  }
}
