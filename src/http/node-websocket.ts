/**
 * WebSocket routes on node:http with `ws` (the one module that imports it): the engine half of
 * ./websocket.ts for the node engine. node:http hands every request carrying `Upgrade` to the
 * server's 'upgrade' event, with the raw socket: the decision is taken there, a refusal is written
 * on the socket as a plain HTTP response, an acceptance goes to ws's handshake.
 *
 * Matching uWS: frames up to 4× the route's bound are read (ws closes larger ones with 1009 on its
 * own), pings go out every idleTimeoutS/2 and a connection silent for idleTimeoutS is dropped,
 * `drain` follows once everything queued was written, permessage-deflate is off.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Exchanges } from './exchanges.js';
import { reasonOf } from './status-reasons.js';
import type { Incoming, Wire } from './wire.js';
import type { WebSocketRoute } from './types.js';
import { HARD_PAYLOAD_FACTOR, routeLimits, type RouteEvents, type WebSocketRegistry } from './websocket.js';
import type { Connection, RawWebSocket } from './websocket-connection.js';

type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer, incoming: Incoming) => void;

/** The 'upgrade' side of a node:http server: WebSocket routes by exact path, anything else as a plain request. */
export class NodeWebSockets {
  readonly #routes = new Map<string, UpgradeListener>();
  readonly #registry: WebSocketRegistry;
  readonly #exchanges: Exchanges;

  constructor(registry: WebSocketRegistry, exchanges: Exchanges) {
    this.#registry = registry;
    this.#exchanges = exchanges;
  }

  mount<U>(route: WebSocketRoute<U>): void {
    const { maxPayload, idleTimeoutS } = routeLimits(route as WebSocketRoute<unknown>);
    const events = this.#registry.events(route);
    /** The subprotocol each accepted request agreed on, for ws's handshake. */
    const chosen = new WeakMap<IncomingMessage, string | null>();
    const wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: maxPayload * HARD_PAYLOAD_FACTOR,
      handleProtocols: (_offered, req) => chosen.get(req) ?? false,
    });
    this.#routes.set(route.path, (req, socket, head, incoming) => {
      let answered = false;
      const handle = this.#registry.upgrade(route, incoming, {
        refuse: (status, id, headers, payload) => {
          answered = true;
          writeRaw(socket, status, id, headers, payload, false);
        },
        accept: (conn) => {
          answered = true;
          chosen.set(req, conn.protocol);
          wss.handleUpgrade(req, socket, head, (ws) => open(conn, ws, events, idleTimeoutS * 1000));
        },
      });
      socket.once('close', () => {
        if (!answered) handle.aborted();
      });
    });
  }

  /** The server's 'upgrade' listener. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, incoming: Incoming): void {
    socket.on('error', () => undefined); // a reset while deciding is the client leaving, reported by 'close'
    const route = this.#routes.get(incoming.path);
    if (route) return route(req, socket, head, incoming);
    // Not a WebSocket path: node:http will not run it as a request any more, so it is answered
    // here, through the same exchange as any request (a 404, the route's answer, …), and closed.
    const exchange = this.#exchanges.handle(incoming, rawWire(socket));
    socket.once('close', () => exchange.aborted());
  }
}

function open<U>(conn: Connection<U>, ws: WebSocket, events: RouteEvents<U>, idleMs: number): void {
  /** Sends not yet written to the socket; `drain` is owed once they are, after a send was queued. */
  let pending = 0;
  let owed = false;
  let heard = Date.now();
  let reported = false;
  /** Like uWS, the route hears of the close once, at once when we end it (ws would wait for the peer's close frame). */
  const closed = (code: number, reason: string) => {
    if (reported) return;
    reported = true;
    clearInterval(keepAlive);
    events.closed(conn, code, reason);
  };
  const raw: RawWebSocket = {
    send(data, isBinary) {
      if (ws.readyState !== ws.OPEN) return 'dropped';
      pending++;
      ws.send(data, { binary: isBinary }, () => {
        pending--;
        if (pending === 0 && owed && ws.readyState === ws.OPEN) {
          owed = false;
          events.drain(conn);
        }
      });
      if (ws.bufferedAmount === 0) return 'sent';
      owed = true;
      return 'queued';
    },
    get buffered() {
      return ws.bufferedAmount;
    },
    end: (code, reason) => {
      ws.close(code, reason);
      closed(code, reason);
    },
  };
  // uWS's idleTimeout with automatic pings: a ping every half period, dropped after a silent one.
  const keepAlive = setInterval(
    () => {
      if (Date.now() - heard > idleMs) ws.terminate();
      else if (ws.readyState === ws.OPEN) ws.ping();
    },
    Math.max(1000, idleMs / 2),
  );
  const alive = () => (heard = Date.now());
  ws.on('pong', alive);
  ws.on('ping', alive);
  ws.on('message', (data: RawData, isBinary: boolean) => {
    alive();
    events.message(conn, copyOf(data), isBinary);
  });
  // Protocol errors (a frame over the hard limit, bad UTF-8): ws closes with the right code itself.
  ws.on('error', (err) => conn.log.debug({ err }, 'websocket protocol error'));
  ws.once('close', (code: number, reason: Buffer) => closed(code, reason.toString('utf8')));
  events.opened(conn, raw);
}

/** A copy the route may keep (ws hands a Buffer, or fragments as an array). */
function copyOf(data: RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  if (data instanceof ArrayBuffer) return new Uint8Array(data.slice(0));
  return new Uint8Array(data);
}

/** A response written straight on the socket (no http.ServerResponse exists after 'upgrade'), then the connection is closed. */
function writeRaw(
  socket: Duplex,
  status: number,
  requestId: string,
  headers: Record<string, string>,
  payload: Uint8Array,
  head: boolean,
): void {
  if (socket.destroyed) throw new Error('socket closed');
  const lines = [`HTTP/1.1 ${status} ${reasonOf(status)}`.trimEnd(), `X-Request-Id: ${requestId}`, `Date: ${new Date().toUTCString()}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  lines.push(`Content-Length: ${payload.byteLength}`, 'Connection: close', '', '');
  socket.write(lines.join('\r\n'));
  socket.end(head ? undefined : payload);
}

function rawWire(socket: Duplex): Wire {
  return {
    // Always closed after the answer (writeRaw): an unread body is never drained.
    respond(status, requestId, headers, payload, head, _unread, written) {
      writeRaw(socket, status, requestId, headers, payload, head);
      socket.once('finish', () => written(!socket.errored));
    },
    // Upgrade refusals are whole responses; a streamed one is refused (the exchange logs it).
    openStream: () => {
      throw new Error('a streamed body cannot answer an upgrade request');
    },
    // node:http stops parsing at the upgrade: a body is not read here (such requests are GETs in practice).
    readBody: (onData) => void onData(Buffer.alloc(0), true),
    pause: () => undefined,
    resume: () => undefined,
    destroy: () => socket.destroy(),
  };
}
