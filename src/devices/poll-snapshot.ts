/**
 * What an idle poll trusts without asking the store: the actor's last read of its device and location
 * (with the codec resolved from it), and the "pending hint", that its mailbox was empty.
 *
 * Invariants:
 * - Events drop the snapshot or the hint at once: `device.updated`, `location.changed` and
 *   `mailbox.changed` (locally, or through the feed from other nodes and the CLI) and `doubt()` when
 *   the feed may have missed something (the hub calls the actor's `forget`, `wake`, `doubt`).
 * - A store read that started before a `forget` never becomes the snapshot (`#generation`).
 * - The hint holds for one wake generation of the actor: any wake (new work queued here or announced
 *   by the feed) moves the generation on, so the next poll reads the store again.
 * - Both are trusted for `trustMs()` at most (RuntimeConfig.pollTrust): that bounds what a change
 *   nobody announced costs, a second while the feed cannot be trusted, longer while it can. Wall
 *   clock (like the held poll's deadline), so a test's fake clock does not freeze it.
 * - Commands are rendered from a fresh read (`current(…, fresh)`), never from the snapshot.
 */
import { performance } from 'node:perf_hooks';
import { codecOfDevice, type Codec } from '../../protocols/index.js';
import type { Device, Location } from '../store/ports/index.js';
import type { DeviceSession } from './device-session.js';

/** The actor's view of its device and location, as read from the store, trusted until `until`. */
export interface Snapshot {
  readonly device: Device;
  readonly location: Location | undefined;
  readonly codec: Codec;
  readonly until: number;
}

export class PollSnapshot {
  readonly #session: DeviceSession;
  readonly #trustMs: () => number;
  #snapshot: Snapshot | undefined;
  /** Bumped by every `forget`: a store read that started before it must not become the snapshot. */
  #generation = 0;
  /** The mailbox was empty as of this wake generation of the actor, until `#drainedUntil`; -1: unknown. */
  #drainedAt = -1;
  #drainedUntil = 0;

  constructor(session: DeviceSession, trustMs: () => number) {
    this.#session = session;
    this.#trustMs = trustMs;
  }

  /** The snapshot while it is trusted. */
  trusted(): Snapshot | undefined {
    const s = this.#snapshot;
    return s && performance.now() < s.until ? s : undefined;
  }

  /** Whether nothing was pending at wake generation `generation` and that is still trusted. */
  drained(generation: number): boolean {
    return this.#drainedAt === generation && performance.now() < this.#drainedUntil;
  }

  /** The mailbox was read empty (`generation`: the actor's wake generation noted before the read), or not. */
  noteDrained(generation: number | undefined): void {
    if (generation === undefined) this.#drainedAt = -1;
    else {
      this.#drainedAt = generation;
      this.#drainedUntil = performance.now() + this.#trustMs();
    }
  }

  /**
   * Device and location for a poll: the snapshot while it is trusted, else read (`ensure`: recording
   * an unknown serial, as any first request does) and kept if nothing was forgotten meanwhile.
   */
  async current(ensure: boolean, fresh = false): Promise<{ device: Device | undefined; location: Location | undefined }> {
    const s = this.#snapshot;
    if (!fresh && s && performance.now() < s.until) return s;
    const generation = this.#generation;
    const device = ensure ? await this.#session.ensure() : await this.#session.read();
    const location = await this.#session.location(device);
    if (device && generation === this.#generation) {
      this.#snapshot = { device, location, codec: codecOfDevice(device), until: performance.now() + this.#trustMs() };
    }
    return { device, location };
  }

  forget(): void {
    this.#snapshot = undefined;
    this.#generation++;
  }

  /** The pending hint is void (the feed may have missed a change, or work was found in the store). */
  doubt(): void {
    this.#drainedAt = -1;
  }

  /** Whether a location change may concern this actor: its snapshot is of that location, or it has none (a read may be under way). */
  servesLocation(locationId: number): boolean {
    return this.#snapshot === undefined || this.#snapshot.device.location_id === locationId;
  }
}
