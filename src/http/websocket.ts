/**
 * WebSocket routes (RFC 6455), engine-neutral: the upgrade decision, the connection the routes
 * see, its bounds and the calls into route code. The engines (./uws-websocket.ts on uWebSockets.js,
 * ./node-websocket.ts on `ws`) only switch protocols and move frames, so the rest of BioGate never
 * sees an engine type: `upgrade` decides before anything is switched (so a refusal is a plain HTTP
 * 4xx with `{detail, code}`), then `open` / `message` / `drain` / `close` see a WebSocketConnection
 * whose `send` reports 'sent' | 'backpressure' | 'dropped' (./websocket-connection.ts).
 *
 * Bounds: frames larger than maxPayloadBytes close the connection (1009); unread data above
 * maxBufferedBytes closes it with 1008 and a reason. The check runs after every send, before the
 * engine's own hard limits (set twice or four times as large) would drop frames silently, so the
 * close frame itself always fits in the queue and a client that resumes reading learns why it was
 * cut off. Keep-alive: pings go out automatically and a connection silent for idleTimeoutS is dropped.
 */
import { BioGateError } from '../errors.js';
import type { Logger } from '../log.js';
import { errorResponse } from './error-response.js';
import type { Exchanges } from './exchanges.js';
import type { Incoming } from './wire.js';
import { clientAddress, type TrustCheck } from './client-address.js';
import { render } from './render.js';
import { CLOSE_GOING_AWAY, CLOSE_INTERNAL, CLOSE_TOO_BIG, Connection } from './websocket-connection.js';
import type { RawWebSocket } from './websocket-connection.js';
import type { HttpResponse, ResponseObserver, UpgradeDecision, WebSocketRoute, WebSocketUpgrade } from './types.js';

const DEFAULT_MAX_PAYLOAD = 16 * 1024;
const DEFAULT_MAX_BUFFERED = 1024 * 1024;
const DEFAULT_IDLE_TIMEOUT_S = 60;

export { CLOSE_GOING_AWAY, CLOSE_INTERNAL, CLOSE_POLICY, CLOSE_TOO_BIG } from './websocket-connection.js';

/** The engines cut a frame this many times the limit without a close frame; up to it, the client is told why (1009). */
export const HARD_PAYLOAD_FACTOR = 4;

/** A route's limits, defaults applied. */
export function routeLimits(route: WebSocketRoute<unknown>): { maxPayload: number; maxBuffered: number; idleTimeoutS: number } {
  return {
    maxPayload: route.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD,
    maxBuffered: route.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED,
    idleTimeoutS: route.idleTimeoutS ?? DEFAULT_IDLE_TIMEOUT_S,
  };
}

/** What the HTTP server lends the WebSocket routes. */
export interface WebSocketHost {
  readonly logger: Logger;
  readonly trustedProxies?: TrustCheck | undefined;
  readonly onResponse?: ResponseObserver | undefined;
  /** Shutdown state (new upgrades get 503) and request ids. */
  readonly exchanges: Exchanges;
}

/** How an engine answers one upgrade request. */
export interface UpgradeWire<U> {
  /** Writes a plain HTTP response instead of switching. */
  refuse(status: number, requestId: string, headers: Record<string, string>, payload: Uint8Array): void;
  /** Switches protocols; the engine attaches its socket to `conn` and reports it through `events`. */
  accept(conn: Connection<U>): void;
}

/** What an engine reports of one route's connections. */
export interface RouteEvents<U> {
  /** The switch happened: `raw` is the engine's socket. */
  opened(conn: Connection<U>, raw: RawWebSocket): void;
  /** `data` must be a copy the route may keep. */
  message(conn: Connection<U>, data: Uint8Array, isBinary: boolean): void;
  /** Everything queued was written. */
  drain(conn: Connection<U>): void;
  /** Once, whoever closed. */
  closed(conn: Connection<U>, code: number, reason: string): void;
}

/** Open connections of one server, and the calls into route code (a throw is logged and closes that connection). */
export class WebSocketRegistry {
  readonly #connections = new Set<Connection<unknown>>();
  readonly #host: WebSocketHost;

  constructor(host: WebSocketHost) {
    this.#host = host;
  }

  get open(): number {
    return this.#connections.size;
  }

  /** Ends every open connection (shutdown: 1001). */
  closeAll(code: number, reason: string): void {
    for (const conn of [...this.#connections]) conn.end(code, reason);
  }

  /** The engine's callbacks for a route. */
  events<U>(route: WebSocketRoute<U>): RouteEvents<U> {
    const { maxPayload } = routeLimits(route as WebSocketRoute<unknown>);
    const guarded = (conn: Connection<U>, what: string, f: () => void) => {
      try {
        f();
      } catch (err) {
        conn.log.error({ err, path: route.path }, `websocket ${what} handler failed`);
        conn.end(CLOSE_INTERNAL, 'internal error');
      }
    };
    return {
      opened: (conn, raw) => {
        conn.attach(raw);
        this.#connections.add(conn as Connection<unknown>);
        if (this.#host.exchanges.stopping) return conn.end(CLOSE_GOING_AWAY, 'server shutting down');
        if (route.open) guarded(conn, 'open', () => route.open?.(conn));
      },
      message: (conn, data, isBinary) => {
        if (data.byteLength > maxPayload) return conn.end(CLOSE_TOO_BIG, `message larger than ${maxPayload} bytes`);
        if (route.message) guarded(conn, 'message', () => route.message?.(conn, data, isBinary));
      },
      drain: (conn) => {
        if (route.drain) guarded(conn, 'drain', () => route.drain?.(conn));
      },
      closed: (conn, code, reason) => {
        conn.detach();
        this.#connections.delete(conn as Connection<unknown>);
        conn.log.debug({ path: route.path, code, reason }, 'websocket closed');
        try {
          route.close?.(conn, code, reason);
        } catch (err) {
          conn.log.error({ err, path: route.path }, 'websocket close handler failed');
        }
      },
    };
  }

  /**
   * One upgrade request: decide (the route may refuse, or throw a BioGateError), then switch or
   * refuse. Call in the tick the request arrived; returns what the engine calls when the client leaves.
   */
  upgrade<U>(route: WebSocketRoute<U>, incoming: Incoming, wire: UpgradeWire<U>): { aborted(): void } {
    const host = this.#host;
    const started = process.hrtime.bigint();
    const { headers, rawQuery } = incoming;
    const protocols = (headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const remoteAddress = clientAddress(incoming.peer, headers, host.trustedProxies);
    const id = host.exchanges.requestId(headers['x-request-id']);
    const log = host.logger.child({ reqId: id });
    const abort = new AbortController();
    let left = false;
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
        wire.refuse(status, id, out, payload);
      } catch (err) {
        log.warn({ err, path: route.path }, 'websocket refusal could not be sent');
      }
      log.debug({ path: route.path, status }, 'websocket upgrade refused');
      observe(status);
    };
    const fail = (err: unknown) => refuse(errorResponse(err, log, 'GET', route.path));
    const handle = {
      aborted: () => {
        left = true;
        abort.abort();
      },
    };

    if (host.exchanges.stopping) {
      fail(shuttingDown());
      return handle;
    }
    const { maxBuffered } = routeLimits(route as WebSocketRoute<unknown>);
    const request: WebSocketUpgrade = {
      id,
      method: 'GET',
      path: incoming.path,
      route: route.path,
      params: {},
      rawQuery,
      query: new URLSearchParams(rawQuery),
      headers,
      body: Buffer.alloc(0),
      remoteAddress,
      log,
      signal: abort.signal,
      get gone() {
        return abort.signal.aborted;
      },
      protocols,
    };
    let decision: Promise<UpgradeDecision<U>>;
    try {
      decision = Promise.resolve(route.upgrade(request));
    } catch (err) {
      decision = Promise.reject(err);
    }
    decision
      .then((d) => {
        if (left) return; // the client gave up while we decided
        if ('refuse' in d) return refuse(d.refuse);
        if (host.exchanges.stopping) return fail(shuttingDown());
        const protocol = d.protocol ?? null;
        // RFC 6455 §4.1: a server may only select a subprotocol the client offered.
        if (protocol !== null && !protocols.includes(protocol))
          throw new Error(`websocket: subprotocol "${protocol}" was not offered by the client`);
        const conn = new Connection<U>(d.accept, remoteAddress, id, protocol, log, maxBuffered);
        left = true;
        wire.accept(conn);
        observe(101);
      }, fail)
      .catch(fail);
    return handle;
  }
}

const shuttingDown = () => new BioGateError('SHUTTING_DOWN', 'The gateway is shutting down');
