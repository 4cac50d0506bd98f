/**
 * The engine-neutral life of one HTTP request: request id and per-request logger, routing
 * (404/405), the body limit (413) and body timeout, dispatch to the handler, error mapping
 * (BioGateError → its status, anything else → a 500 with an error id), rendering, the access-log
 * observer, the onSettled hook and in-flight accounting for graceful close.
 *
 * An engine (./uws-server.ts, ./node-server.ts) only copies the request's fields, hands over a
 * `Wire` (how to write a response, read the body, cut the connection) and reports the client
 * leaving. Everything a client can observe is decided here, so both engines answer alike.
 */
import { randomUUID } from 'node:crypto';
import { BioGateError, toErrorResponse } from '../errors.js';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log.js';
import { clientAddress, type TrustCheck } from './client-address.js';
import { render, type Rendered } from './render.js';
import type { Router } from './router.js';
import type { Handler, HttpMethod, HttpRequest, HttpResponse, ResponseObserver } from './types.js';

/** Reason phrases both engines put on the status line (uWS has none of its own). */
const REASONS: Record<number, string> = {
  101: 'Switching Protocols',
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The reason phrase of a status ('' when we have none: the status line then carries the code alone). */
export const reasonOf = (status: number): string => REASONS[status] ?? '';

export const METHODS = new Set<HttpMethod>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
export const DEFAULT_BODY_TIMEOUT_MS = 120_000;

/** What an engine copied from the request before anything asynchronous happened. */
export interface Incoming {
  /** Upper case, as sent (not necessarily one of METHODS). */
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Record<string, string>;
  /** The socket peer's address (before trusted proxies are applied). */
  readonly peer: string;
}

/** How the core talks to one request's connection. */
export interface Wire {
  /**
   * Writes the whole response (`X-Request-Id` first, then `headers`); for HEAD, the headers a GET
   * would get with `Content-Length: payload.byteLength` and no body. Calls `written(true)` once the
   * last byte was handed to the socket, `written(false)` if the connection broke first (or is not
   * called then, when the engine reports the client gone instead). Throws when the response cannot
   * be written at all (closed under us).
   */
  respond(
    status: number,
    requestId: string,
    headers: Record<string, string>,
    payload: Uint8Array,
    head: boolean,
    written: (delivered: boolean) => void,
  ): void;
  /**
   * Starts reading the body: `onData` gets copies, the last call with `isLast`, and answers whether
   * it still reads (false once the body is complete, refused or abandoned: the request may be answered).
   */
  readBody(onData: (chunk: Buffer, isLast: boolean) => boolean): void;
  /** Cuts the connection without an answer; the engine then reports the client as gone. */
  destroy(): void;
}

export interface ExchangeOptions {
  readonly logger: Logger;
  readonly router: Router;
  readonly bodyLimit: number;
  readonly bodyTimeoutMs?: number | undefined;
  readonly trustedProxies?: TrustCheck | undefined;
  readonly onResponse?: ResponseObserver | undefined;
}

/** The body of a GET or HEAD: one shared empty buffer (handlers only read it). */
const EMPTY_BODY = Buffer.alloc(0);
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The requests of one server: dispatches them and knows which are still in flight, so close()
 * can abort their signals (held long polls answer at once), wait for them, and settle the rest.
 */
export class Exchanges {
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

/**
 * One request, from its arrival to its settlement; also the request as handlers see it. One object
 * with its methods on the prototype, not a dozen closures: a held long poll keeps it for seconds,
 * thousands at once (issue #20: memory per terminal, and the garbage each poll leaves).
 *
 * `done`: a response was started (or the client left), nothing more may be sent. `settled`: it no
 * longer counts as in flight: its body was handed to the socket in full, or the client went away.
 * close() waits for that, because closing the connections drops whatever is still queued.
 */
class Exchange implements HttpRequest {
  readonly id: string;
  readonly method: HttpMethod;
  readonly path: string;
  route = '(unmatched)';
  params: Readonly<Record<string, string>> = NO_PARAMS;
  readonly rawQuery: string;
  readonly headers: Readonly<Record<string, string>>;
  body: Buffer = EMPTY_BODY;
  readonly remoteAddress: string;
  readonly #owner: Exchanges;
  readonly #wire: Wire;
  readonly #started = performance.now();
  #query: URLSearchParams | undefined;
  #log: Logger | undefined;
  /** Made when a handler asks for the signal (a held poll, a streamed body); most requests never do. */
  #abort: AbortController | undefined;
  #aborted = false;
  #done = false;
  #settled = false;
  #dispatched = false;
  #onSettled: ((delivered: boolean) => void) | undefined;
  #bodyTimer: NodeJS.Timeout | undefined;

  constructor(owner: Exchanges, incoming: Incoming, wire: Wire) {
    this.#owner = owner;
    this.#wire = wire;
    this.method = incoming.method as HttpMethod;
    this.path = incoming.path;
    this.rawQuery = incoming.rawQuery;
    this.headers = incoming.headers;
    this.remoteAddress = clientAddress(incoming.peer, incoming.headers, owner.options.trustedProxies);
    this.id = owner.requestId(incoming.headers['x-request-id']);
  }

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery));
  }

  /** A child logger made on first use: a request that logs nothing never pays for pino's child (issue #20). */
  get log(): Logger {
    return (this.#log ??= this.#owner.options.logger.child({ reqId: this.id }));
  }

  get gone(): boolean {
    return this.#aborted;
  }

  get signal(): AbortSignal {
    if (!this.#abort) {
      this.#abort = new AbortController();
      if (this.#aborted) this.#abort.abort();
    }
    return this.#abort.signal;
  }

  /** The client left or the server stops: handlers waiting on the signal stop waiting. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    clearTimeout(this.#bodyTimer);
    this.#abort?.abort();
  }

  /** The engine's report that the client went away. */
  aborted(): void {
    this.#done = true;
    this.abort();
    this.settle(false);
  }

  settle(delivered: boolean): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#owner.finished(this);
    const hook = this.#onSettled;
    this.#onSettled = undefined;
    this.#notify(hook, delivered);
  }

  /** Calls a response's onSettled hook; a throwing hook is logged, never thrown into the engine. */
  #notify(hook: ((delivered: boolean) => void) | undefined, delivered: boolean): void {
    if (!hook) return;
    try {
      hook(delivered);
    } catch (err) {
      this.log.error({ err, method: this.method, path: this.path }, 'onSettled hook failed');
    }
  }

  start(): void {
    const options = this.#owner.options;
    const method = this.method;
    if (!METHODS.has(method)) return this.#fail(new BioGateError('METHOD_NOT_ALLOWED', `Method ${method} is not supported`));
    if (this.#owner.stopping) return this.#fail(new BioGateError('SHUTTING_DOWN', 'The gateway is shutting down'));
    const match = options.router.match(method, this.path);
    if (match.kind === 'not-found') return this.#fail(new BioGateError('NOT_FOUND', `No route for ${this.path}`));
    if (match.kind === 'method-not-allowed') {
      return this.#fail(
        new BioGateError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed on ${this.path}`, {
          headers: { Allow: match.allowed.join(', ') },
        }),
      );
    }
    const route = match.route;
    this.route = route.pattern;
    this.params = match.params;
    if (method === 'GET' || method === 'HEAD') return this.#dispatch(route.handler);
    const limit = route.bodyLimit ?? options.bodyLimit;
    const declared = Number(this.headers['content-length'] ?? NaN);
    if (declared > limit) return this.#fail(tooLarge(limit));
    this.#readBody(route.handler, limit, route.bodyTimeoutMs ?? options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS);
  }

  #readBody(handler: Handler, limit: number, bodyTimeoutMs: number): void {
    const chunks: Buffer[] = [];
    let size = 0;
    // The whole body must arrive within the body timeout; a slow but steady sender is fine.
    this.#bodyTimer = setTimeout(() => {
      if (this.#done) return;
      this.log.warn(
        { method: this.method, path: this.path, received: size, timeoutS: bodyTimeoutMs / 1000 },
        'request body not complete within the body timeout: connection closed',
      );
      this.#done = true;
      this.abort();
      this.#wire.destroy();
      this.settle(false); // now, whether or not the engine reports the cut connection in this tick
    }, bodyTimeoutMs);
    this.#bodyTimer.unref();
    this.#wire.readBody((chunk, isLast) => {
      if (this.#done) return false;
      size += chunk.byteLength;
      if (size > limit) {
        clearTimeout(this.#bodyTimer);
        this.#fail(tooLarge(limit));
        return false;
      }
      chunks.push(chunk);
      if (!isLast) return true;
      clearTimeout(this.#bodyTimer);
      this.body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      this.#dispatch(handler);
      return false;
    });
  }

  #dispatch(handler: Handler): void {
    if (this.#owner.stopping) this.abort();
    this.#dispatched = true;
    let result: Promise<HttpResponse> | HttpResponse;
    try {
      result = handler(this);
    } catch (err) {
      return this.#fail(err);
    }
    // A handler that answers at once (an idle poll from the actor's state) is sent in this turn.
    if (result instanceof Promise)
      result.then(
        (r) => this.#send(r),
        (err: unknown) => this.#fail(err),
      );
    else this.#send(result);
  }

  #fail(err: unknown): void {
    this.#send(errorResponse(err, this.log, this.method, this.path));
  }

  #send(response: HttpResponse): void {
    if (this.#done) {
      // The client left before the answer was ready: it was never delivered.
      this.#notify(response.onSettled, false);
      return;
    }
    this.#done = true;
    this.#onSettled = response.onSettled;
    const { method, path } = this;
    let rendered: Rendered;
    try {
      rendered = render(response);
    } catch (err) {
      // Serialisation runs under the same guard as the handler (fastify's reply path):
      // a body JSON.stringify cannot handle is a 500 for this request, never a dead process.
      rendered = render(internalError(err, this.log, method, path));
    }
    const { status, headers: out, payload } = rendered;
    try {
      // RFC 9110 §9.3.2: HEAD gets the headers a GET would get, Content-Length included, and no body.
      this.#wire.respond(status, this.id, out, payload, method === 'HEAD', (delivered) => this.settle(delivered));
    } catch (err) {
      // The engine throws when the response was closed under us: not delivered, and not our crash.
      this.log.warn({ err, method, path }, 'response could not be sent');
      this.settle(false);
    }
    const seconds = (performance.now() - this.#started) / 1e3;
    const options = this.#owner.options;
    if (options.logger.isLevelEnabled('debug'))
      this.log.debug({ method, path, route: this.route, status, ms: Math.round(seconds * 1e4) / 10 }, 'request');
    try {
      // The method is the client's word: anything unknown is one label value, not one each.
      options.onResponse?.({
        route: this.route,
        method: METHODS.has(method) ? method : 'other',
        status,
        seconds,
        request: this.#dispatched ? this : undefined,
      });
    } catch (err) {
      this.log.error({ err }, 'response observer failed');
    }
  }
}

function tooLarge(limit: number): BioGateError {
  return new BioGateError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`);
}

/**
 * The one mapping of a thrown value to a response, for routes and WebSocket upgrades alike: a
 * BioGateError gets its status and `{detail, code}`; anything else the generic 500.
 */
export function errorResponse(err: unknown, log: Logger, method: string, path: string): HttpResponse {
  if (!(err instanceof BioGateError)) return internalError(err, log, method, path);
  const r = toErrorResponse(err);
  // A documented 503 (store outage, shutdown) is an operating state, not a bug.
  if (r.status === 503) log.warn({ code: err.code, method, path }, 'request refused: service unavailable');
  else if (r.status >= 500) log.error({ err, method, path }, 'request failed');
  return { status: r.status, headers: r.headers, body: r.body };
}

/**
 * The generic 500 for anything that is not a BioGateError: no details for the caller, an
 * `error_id` that finds the full log line (API-CONTRACT §3: "a bug: details only in the log").
 */
function internalError(err: unknown, log: Logger, method: string, path: string): HttpResponse {
  const errorId = randomUUID();
  try {
    log.error({ err, error_id: errorId, method, path }, 'request failed');
  } catch {
    // A logger that cannot serialise this error must not take the process with it.
  }
  const r = toErrorResponse(undefined);
  return { status: r.status, headers: r.headers, body: { ...r.body, error_id: errorId } };
}
