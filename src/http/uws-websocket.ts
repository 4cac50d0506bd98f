/**
 * WebSocket routes on uWebSockets.js: the engine half of ./websocket.ts. uWS owns the sockets;
 * its user data holds our Connection. Limits: uWS's maxBackpressure is twice the route's buffer
 * bound (so the 1008 close frame still fits) and its maxPayloadLength four times the frame bound.
 */
import { copyRequest, statusLine } from './uws-request.js';
import { HARD_PAYLOAD_FACTOR, routeLimits, type WebSocketRegistry } from './websocket.js';
import type { Connection, RawWebSocket } from './websocket-connection.js';
import type { WebSocketRoute } from './types.js';
import type { TemplatedApp, WebSocket } from 'uWebSockets.js';

/** uWS send() results. */
const SEND_SUCCESS = 1;
const SEND_DROPPED = 2;

/** uWS keeps this as the socket's user data; the connection object is ours. */
interface Slot<U> {
  readonly conn: Connection<U>;
}

/** Mounts `route` on the uWS app. */
export function mountUwsWebSocket<U>(app: TemplatedApp, registry: WebSocketRegistry, route: WebSocketRoute<U>): void {
  const { maxBuffered, maxPayload, idleTimeoutS } = routeLimits(route as WebSocketRoute<unknown>);
  const events = registry.events(route);
  app.ws<Slot<U>>(route.path, {
    maxPayloadLength: maxPayload * HARD_PAYLOAD_FACTOR,
    maxBackpressure: maxBuffered * 2,
    closeOnBackpressureLimit: 0,
    // uWS wants 0 or at least 8 s, in steps of 4 (its timer granularity).
    idleTimeout: Math.max(8, Math.ceil(idleTimeoutS / 4) * 4),
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      // Copy what we need from `req` now: it dies with this tick.
      // onAborted first (a refusal may be written at once); it never runs in this tick.
      res.onAborted(() => handle.aborted());
      const incoming = copyRequest(req, res.getRemoteAddressAsText());
      const key = incoming.headers['sec-websocket-key'] ?? '';
      const extensions = incoming.headers['sec-websocket-extensions'] ?? '';
      const handle = registry.upgrade(route, incoming, {
        refuse: (status, id, headers, payload) =>
          res.cork(() => {
            res.writeStatus(statusLine(status));
            res.writeHeader('X-Request-Id', id);
            for (const [k, v] of Object.entries(headers)) res.writeHeader(k, v);
            res.end(payload);
          }),
        accept: (conn) => res.cork(() => res.upgrade<Slot<U>>({ conn }, key, conn.protocol ?? '', extensions, context)),
      });
    },
    open: (ws) => events.opened(ws.getUserData().conn, rawSocket(ws)),
    // The ArrayBuffer is neutered when this callback returns: hand out a copy.
    message: (ws, message, isBinary) => events.message(ws.getUserData().conn, new Uint8Array(message.slice(0)), isBinary),
    drain: (ws) => events.drain(ws.getUserData().conn),
    close: (ws, code, message) => events.closed(ws.getUserData().conn, code, Buffer.from(message).toString('utf8')),
  });
}

function rawSocket<U>(ws: WebSocket<Slot<U>>): RawWebSocket {
  return {
    send(data, isBinary) {
      const status = ws.send(data, isBinary, false);
      return status === SEND_SUCCESS ? 'sent' : status === SEND_DROPPED ? 'dropped' : 'queued';
    },
    get buffered() {
      return ws.getBufferedAmount();
    },
    end: (code, reason) => ws.end(code, reason),
  };
}
