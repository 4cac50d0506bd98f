/**
 * The node:http engine (node:https with TLS; WebSockets through ./node-websocket.ts): no native
 * code, so BioGate runs on any Node from 20 on. It copies each request, writes what ./exchange.ts
 * decided, and reports a client that left before its response was written out, the same contract
 * as the uWS engine (./uws-server.ts).
 *
 * Timeouts, chosen to behave like uWS: a connection idle between requests is closed after 10 s,
 * request headers must arrive within 10 s, and there is no overall request timeout (a held long
 * poll must not be cut; a body is bounded by the body timeout of ./exchange.ts instead).
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import {
  createServer as createPlainServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createSecureContext } from 'node:tls';
import { ListenError, type Engine, type EngineParts } from './engine.js';
import { reasonOf } from './status-reasons.js';
import type { Incoming, Wire } from './wire.js';
import { NodeWebSockets } from './node-websocket.js';

/** uSockets' HTTP idle timeout, which clients of the uWS engine are used to. */
const IDLE_TIMEOUT_MS = 10_000;

export function createNodeEngine({ options, exchanges, websockets }: EngineParts): Engine {
  const timeouts = { keepAliveTimeout: IDLE_TIMEOUT_MS, headersTimeout: IDLE_TIMEOUT_MS, requestTimeout: 0, noDelay: true };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const exchange = exchanges.handle(copyRequest(req), wire(req, res));
    // 'close' without 'finish': the connection went before the whole response was written (or before one was ready).
    res.once('close', () => {
      if (!res.writableFinished) exchange.aborted();
    });
  };
  let server: Server;
  if (options.tls) {
    const { certFile, keyFile } = options.tls;
    for (const f of [certFile, keyFile]) accessSync(f, constants.R_OK);
    const cert = readFileSync(certFile);
    const key = readFileSync(keyFile);
    try {
      createSecureContext({ cert, key }); // fails now, with the same words as the uWS engine, rather than at the first handshake
    } catch (cause) {
      throw new ListenError(
        `cannot use the TLS certificate "${certFile}" with the key "${keyFile}": not PEM, or they do not belong together`,
        { cause },
      );
    }
    server = createTlsServer({ ...timeouts, cert, key }, onRequest);
  } else {
    server = createPlainServer(timeouts, onRequest);
  }

  server.on('clientError', answerClientError);

  const upgrades = new NodeWebSockets(websockets, exchanges);
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => upgrades.upgrade(req, socket, head, copyRequest(req)));
  // Every connection, also those mid-handshake or upgraded (which node:http no longer tracks), so close() can cut them all.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  return {
    name: 'node',
    mountWebSocket: (route) => upgrades.mount(route),
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        const failed = (cause: Error) =>
          reject(new ListenError(`cannot listen on ${host}:${port} (address in use or not available)`, { cause }));
        server.once('error', failed);
        // Exclusive, like the uWS engine: no SO_REUSEPORT, a second gateway on the port fails with EADDRINUSE.
        server.listen({ host, port, exclusive: true }, () => {
          server.off('error', failed);
          server.on('error', (err) => options.logger.error({ err }, 'HTTP listener error'));
          resolve((server.address() as AddressInfo).port);
        });
      }),
    // Only the listening socket: http.Server#close() would also close idle kept-alive connections
    // (Node 19+), while a client on one should get its 503 SHUTTING_DOWN, as on the uWS engine.
    stopAccepting: () => void NetServer.prototype.close.call(server),
    closeConnections: () => {
      for (const socket of [...sockets]) socket.destroy();
      server.close(); // clears node:http's connection-checking timer; the listener is already closed
    },
  };
}

/**
 * Parser refusals node:http words itself, kept as node:http sends them (status line only): the
 * status says it all and no catalog code fits (431 headers too large, 408 headers too slow).
 */
const BARE: Readonly<Record<string, number>> = { HPE_HEADER_OVERFLOW: 431, ERR_HTTP_REQUEST_TIMEOUT: 408 };

/**
 * node:http's `clientError`: a request its parser refuses (a header holding NUL or another control
 * byte [RFC 9110 §5.5], a malformed request line, a method llhttp does not know at all). Without this
 * listener node:http answers a bare 400 or cuts the connection; here the client gets the `{detail,
 * code}` body of any refusal: 501 NOT_IMPLEMENTED for the method [RFC 9110 §15.6.2] (QUERY and other
 * methods llhttp knows reach ./exchange.ts, which answers alike), else 400 BAD_REQUEST. Then the
 * connection closes; nothing is written once a response on it has started (that would corrupt it).
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const bare = BARE[err.code ?? ''];
  if (bare !== undefined) {
    socket.end(`HTTP/1.1 ${bare} ${reasonOf(bare)}\r\nConnection: close\r\n\r\n`);
    return;
  }
  const [status, code, detail] =
    err.code === 'HPE_INVALID_METHOD'
      ? [501, 'NOT_IMPLEMENTED', 'The request method is not implemented']
      : [400, 'BAD_REQUEST', 'The request is malformed (request line or header bytes)'];
  const body = JSON.stringify({ detail, code });
  socket.end(
    `HTTP/1.1 ${status} ${reasonOf(status)}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Date: ${new Date().toUTCString()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The request's fields as the exchange wants them (repeated headers joined with ", ", like the uWS engine). */
function copyRequest(req: IncomingMessage): Incoming {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const headers: Record<string, string> = {};
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = (raw[i] as string).toLowerCase();
    const v = raw[i + 1] as string;
    headers[k] = Object.hasOwn(headers, k) ? `${headers[k]}, ${v}` : v;
  }
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    path: q < 0 ? url : url.slice(0, q),
    rawQuery: q < 0 ? '' : url.slice(q + 1),
    headers,
    peer: req.socket.remoteAddress ?? '',
  };
}

/** Whether the request announced a body [RFC 9112 §6.3]. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function wire(req: IncomingMessage, res: ServerResponse): Wire {
  return {
    respond(status, requestId, headers, payload, head, bodyUnread, written) {
      if (res.writableEnded || res.destroyed) throw new Error('response already closed');
      const out: OutgoingHttpHeaders = { 'X-Request-Id': requestId, ...headers };
      if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) out['Content-Length'] = payload.byteLength;
      // A body not read to its end (413, a refused caller, or answered before it was read) is not
      // drained either: the connection closes after the answer. (A request without a body is not
      // complete yet while its first answer is written, so `complete` alone would close every keep-alive.)
      const unread = bodyUnread || (hasBody(req) && !req.readableEnded);
      if (unread) res.shouldKeepAlive = false;
      res.writeHead(status, reasonOf(status) || undefined, out);
      // 'finish' also follows a write that failed because the client reset the connection.
      res.once('finish', () => written(!req.socket.destroyed && !req.socket.errored));
      // node:http sends no body for HEAD by itself; the Content-Length above is the GET body's.
      if (head) res.end();
      else res.end(payload);
      if (unread) req.resume(); // what arrives before the close is discarded
    },
    openStream(status, requestId, headers, head) {
      if (res.writableEnded || res.destroyed) throw new Error('response already closed');
      // No Content-Length: node:http sends the body chunked [RFC 9112 §7.1].
      res.writeHead(status, reasonOf(status) || undefined, { 'X-Request-Id': requestId, ...headers });
      if (head) res.end();
      return {
        write: (chunk) => res.write(chunk),
        onDrain: (then) => void res.once('drain', then),
        end(written) {
          res.once('finish', () => written(!req.socket.destroyed && !req.socket.errored));
          if (!res.writableEnded) res.end();
        },
      };
    },
    readBody(onData) {
      let reading = true;
      req.on('data', (chunk: Buffer) => {
        if (reading) reading = onData(chunk, false);
      });
      req.once('end', () => {
        if (reading) reading = onData(Buffer.alloc(0), true);
      });
    },
    pause: () => void req.pause(),
    resume: () => void req.resume(),
    destroy: () => req.socket.destroy(), // res 'close' reports it
  };
}
