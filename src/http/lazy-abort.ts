/**
 * A request's abort signal, made only when something asks for it. An AbortController is an
 * EventTarget, and making one for every request was the largest single item of an idle terminal
 * poll (issue #20); most requests only ever ask whether they were aborted, which `aborted` answers
 * without one.
 */
export class LazyAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  /** Runs once, on abort (without making the signal). */
  onAbort: (() => void) | undefined;

  /** Whether the client left or the server stops. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The signal, made now if nothing asked for it before (already aborted when `abort()` ran first). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort();
    this.onAbort?.();
  }
}
