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
import { lazyChild, type Logger } from '../log.js';
import { clientAddress, type TrustCheck } from './client-address.js';
import { render, type Rendered } from './render.js';
import type { Router } from './router.js';
import type { HttpMethod, HttpRequest, HttpResponse, ResponseObserver } from './types.js';

/** Reason phrases both engines put on the status line (uWS has none of its own). */
const REASONS: Record<number, string> = {
  101: 'Switching Protocols', 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 301: 'Moved Permanently',
  302: 'Found', 304: 'Not Modified', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type',
  422: 'Unprocessable Entity', 426: 'Upgrade Required', 429: 'Too Many Requests', 500: 'Internal Server Error',
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
  respond(status: number, requestId: string, headers: Record<string, string>, payload: Uint8Array, head: boolean, written: (delivered: boolean) => void): void;
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

interface InFlight {
  readonly abort: AbortController;
  readonly settle: (delivered: boolean) => void;
}

/**
 * The requests of one server: dispatches them and knows which are still in flight, so close()
 * can abort their signals (held long polls answer at once), wait for them, and settle the rest.
 */
export class Exchanges {
  readonly #options: ExchangeOptions;
  readonly #active = new Set<InFlight>();
  readonly #idPrefix = Math.random().toString(36).slice(2, 8);
  #seq = 0;
  #inFlight = 0;
  #idle: (() => void) | undefined;
  #stopping = false;

  constructor(options: ExchangeOptions) {
    this.#options = options;
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
    for (const r of [...this.#active]) r.abort.abort();
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
    const options = this.#options;
    this.#inFlight++;
    const started = process.hrtime.bigint();
    // One controller per request, aborted when the client leaves or the server stops
    // (stop() walks #active). Not AbortSignal.any([client, process]): on Node 20 every
    // combined signal stays referenced by the long-lived one and leaks (issue #12).
    const abort = new AbortController();
    // `done`: a response was started (or the client left), nothing more may be sent.
    // `settled`: this request no longer counts as in flight: its body was handed to
    // the socket in full, or the client went away. close() waits for that, because
    // closing the connections drops whatever is still queued.
    let done = false;
    let settled = false;
    let onSettled: ((delivered: boolean) => void) | undefined;
    /** The request as handlers saw it, once dispatched (the access log reads what the API layer learnt of it). */
    let request: HttpRequest | undefined;
    const { headers, path, rawQuery } = incoming;
    const method = incoming.method as HttpMethod;
    const remoteAddress = clientAddress(incoming.peer, headers, options.trustedProxies);
    const id = this.requestId(headers['x-request-id']);
    const log = lazyChild(options.logger, { reqId: id });

    const settle = (delivered: boolean) => {
      if (settled) return;
      settled = true;
      this.#active.delete(entry);
      this.#inFlight--;
      notify(onSettled, delivered);
      onSettled = undefined;
      if (this.#inFlight === 0 && this.#idle) this.#idle();
    };
    const entry: InFlight = { abort, settle };
    this.#active.add(entry);

    /** Calls a response's onSettled hook; a throwing hook is logged, never thrown into the engine. */
    const notify = (hook: ((delivered: boolean) => void) | undefined, delivered: boolean) => {
      if (!hook) return;
      try {
        hook(delivered);
      } catch (err) {
        log.error({ err, method, path }, 'onSettled hook failed');
      }
    };

    const send = (route: string, response: HttpResponse) => {
      if (done) {
        // The client left before the answer was ready: it was never delivered.
        notify(response.onSettled, false);
        return;
      }
      done = true;
      onSettled = response.onSettled;
      let rendered: Rendered;
      try {
        rendered = render(response);
      } catch (err) {
        // Serialisation runs under the same guard as the handler (fastify's reply path):
        // a body JSON.stringify cannot handle is a 500 for this request, never a dead process.
        rendered = render(internalError(err, log, method, path));
      }
      const { status, headers: out, payload } = rendered;
      try {
        // RFC 9110 §9.3.2: HEAD gets the headers a GET would get, Content-Length included, and no body.
        wire.respond(status, id, out, payload, method === 'HEAD', settle);
      } catch (err) {
        // The engine throws when the response was closed under us: not delivered, and not our crash.
        log.warn({ err, method, path }, 'response could not be sent');
        settle(false);
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (options.logger.isLevelEnabled('debug')) log.debug({ method, path, route, status, ms: Math.round(seconds * 1e4) / 10 }, 'request');
      try {
        // The method is the client's word: anything unknown is one label value, not one each.
        options.onResponse?.({ route, method: METHODS.has(method) ? method : 'other', status, seconds, request });
      } catch (err) {
        log.error({ err }, 'response observer failed');
      }
    };
    const fail = (route: string, err: unknown) => send(route, errorResponse(err, log, method, path));
    const aborted = {
      aborted: () => {
        done = true;
        abort.abort();
        settle(false);
      },
    };

    if (!METHODS.has(method)) {
      fail('(unmatched)', new BioGateError('METHOD_NOT_ALLOWED', `Method ${method} is not supported`));
      return aborted;
    }
    if (this.#stopping) {
      fail('(unmatched)', new BioGateError('SHUTTING_DOWN', 'The gateway is shutting down'));
      return aborted;
    }
    const match = options.router.match(method, path);
    if (match.kind === 'not-found') {
      fail('(unmatched)', new BioGateError('NOT_FOUND', `No route for ${path}`));
      return aborted;
    }
    if (match.kind === 'method-not-allowed') {
      fail('(unmatched)', new BioGateError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed on ${path}`, { headers: { Allow: match.allowed.join(', ') } }));
      return aborted;
    }
    const route = match.route;
    const limit = route.bodyLimit ?? options.bodyLimit;

    const dispatch = (body: Buffer) => {
      if (this.#stopping) abort.abort();
      request = {
        id, method, path, route: route.pattern, params: match.params, rawQuery, query: new URLSearchParams(rawQuery),
        headers, body, remoteAddress, log, signal: abort.signal,
      };
      let result: Promise<HttpResponse>;
      try {
        result = Promise.resolve(match.handler(request));
      } catch (err) {
        result = Promise.reject(err);
      }
      result.then((r) => send(route.pattern, r), (err: unknown) => fail(route.pattern, err));
    };

    if (method === 'GET' || method === 'HEAD') {
      dispatch(Buffer.alloc(0));
      return aborted;
    }
    const declared = Number(headers['content-length'] ?? NaN);
    if (declared > limit) {
      fail(route.pattern, tooLarge(limit));
      return aborted;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    // The whole body must arrive within the body timeout; a slow but steady sender is fine.
    const bodyTimeoutMs = route.bodyTimeoutMs ?? options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
    const bodyTimer = setTimeout(() => {
      if (done) return;
      log.warn({ method, path, received: size, timeoutS: bodyTimeoutMs / 1000 }, 'request body not complete within the body timeout: connection closed');
      done = true;
      abort.abort();
      wire.destroy();
      settle(false); // now, whether or not the engine reports the cut connection in this tick
    }, bodyTimeoutMs);
    bodyTimer.unref();
    abort.signal.addEventListener('abort', () => clearTimeout(bodyTimer), { once: true });
    wire.readBody((chunk, isLast) => {
      if (done) return false;
      size += chunk.byteLength;
      if (size > limit) {
        clearTimeout(bodyTimer);
        fail(route.pattern, tooLarge(limit));
        return false;
      }
      chunks.push(chunk);
      if (!isLast) return true;
      clearTimeout(bodyTimer);
      dispatch(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
      return false;
    });
    return aborted;
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
