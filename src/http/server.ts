/**
 * The HTTP server on uWebSockets.js: routing, body reading with a limit,
 * abort/cork discipline, request ids and per-request loggers, error mapping.
 * This file and uws.ts are the only places that know uWS exists.
 */
import { randomUUID } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { BioGateError, toErrorResponse } from '../errors.js';
import type { Logger } from '../log.js';
import { clientAddress, type TrustCheck } from './client-address.js';
import { Router } from './router.js';
import type { HttpMethod, HttpRequest, HttpResponse, ResponseObserver, Route, WebSocketRoute } from './types.js';
import { render, type Rendered } from './render.js';
import { loadUws } from './uws.js';
import { CLOSE_GOING_AWAY, createWebSockets } from './websocket.js';
import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js';

const REASONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 302: 'Found', 304: 'Not Modified', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
  404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error',
  503: 'Service Unavailable',
};
const METHODS = new Set<HttpMethod>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const DEFAULT_BODY_TIMEOUT_MS = 120_000;
/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT. */
const LISTEN_EXCLUSIVE_PORT = 1;

export interface HttpServerOptions {
  readonly logger: Logger;
  readonly bodyLimit: number;
  readonly tls?: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly onResponse?: ResponseObserver;
  /** Time allowed for a whole request body to arrive (ms; routes may override); default 120 s. */
  readonly bodyTimeoutMs?: number;
  /** Peers whose Forwarded / X-Forwarded-For name the client (BIOGATE_TRUSTED_PROXIES); unset: nobody. */
  readonly trustedProxies?: TrustCheck | undefined;
}

export interface HttpServer {
  route(route: Route): void;
  routes(): readonly Route[];
  /** A WebSocket endpoint (./websocket.ts); a plain GET on its path is a 400. */
  websocket<U>(route: WebSocketRoute<U>): void;
  /** Open WebSocket connections. */
  readonly openWebSockets: number;
  /** Binds and resolves with the bound port (useful with port 0). */
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting, lets in-flight requests finish (held long polls are released) for up to graceMs, then closes every connection. */
  close(graceMs: number): Promise<void>;
  readonly inFlight: number;
}

export function createHttpServer(options: HttpServerOptions): HttpServer {
  const uws = loadUws();
  const router = new Router();
  const listenSockets: us_listen_socket[] = [];
  /** In-flight requests: close() aborts their signals and settles what uWS drops. */
  const active = new Set<InFlight>();
  let stopping = false;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  let seq = 0;
  const idPrefix = Math.random().toString(36).slice(2, 8);

  let app: TemplatedApp;
  if (options.tls) {
    const { certFile, keyFile } = options.tls;
    for (const f of [certFile, keyFile]) accessSync(f, constants.R_OK);
    try {
      app = uws.SSLApp({ cert_file_name: certFile, key_file_name: keyFile });
    } catch (cause) {
      // uWS only says "App construction failed".
      throw new ListenError(`cannot use the TLS certificate "${certFile}" with the key "${keyFile}": not PEM, or they do not belong together`, { cause });
    }
  } else {
    app = uws.App();
  }
  const websockets = createWebSockets({
    app, logger: options.logger, trustedProxies: options.trustedProxies, onResponse: options.onResponse, stopping: () => stopping,
    requestId: (given) => (given && REQUEST_ID.test(given) ? given : `${idPrefix}-${(++seq).toString(36)}`),
  });

  app.any('/*', (res, req) => {
    inFlight++;
    const started = process.hrtime.bigint();
    // One controller per request, aborted when the client leaves or the server stops
    // (close() walks `active`). Not AbortSignal.any([client, process]): on Node 20 every
    // combined signal stays referenced by the long-lived one and leaks (issue #12).
    const abort = new AbortController();
    // `done`: a response was started (or the client left), nothing more may be sent.
    // `settled`: this request no longer counts as in flight: its body was handed to
    // the socket in full, or the client went away. close() waits for that, because
    // uWS's app.close() drops whatever is still queued.
    let done = false;
    let settled = false;
    let onSettled: ((delivered: boolean) => void) | undefined;
    /** The request as handlers saw it, once dispatched (the access log reads what the API layer learnt of it). */
    let request: HttpRequest | undefined;
    const settle = (delivered: boolean) => {
      if (settled) return;
      settled = true;
      active.delete(entry);
      inFlight--;
      notify(onSettled, delivered);
      onSettled = undefined;
      if (inFlight === 0 && idle) idle();
    };
    const entry: InFlight = { abort, settle };
    active.add(entry);
    res.onAborted(() => {
      done = true;
      abort.abort();
      settle(false);
    });

    // Everything from `req` must be copied now: it is invalid after this tick.
    const method = req.getMethod().toUpperCase() as HttpMethod;
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
    });
    const remoteAddress = clientAddress(Buffer.from(res.getRemoteAddressAsText()).toString(), headers, options.trustedProxies);
    const givenId = headers['x-request-id'];
    const id = givenId && REQUEST_ID.test(givenId) ? givenId : `${idPrefix}-${(++seq).toString(36)}`;
    const log = options.logger.child({ reqId: id });

    /** Calls a response's onSettled hook; a throwing hook is logged, never thrown into uWS. */
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
        res.cork(() => {
          res.writeStatus(`${status} ${REASONS[status] ?? ''}`.trimEnd());
          res.writeHeader('X-Request-Id', id);
          for (const [k, v] of Object.entries(out)) res.writeHeader(k, v);
          if (method === 'HEAD') {
            // RFC 9110 §9.3.2: the headers a GET would get, Content-Length included, and no body.
            res.endWithoutBody(payload.byteLength);
            settle(true);
            return;
          }
          // tryEnd + onWritable instead of end(): we learn when the last byte left, so
          // close() does not cut a large response that is still draining.
          const base = res.getWriteOffset();
          const [, finishedNow] = res.tryEnd(payload, payload.byteLength);
          if (finishedNow) return settle(true);
          res.onWritable((offset) => {
            const [ok, finishedLater] = res.tryEnd(payload.subarray(offset - base), payload.byteLength);
            if (finishedLater) settle(true);
            return ok;
          });
        });
      } catch (err) {
        // uWS throws when the response was closed under us: not delivered, and not our crash.
        log.warn({ err, method, path }, 'response could not be sent');
        settle(false);
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      log.debug({ method, path, route, status, ms: Math.round(seconds * 1e4) / 10 }, 'request');
      try {
        // The method is the client's word: anything unknown is one label value, not one each.
        options.onResponse?.({ route, method: METHODS.has(method) ? method : 'other', status, seconds, request });
      } catch (err) {
        log.error({ err }, 'response observer failed');
      }
    };
    const fail = (route: string, err: unknown) => {
      if (err instanceof BioGateError) {
        const r = toErrorResponse(err);
        // A documented 503 (store outage, shutdown) is an operating state, not a bug.
        if (r.status === 503) log.warn({ code: err.code, method, path }, 'request refused: service unavailable');
        else if (r.status >= 500) log.error({ err, method, path }, 'request failed');
        return send(route, { status: r.status, headers: r.headers, body: r.body });
      }
      send(route, internalError(err, log, method, path));
    };

    if (!METHODS.has(method)) return fail('(unmatched)', new BioGateError('METHOD_NOT_ALLOWED', `Method ${method} is not supported`));
    if (stopping) return fail('(unmatched)', new BioGateError('SHUTTING_DOWN', 'The gateway is shutting down'));
    const match = router.match(method, path);
    if (match.kind === 'not-found') return fail('(unmatched)', new BioGateError('NOT_FOUND', `No route for ${path}`));
    if (match.kind === 'method-not-allowed') {
      return fail('(unmatched)', new BioGateError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed on ${path}`, { headers: { Allow: match.allowed.join(', ') } }));
    }
    const route = match.route;
    const limit = route.bodyLimit ?? options.bodyLimit;

    const dispatch = (body: Buffer) => {
      if (stopping) abort.abort();
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

    if (method === 'GET' || method === 'HEAD') return dispatch(Buffer.alloc(0));
    const declared = Number(headers['content-length'] ?? NaN);
    if (declared > limit) return fail(route.pattern, tooLarge(limit));
    const chunks: Buffer[] = [];
    let size = 0;
    // The whole body must arrive within the body timeout; a slow but steady sender is fine.
    const bodyTimeoutMs = route.bodyTimeoutMs ?? options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
    const bodyTimer = setTimeout(() => {
      if (done) return;
      log.warn({ method, path, received: size, timeoutS: bodyTimeoutMs / 1000 }, 'request body not complete within the body timeout: connection closed');
      done = true;
      abort.abort();
      res.close(); // onAborted settles the request
    }, bodyTimeoutMs);
    bodyTimer.unref();
    abort.signal.addEventListener('abort', () => clearTimeout(bodyTimer), { once: true });
    res.onData((chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > limit) {
        clearTimeout(bodyTimer);
        return fail(route.pattern, tooLarge(limit));
      }
      chunks.push(Buffer.from(chunk.slice(0))); // the ArrayBuffer is only valid during this callback
      if (isLast) {
        clearTimeout(bodyTimer);
        return dispatch(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
      }
      // uSockets closes an HTTP connection idle for 10 s, and while a body streams in it only
      // re-arms that timer after 16 KiB arrived: a terminal on a slow link (cellular, weak
      // Wi-Fi) was cut mid-upload every time (issue #12). resume() re-arms it, so any data
      // keeps the connection alive; the body timeout above still bounds the whole body.
      res.pause();
      res.resume();
    });
  });

  return {
    route: (r) => router.add(r),
    routes: () => router.list(),
    websocket: (r) => {
      websockets.mount(r);
      // uWS hands a GET without the upgrade headers on to the HTTP routes: say what is expected there.
      router.add({ method: 'GET', pattern: r.path, handler: () => Promise.reject(new BioGateError('BAD_REQUEST', `${r.path} is a WebSocket endpoint: connect with a WebSocket client (Upgrade: websocket)`)) });
    },
    get openWebSockets() {
      return websockets.open;
    },
    get inFlight() {
      return inFlight;
    },
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        // Exclusive: by default uSockets sets SO_REUSEPORT, so a second gateway on the same
        // port would bind too and the kernel would split connections between the two.
        // (The host + options form exists natively; this build's typings lack it.)
        const listen = app.listen.bind(app) as unknown as (h: string, p: number, o: number, cb: (s: us_listen_socket | false) => void) => void;
        listen(host, port, LISTEN_EXCLUSIVE_PORT, (socket) => {
          if (!socket) return reject(new ListenError(`cannot listen on ${host}:${port} (address in use or not available)`));
          listenSockets.push(socket);
          resolve(uws.us_socket_local_port(socket as never));
        });
      }),
    close: async (graceMs) => {
      for (const s of listenSockets.splice(0)) uws.us_listen_socket_close(s);
      stopping = true;
      websockets.closeAll(CLOSE_GOING_AWAY, 'server shutting down');
      for (const r of [...active]) r.abort.abort();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          idle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      // Responses finished in this turn of the event loop may still sit in uWS's cork
      // buffer, and app.close() resets sockets at once: let one turn pass first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      // close() exists on the native app but is missing from this build's typings.
      (app as TemplatedApp & { close(): void }).close();
      // Whatever is still unsettled was cut off: its response never reached the client.
      for (const r of [...active]) r.settle(false);
    },
  };
}

/** The listener cannot be set up (port in use, address not available, unusable TLS files): an operating problem, not a bug. */
export class ListenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ListenError';
  }
}

function tooLarge(limit: number): BioGateError {
  return new BioGateError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`);
}

interface InFlight {
  readonly abort: AbortController;
  readonly settle: (delivered: boolean) => void;
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

