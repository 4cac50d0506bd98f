// The requests of one server: each arriving request becomes an Exchange (./exchange.ts); this set
// knows which are still in flight, for a graceful close.

import { Exchange } from './exchange.js';
import type { ExchangeOptions, ExchangeOwner } from './exchange.js';
import type { Incoming, Wire } from './wire.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The requests of one server: dispatches them and knows which are still in flight, so close()
 * can abort their signals (held long polls answer at once), wait for them, and settle the rest.
 */
export class Exchanges implements ExchangeOwner {
  readonly options: ExchangeOptions;
  readonly #active = new Set<Exchange>();
  readonly #idPrefix = Math.random().toString(36).slice(2, 8);
  #seq = 0;
  #inFlight = 0;
  #idle: (() => void) | undefined;
  #stopping = false;

  constructor(options: ExchangeOptions) {
    this.options = options;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  /** The caller's X-Request-Id when sane (echoed back), else a generated one. */
  requestId(given: string | undefined): string {
    return given && REQUEST_ID.test(given) ? given : `${this.#idPrefix}-${(++this.#seq).toString(36)}`;
  }

  /** From now on requests get 503 SHUTTING_DOWN; in-flight ones see their signal aborted. */
  stop(): void {
    this.#stopping = true;
    for (const r of [...this.#active]) r.abort();
  }

  /** Resolves once nothing is in flight, or after graceMs. */
  async drained(graceMs: number): Promise<void> {
    if (this.#inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.#idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Whatever is still unsettled was cut off: its response never reached the client. */
  settleAll(): void {
    for (const r of [...this.#active]) r.settle(false);
  }

  /**
   * Handles one request. Must be called in the tick the request arrived (some engines invalidate
   * it afterwards); returns what the engine calls when the client goes away.
   */
  handle(incoming: Incoming, wire: Wire): { aborted(): void } {
    this.#inFlight++;
    const exchange = new Exchange(this, incoming, wire);
    this.#active.add(exchange);
    exchange.start();
    return exchange;
  }

  /** An exchange is no longer in flight (its body was handed to the socket, or the client left). */
  finished(exchange: Exchange): void {
    this.#active.delete(exchange);
    this.#inFlight--;
    if (this.#inFlight === 0 && this.#idle) this.#idle();
  }
}
