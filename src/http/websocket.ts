/**
 * WebSocket routes on uWebSockets.js (RFC 6455), behind the shapes of ./types.ts so the rest of
 * BioGate never sees a uWS type: `upgrade` decides before anything is switched (so a refusal is a
 * plain HTTP 4xx with `{detail, code}`), then `open` / `message` / `drain` / `close` see a
 * WebSocketConnection whose `send` reports 'sent' | 'backpressure' | 'dropped'.
 *
 * Bounds: frames larger than maxPayloadBytes close the connection (1009); unread data
 * above maxBufferedBytes closes it with 1008 and a reason. The check runs after every send, before
 * uWS's own maxBackpressure (twice as large) would silently drop frames, so the close frame itself
 * always fits in the queue and a client that resumes reading learns why it was cut off.
 * Keep-alive: uWS pings automatically and drops a connection silent for idleTimeoutS.
 */
import { randomUUID } from 'node:crypto';
import { BioGateError, toErrorResponse } from '../errors.js';
import type { Logger } from '../log.js';
import { clientAddress, type TrustCheck } from './client-address.js';
import { render } from './render.js';
import type { HttpResponse, ResponseObserver, SendOutcome, UpgradeDecision, WebSocketConnection, WebSocketRoute, WebSocketUpgrade } from './types.js';
import type { HttpRequest as UwsRequest, HttpResponse as UwsResponse, TemplatedApp, WebSocket, us_socket_context_t } from 'uWebSockets.js';

const DEFAULT_MAX_PAYLOAD = 16 * 1024;
const DEFAULT_MAX_BUFFERED = 1024 * 1024;
const DEFAULT_IDLE_TIMEOUT_S = 60;
/** RFC 6455 §5.5: a close frame's payload is at most 125 bytes, 2 of them the code. */
const MAX_CLOSE_REASON = 123;
/** uWS send() results. */
const SEND_SUCCESS = 1;
const SEND_DROPPED = 2;
/** RFC 6455 §7.4.1 */
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_POLICY = 1008;
export const CLOSE_TOO_BIG = 1009;
export const CLOSE_INTERNAL = 1011;
/** uWS cuts a frame this many times the limit without a close frame; up to it, the client is told why (1009). */
const HARD_PAYLOAD_FACTOR = 4;

const REASONS: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 422: 'Unprocessable Entity',
  429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
};

/** What the HTTP server lends the WebSocket routes. */
export interface WebSocketHost {
  readonly app: TemplatedApp;
  readonly logger: Logger;
  readonly trustedProxies?: TrustCheck | undefined;
  readonly onResponse?: ResponseObserver | undefined;
  /** True once the server is closing: new upgrades get 503. */
  readonly stopping: () => boolean;
  /** The request id for an upgrade: the caller's X-Request-Id when sane, else generated. */
  readonly requestId: (given: string | undefined) => string;
}

export interface WebSocketRegistry {
  mount<U>(route: WebSocketRoute<U>): void;
  /** Ends every open connection (shutdown: 1001). */
  closeAll(code: number, reason: string): void;
  /** Open connections right now. */
  readonly open: number;
}

/** uWS keeps this as the socket's user data; the connection object is ours. */
interface Slot<U> {
  readonly conn: Connection<U>;
}

export function createWebSockets(host: WebSocketHost): WebSocketRegistry {
  const connections = new Set<Connection<unknown>>();

  function mount<U>(route: WebSocketRoute<U>): void {
    const maxBuffered = route.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
    const maxPayload = route.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD;
    // uWS wants 0 or at least 8 s, in steps of 4 (its timer granularity).
    const idleTimeout = Math.max(8, Math.ceil((route.idleTimeoutS ?? DEFAULT_IDLE_TIMEOUT_S) / 4) * 4);
    /** Calls into the route's code; a throw is logged and closes that connection, never reaches uWS. */
    const guarded = (conn: Connection<U>, what: string, f: () => void) => {
      try {
        f();
      } catch (err) {
        conn.log.error({ err, path: route.path }, `websocket ${what} handler failed`);
        conn.end(CLOSE_INTERNAL, 'internal error');
      }
    };

    host.app.ws<Slot<U>>(route.path, {
      maxPayloadLength: maxPayload * HARD_PAYLOAD_FACTOR,
      maxBackpressure: maxBuffered * 2,
      closeOnBackpressureLimit: 0,
      idleTimeout,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => upgrade(host, route, maxBuffered, res, req, context),
      open: (ws) => {
        const conn = ws.getUserData().conn;
        conn.attach(ws);
        connections.add(conn as Connection<unknown>);
        if (host.stopping()) return conn.end(CLOSE_GOING_AWAY, 'server shutting down');
        if (route.open) guarded(conn, 'open', () => route.open?.(conn));
      },
      message: (ws, message, isBinary) => {
        const conn = ws.getUserData().conn;
        if (message.byteLength > maxPayload) return conn.end(CLOSE_TOO_BIG, `message larger than ${maxPayload} bytes`);
        // The ArrayBuffer is neutered when this callback returns: hand out a copy.
        const data = new Uint8Array(message.slice(0));
        if (route.message) guarded(conn, 'message', () => route.message?.(conn, data, isBinary));
      },
      drain: (ws) => {
        const conn = ws.getUserData().conn;
        if (route.drain) guarded(conn, 'drain', () => route.drain?.(conn));
      },
      close: (ws, code, message) => {
        const conn = ws.getUserData().conn;
        conn.detach();
        connections.delete(conn as Connection<unknown>);
        const reason = Buffer.from(message).toString('utf8');
        conn.log.debug({ path: route.path, code, reason }, 'websocket closed');
        try {
          route.close?.(conn, code, reason);
        } catch (err) {
          conn.log.error({ err, path: route.path }, 'websocket close handler failed');
        }
      },
    });
  }

  return {
    mount,
    closeAll(code, reason) {
      for (const conn of [...connections]) conn.end(code, reason);
    },
    get open() {
      return connections.size;
    },
  };
}

/** The upgrade: copy what we need from `req` now (it dies with this tick), decide, then switch or refuse. */
function upgrade<U>(host: WebSocketHost, route: WebSocketRoute<U>, maxBuffered: number, res: UwsResponse, req: UwsRequest, context: us_socket_context_t): void {
  const started = process.hrtime.bigint();
  const headers: Record<string, string> = {};
  req.forEach((k, v) => {
    headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
  });
  const rawQuery = req.getQuery() ?? '';
  const key = headers['sec-websocket-key'] ?? '';
  const extensions = headers['sec-websocket-extensions'] ?? '';
  const protocols = (headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
  const remoteAddress = clientAddress(Buffer.from(res.getRemoteAddressAsText()).toString(), headers, host.trustedProxies);
  const id = host.requestId(headers['x-request-id']);
  const log = host.logger.child({ reqId: id });
  const abort = new AbortController();
  let left = false;
  res.onAborted(() => {
    left = true;
    abort.abort();
  });
  const observe = (status: number) => {
    try {
      host.onResponse?.({ route: route.path, method: 'GET', status, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
    } catch (err) {
      log.error({ err }, 'response observer failed');
    }
  };
  const refuse = (response: HttpResponse) => {
    if (left) return;
    left = true;
    const { status, headers: out, payload } = render(response);
    try {
      res.cork(() => {
        res.writeStatus(`${status} ${REASONS[status] ?? ''}`.trimEnd());
        res.writeHeader('X-Request-Id', id);
        for (const [k, v] of Object.entries(out)) res.writeHeader(k, v);
        res.end(payload);
      });
    } catch (err) {
      log.warn({ err, path: route.path }, 'websocket refusal could not be sent');
    }
    log.debug({ path: route.path, status }, 'websocket upgrade refused');
    observe(status);
  };
  const fail = (err: unknown) => {
    if (err instanceof BioGateError) {
      const r = toErrorResponse(err);
      return refuse({ status: r.status, headers: r.headers, body: r.body });
    }
    const errorId = randomUUID();
    log.error({ err, error_id: errorId, path: route.path }, 'websocket upgrade failed');
    const r = toErrorResponse(undefined);
    refuse({ status: r.status, headers: r.headers, body: { ...r.body, error_id: errorId } });
  };

  if (host.stopping()) return fail(new BioGateError('SHUTTING_DOWN', 'The gateway is shutting down'));
  const request: WebSocketUpgrade = {
    id, method: 'GET', path: req.getUrl(), route: route.path, params: {}, rawQuery, query: new URLSearchParams(rawQuery),
    headers, body: Buffer.alloc(0), remoteAddress, log, signal: abort.signal, protocols,
  };
  let decision: Promise<UpgradeDecision<U>>;
  try {
    decision = Promise.resolve(route.upgrade(request));
  } catch (err) {
    decision = Promise.reject(err);
  }
  decision.then(
    (d) => {
      if (left) return; // the client gave up while we decided
      if ('refuse' in d) return refuse(d.refuse);
      if (host.stopping()) return fail(new BioGateError('SHUTTING_DOWN', 'The gateway is shutting down'));
      const protocol = d.protocol ?? null;
      // RFC 6455 §4.1: a server may only select a subprotocol the client offered.
      if (protocol !== null && !protocols.includes(protocol)) throw new Error(`websocket: subprotocol "${protocol}" was not offered by the client`);
      const conn = new Connection<U>(d.accept, remoteAddress, id, protocol, log, maxBuffered);
      left = true;
      res.cork(() => res.upgrade<Slot<U>>({ conn }, key, protocol ?? '', extensions, context));
      observe(101);
    },
    fail,
  ).catch(fail);
}

class Connection<U> implements WebSocketConnection<U> {
  readonly userData: U;
  readonly remoteAddress: string;
  readonly id: string;
  readonly protocol: string | null;
  readonly log: Logger;
  readonly #maxBuffered: number;
  #ws: WebSocket<Slot<U>> | null = null;
  #ending = false;
  #closed = false;

  constructor(userData: U, remoteAddress: string, id: string, protocol: string | null, log: Logger, maxBuffered: number) {
    this.userData = userData;
    this.remoteAddress = remoteAddress;
    this.id = id;
    this.protocol = protocol;
    this.log = log;
    this.#maxBuffered = maxBuffered;
  }

  attach(ws: WebSocket<Slot<U>>): void {
    this.#ws = ws;
  }

  /** uWS invalidates the socket after its close event; touching it then would throw. */
  detach(): void {
    this.#ws = null;
    this.#closed = true;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get bufferedAmount(): number {
    return this.#ws && !this.#closed ? this.#ws.getBufferedAmount() : 0;
  }

  send(data: string | Uint8Array, isBinary?: boolean): SendOutcome {
    const ws = this.#ws;
    if (!ws || this.#ending || this.#closed) return 'dropped';
    const binary = typeof data === 'string' ? false : (isBinary ?? true);
    let status: number;
    try {
      status = ws.send(data, binary, false);
    } catch {
      return 'dropped';
    }
    if (status === SEND_DROPPED) {
      this.#tooSlow(ws);
      return 'dropped';
    }
    if (status === SEND_SUCCESS) return 'sent';
    if (this.bufferedAmount > this.#maxBuffered) {
      this.#tooSlow(ws);
      return 'dropped';
    }
    return 'backpressure';
  }

  end(code = 1000, reason = ''): void {
    const ws = this.#ws;
    if (!ws || this.#ending || this.#closed) return;
    this.#ending = true;
    try {
      ws.end(code, truncateUtf8(reason, MAX_CLOSE_REASON));
    } catch {
      // Already gone under us: its close event has run or will.
    }
  }

  #tooSlow(ws: WebSocket<Slot<U>>): void {
    this.log.warn({ remote: this.remoteAddress, buffered: ws.getBufferedAmount(), limit: this.#maxBuffered }, 'websocket client is not reading: disconnected');
    this.end(CLOSE_POLICY, `too slow: more than ${this.#maxBuffered} bytes unread`);
  }
}

function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.byteLength <= maxBytes) return text;
  // Cut on a character boundary: a half character would make the close frame invalid UTF-8 (RFC 6455 §5.5.1).
  let end = maxBytes;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

