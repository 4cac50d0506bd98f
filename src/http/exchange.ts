/**
 * The engine-neutral life of one HTTP request: request id and per-request logger, routing
 * (404/405), the body limit (413) and body timeout, dispatch to the handler, error mapping
 * (BioGateError → its status, anything else → a 500 with an error id), rendering, the access-log
 * observer, the onSettled hook and in-flight accounting for graceful close.
 *
 * An engine (./uws-server.ts, ./node-server.ts) only copies the request's fields, hands over a
 * `Wire` (./wire.ts: how to write a response, read the body, cut the connection) and reports the
 * client leaving. Everything a client can observe is decided here, so both engines answer alike.
 * The requests of one server are counted by `Exchanges` (./exchanges.ts).
 */
import { BioGateError } from '../errors.js';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log.js';
import { clientAddress, type TrustCheck } from './client-address.js';
import { errorResponse, internalError } from './error-response.js';
import { render, type Rendered } from './render.js';
import { pump } from './stream-body.js';
import type { Router } from './router.js';
import type { Handler, HttpMethod, HttpRequest, HttpResponse, ResponseObserver, Route } from './types.js';
import type { Incoming, StreamSink, Wire } from './wire.js';

export const METHODS = new Set<HttpMethod>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
/**
 * Methods no route serves but the gateway recognises: CONNECT and TRACE [RFC 9110 §9.3], and QUERY
 * (the safe method with a body of the httpbis draft, which clients and fuzzers send to probe a path).
 * A path that exists answers them 405 with `Allow` [RFC 9110 §15.5.6]; any other method is not
 * recognised: 501 [RFC 9110 §15.6.2].
 */
const RECOGNISED = new Set(['CONNECT', 'TRACE', 'QUERY']);
export const DEFAULT_BODY_TIMEOUT_MS = 120_000;

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

/** What an exchange needs from the server's set of requests (./exchanges.ts). */
export interface ExchangeOwner {
  readonly options: ExchangeOptions;
  /** true once the server stops: new requests get 503 SHUTTING_DOWN */
  readonly stopping: boolean;
  /** the caller's X-Request-Id when sane, else a generated one */
  requestId(given: string | undefined): string;
  /** the exchange no longer counts as in flight */
  finished(exchange: Exchange): void;
}

/**
 * One request, from its arrival to its settlement; also the request as handlers see it. One object
 * with its methods on the prototype, not a dozen closures: a held long poll keeps it for seconds,
 * thousands at once, so its memory and the garbage each poll leaves count per terminal.
 *
 * `done`: a response was started (or the client left), nothing more may be sent. `settled`: it no
 * longer counts as in flight: its body was handed to the socket in full, or the client went away.
 * close() waits for that, because closing the connections drops whatever is still queued.
 */
export class Exchange implements HttpRequest {
  readonly id: string;
  readonly method: HttpMethod;
  readonly path: string;
  route = '(unmatched)';
  params: Readonly<Record<string, string>> = NO_PARAMS;
  readonly rawQuery: string;
  readonly headers: Readonly<Record<string, string>>;
  body: Buffer = EMPTY_BODY;
  readonly remoteAddress: string;
  readonly #owner: ExchangeOwner;
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
  /** The body is being read and not complete yet (an answer now leaves bytes unread: the connection closes after it). */
  #unread = false;

  constructor(owner: ExchangeOwner, incoming: Incoming, wire: Wire) {
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

  /** A child logger made on first use: a request that logs nothing never pays for pino's child. */
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
    if (!METHODS.has(method) && !RECOGNISED.has(method))
      return this.#fail(new BioGateError('NOT_IMPLEMENTED', `Method ${method.slice(0, 32)} is not implemented`));
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
    if (method === 'GET' || method === 'HEAD') {
      if (!route.authorize) return this.#dispatch(route.handler);
      return this.#authorize(route.authorize, () => this.#dispatch(route.handler));
    }
    const limit = route.bodyLimit ?? options.bodyLimit;
    const declared = Number(this.headers['content-length'] ?? NaN);
    if (declared > limit) return this.#fail(tooLarge(limit));
    this.#readBody(route, limit, route.bodyTimeoutMs ?? options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS);
  }

  /**
   * Runs the route's authorization; `then` only when it passed and nothing was answered meanwhile.
   * A refusal is answered at once, whatever part of the body has arrived.
   */
  #authorize(authorize: NonNullable<Route['authorize']>, then: () => void): void {
    // A route took the request: its answer, a refusal included, is this request's (access log, request id).
    this.#dispatched = true;
    let result: Promise<void> | void;
    try {
      result = authorize(this);
    } catch (err) {
      return this.#fail(err);
    }
    if (!(result instanceof Promise)) return then();
    result.then(
      () => {
        if (!this.#done) then();
      },
      (err: unknown) => this.#fail(err),
    );
  }

  /**
   * Reads the body, bounded by the limit and by the body timeout (counted while the wire is read), while the
   * route's authorization runs: reading starts in this tick (an engine may drop data that finds no
   * reader) but is paused until authorization passed, so a refused caller's body is never read in
   * bulk; the handler runs once both are through.
   */
  #readBody(route: Route, limit: number, bodyTimeoutMs: number): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let complete = false;
    let authorized = route.authorize === undefined;
    const dispatch = (): void => {
      if (complete && authorized && !this.#done) this.#dispatch(route.handler);
    };
    // The whole body must arrive within the body timeout, counted while the wire is read (from the headers, or
    // from the end of authorization: the client cannot send while the gateway holds the wire paused for it).
    // A slow but steady sender is fine.
    const armBodyTimer = (): void => {
      if (complete || this.#done) return;
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
    };
    this.#unread = true;
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
      this.#unread = false;
      this.body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      complete = true;
      dispatch();
      return false;
    });
    if (route.authorize === undefined) return armBodyTimer();
    if (this.#done) return;
    this.#wire.pause();
    this.#authorize(route.authorize, () => {
      authorized = true;
      // Resumed even when the whole body is in: a kept-alive connection must go on reading the next request.
      this.#wire.resume();
      armBodyTimer();
      dispatch();
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
    clearTimeout(this.#bodyTimer);
    if (this.#done) {
      // The client left before the answer was ready: it was never delivered.
      this.#notify(response.onSettled, false);
      return;
    }
    this.#done = true;
    this.#onSettled = response.onSettled;
    const { method, path } = this;
    if (response.stream) return this.#observe(this.#stream(response.status, response.headers ?? {}, response.stream));
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
      this.#wire.respond(status, this.id, out, payload, method === 'HEAD', this.#unread, (delivered) => this.settle(delivered));
    } catch (err) {
      // The engine throws when the response was closed under us: not delivered, and not our crash.
      this.log.warn({ err, method, path }, 'response could not be sent');
      this.settle(false);
    }
    this.#observe(status);
  }

  /** Starts a streamed response (./stream-body.ts); HEAD gets its headers only. Returns the status sent. */
  #stream(status: number, given: Readonly<Record<string, string>>, source: AsyncIterable<string | Uint8Array>): number {
    const typed = Object.keys(given).some((k) => k.toLowerCase() === 'content-type');
    const headers = typed ? { ...given } : { ...given, 'Content-Type': 'application/octet-stream' };
    const closeSource = () =>
      void source[Symbol.asyncIterator]()
        .return?.()
        ?.catch(() => undefined);
    let sink: StreamSink;
    try {
      sink = this.#wire.openStream(status, this.id, headers, this.method === 'HEAD');
    } catch (err) {
      this.log.warn({ err, method: this.method, path: this.path }, 'response could not be sent');
      closeSource();
      this.settle(false);
      return status;
    }
    if (this.method === 'HEAD') {
      closeSource();
      sink.end((delivered) => this.settle(delivered));
    } else void pump(this, sink, source, () => this.#wire.destroy());
    return status;
  }

  /** The debug request line and the response observer (metrics, access log). */
  #observe(status: number): void {
    const { method, path } = this;
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
