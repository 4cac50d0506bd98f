/**
 * The HTTP server on uWebSockets.js: routing, body reading with a limit,
 * abort/cork discipline, request ids and per-request loggers, error mapping.
 * This file and uws.ts are the only places that know uWS exists.
 */
import { accessSync, constants } from 'node:fs';
import { BioGateError, toErrorResponse } from '../errors.js';
import type { Logger } from '../log.js';
import { Router } from './router.js';
import type { HttpMethod, HttpRequest, HttpResponse, ResponseObserver, Route } from './types.js';
import { loadUws } from './uws.js';
import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js';

const REASONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
  404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error',
  503: 'Service Unavailable',
};
const METHODS = new Set<HttpMethod>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export interface HttpServerOptions {
  readonly logger: Logger;
  readonly bodyLimit: number;
  readonly tls?: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly onResponse?: ResponseObserver;
}

export interface HttpServer {
  route(route: Route): void;
  routes(): readonly Route[];
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
  const stopping = new AbortController();
  let inFlight = 0;
  let idle: (() => void) | undefined;
  let seq = 0;
  const idPrefix = Math.random().toString(36).slice(2, 8);

  let app: TemplatedApp;
  if (options.tls) {
    for (const f of [options.tls.certFile, options.tls.keyFile]) accessSync(f, constants.R_OK);
    app = uws.SSLApp({ cert_file_name: options.tls.certFile, key_file_name: options.tls.keyFile });
  } else {
    app = uws.App();
  }

  const finished = () => {
    inFlight--;
    if (inFlight === 0 && idle) idle();
  };

  app.any('/*', (res, req) => {
    inFlight++;
    const started = process.hrtime.bigint();
    const client = new AbortController();
    let done = false;
    res.onAborted(() => {
      if (done) return;
      done = true;
      client.abort();
      finished();
    });

    // Everything from `req` must be copied now: it is invalid after this tick.
    const method = req.getMethod().toUpperCase() as HttpMethod;
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
    });
    const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString();
    const givenId = headers['x-request-id'];
    const id = givenId && REQUEST_ID.test(givenId) ? givenId : `${idPrefix}-${(++seq).toString(36)}`;
    const log = options.logger.child({ reqId: id });

    const send = (route: string, response: HttpResponse) => {
      if (done) return;
      done = true;
      const { status, headers: out, payload } = render(response, method);
      res.cork(() => {
        res.writeStatus(`${status} ${REASONS[status] ?? ''}`.trimEnd());
        res.writeHeader('X-Request-Id', id);
        for (const [k, v] of Object.entries(out)) res.writeHeader(k, v);
        res.end(payload);
      });
      finished();
      options.onResponse?.({ route, method, status, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
    };
    const fail = (route: string, err: unknown) => {
      const r = toErrorResponse(err);
      if (r.status >= 500) log.error({ err, method, path }, 'request failed');
      send(route, { status: r.status, headers: r.headers, body: r.body });
    };

    if (!METHODS.has(method)) return fail('(unmatched)', new BioGateError('METHOD_NOT_ALLOWED', `Method ${method} is not supported`));
    if (stopping.signal.aborted) return fail('(unmatched)', new BioGateError('SHUTTING_DOWN', 'The gateway is shutting down'));
    const match = router.match(method, path);
    if (match.kind === 'not-found') return fail('(unmatched)', new BioGateError('NOT_FOUND', `No route for ${path}`));
    if (match.kind === 'method-not-allowed') {
      return fail('(unmatched)', new BioGateError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed on ${path}`, { headers: { Allow: match.allowed.join(', ') } }));
    }
    const route = match.route;
    const limit = route.bodyLimit ?? options.bodyLimit;

    const dispatch = (body: Buffer) => {
      const request: HttpRequest = {
        id, method, path, route: route.pattern, params: match.params, rawQuery, query: new URLSearchParams(rawQuery),
        headers, body, remoteAddress, log, signal: AbortSignal.any([client.signal, stopping.signal]),
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
    res.onData((chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > limit) return fail(route.pattern, tooLarge(limit));
      chunks.push(Buffer.from(chunk.slice(0))); // the ArrayBuffer is only valid during this callback
      if (isLast) dispatch(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
  });

  return {
    route: (r) => router.add(r),
    routes: () => router.list(),
    get inFlight() {
      return inFlight;
    },
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (!socket) return reject(new Error(`cannot listen on ${host}:${port} (address in use or not available)`));
          listenSockets.push(socket);
          resolve(uws.us_socket_local_port(socket as never));
        });
      }),
    close: async (graceMs) => {
      for (const s of listenSockets.splice(0)) uws.us_listen_socket_close(s);
      stopping.abort();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          idle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      // close() exists on the native app but is missing from this build's typings.
      (app as TemplatedApp & { close(): void }).close();
    },
  };
}

function tooLarge(limit: number): BioGateError {
  return new BioGateError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`);
}

function render(response: HttpResponse, method: HttpMethod): { status: number; headers: Record<string, string>; payload: string | Uint8Array } {
  const headers: Record<string, string> = { ...response.headers };
  const hasType = Object.keys(headers).some((k) => k.toLowerCase() === 'content-type');
  let payload: string | Uint8Array;
  const body = response.body;
  if (body === undefined || body === null) payload = '';
  else if (typeof body === 'string') {
    payload = body;
    if (!hasType) headers['Content-Type'] = 'text/plain; charset=utf-8';
  } else if (body instanceof Uint8Array) {
    payload = body;
    if (!hasType) headers['Content-Type'] = 'application/octet-stream';
  } else {
    payload = JSON.stringify(body);
    if (!hasType) headers['Content-Type'] = 'application/json; charset=utf-8';
  }
  return { status: response.status, headers, payload: method === 'HEAD' ? '' : payload };
}
