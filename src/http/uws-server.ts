/**
 * The uWebSockets.js engine: copies each request in its one valid tick, keeps the abort/cork
 * discipline, and writes what ./exchange.ts decided. With ./uws-websocket.ts, ./uws-request.ts and
 * ./uws.ts, the only code that knows uWS exists.
 */
import { accessSync, constants } from 'node:fs';
import { ListenError, type Engine, type EngineParts } from './engine.js';
import type { StreamSink, Wire } from './wire.js';
import { copyRequest, statusLine } from './uws-request.js';
import { loadUws } from './uws.js';
import { mountUwsWebSocket } from './uws-websocket.js';
import type { HttpResponse as UwsResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';

/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT. */
const LISTEN_EXCLUSIVE_PORT = 1;

export function createUwsEngine({ options, exchanges, websockets }: EngineParts): Engine {
  const uws = loadUws();
  const listenSockets: us_listen_socket[] = [];

  let app: TemplatedApp;
  if (options.tls) {
    const { certFile, keyFile } = options.tls;
    for (const f of [certFile, keyFile]) accessSync(f, constants.R_OK);
    try {
      app = uws.SSLApp({ cert_file_name: certFile, key_file_name: keyFile });
    } catch (cause) {
      // uWS only says "App construction failed".
      throw new ListenError(
        `cannot use the TLS certificate "${certFile}" with the key "${keyFile}": not PEM, or they do not belong together`,
        { cause },
      );
    }
  } else {
    app = uws.App();
  }
  // uWS writes a `uWebSockets: 20` header on every answer unless its loop is "silent": no answer names the engine.
  (uws as typeof uws & { _cfg(key: string): void })._cfg('silent');

  app.any('/*', (res, req) => {
    // Everything from `req` must be copied now: it is invalid after this tick.
    // onAborted before anything is answered: uWS forbids touching `res` after a synchronous
    // answer. (It never runs in this tick, so `exchange` is set by then.)
    res.onAborted(() => exchange.aborted());
    const exchange = exchanges.handle(copyRequest(req, res.getRemoteAddressAsText()), new UwsWire(res));
  });

  return {
    name: 'uws',
    mountWebSocket: (route) => mountUwsWebSocket(app, websockets, route),
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        // Exclusive: by default uSockets sets SO_REUSEPORT, so a second gateway on the same
        // port would bind too and the kernel would split connections between the two.
        // (The host + options form exists natively; this build's typings lack it.)
        const listen = app.listen.bind(app) as unknown as (
          h: string,
          p: number,
          o: number,
          cb: (s: us_listen_socket | false) => void,
        ) => void;
        listen(host, port, LISTEN_EXCLUSIVE_PORT, (socket) => {
          if (!socket) return reject(new ListenError(`cannot listen on ${host}:${port} (address in use or not available)`));
          listenSockets.push(socket);
          resolve(uws.us_socket_local_port(socket as never));
        });
      }),
    stopAccepting: () => {
      for (const s of listenSockets.splice(0)) uws.us_listen_socket_close(s);
    },
    // close() exists on the native app but is missing from this build's typings.
    closeConnections: () => (app as TemplatedApp & { close(): void }).close(),
  };
}

/** How the exchange writes to one uWS response: one object per request, no closures per request. */
class UwsWire implements Wire {
  readonly #res: UwsResponse;
  /** Paused by the exchange (authorization pending): the per-chunk timer re-arming must not resume reading. */
  #held = false;

  constructor(res: UwsResponse) {
    this.#res = res;
  }

  respond(
    status: number,
    requestId: string,
    headers: Record<string, string>,
    payload: Uint8Array,
    head: boolean,
    unread: boolean,
    written: (delivered: boolean) => void,
  ): void {
    const res = this.#res;
    // A socket left paused would never read the next request of a kept-alive connection.
    if (this.#held) this.resume();
    res.cork(() => {
      res.writeStatus(statusLine(status));
      res.writeHeader('X-Request-Id', requestId);
      for (const k in headers) res.writeHeader(k, headers[k] as string);
      if (head) {
        res.endWithoutBody(payload.byteLength);
        return written(true);
      }
      if (unread) {
        // The rest of the body is not wanted: end() with closeConnection sends `Connection: close`
        // and shuts the socket once the (small, error) answer is out, instead of draining the body.
        res.end(payload, true);
        return written(true);
      }
      // tryEnd + onWritable instead of end(): we learn when the last byte left, so
      // close() does not cut a large response that is still draining.
      const base = res.getWriteOffset();
      const [, finishedNow] = res.tryEnd(payload, payload.byteLength);
      if (finishedNow) return written(true);
      res.onWritable((offset) => {
        const [ok, finishedLater] = res.tryEnd(payload.subarray(offset - base), payload.byteLength);
        if (finishedLater) written(true);
        return ok;
      });
    });
  }

  openStream(status: number, requestId: string, headers: Record<string, string>, head: boolean): StreamSink {
    const res = this.#res;
    res.cork(() => {
      res.writeStatus(statusLine(status));
      res.writeHeader('X-Request-Id', requestId);
      for (const k in headers) res.writeHeader(k, headers[k] as string);
      // uWS sends `Transfer-Encoding: chunked` for write() without a length; HEAD gets the headers alone.
      if (head) res.endWithoutBody();
    });
    return new UwsStreamSink(res, head);
  }

  readBody(onData: (chunk: Buffer, isLast: boolean) => boolean): void {
    const res = this.#res;
    res.onData((chunk, isLast) => {
      // The ArrayBuffer is only valid during this callback: copy.
      const reading = onData(Buffer.from(chunk.slice(0)), isLast);
      // uSockets closes an HTTP connection idle for 10 s, and while a body streams in it only
      // re-arms that timer after 16 KiB arrived: a terminal on a slow link (cellular, weak
      // Wi-Fi) would be cut mid-upload. resume() re-arms it, so any data
      // keeps the connection alive; the body timeout still bounds the whole body.
      // (Only while still reading: a response already sent makes `res` untouchable.)
      if (reading && !this.#held) {
        res.pause();
        res.resume();
      }
    });
  }

  pause(): void {
    this.#held = true;
    this.#res.pause();
  }

  resume(): void {
    this.#held = false;
    this.#res.resume();
  }

  destroy(): void {
    this.#res.close(); // onAborted reports it
  }
}

/** A streamed uWS response: writes corked (uWS sends a corked batch in one syscall), drain through onWritable. */
class UwsStreamSink implements StreamSink {
  readonly #res: UwsResponse;
  #ended: boolean;

  constructor(res: UwsResponse, ended: boolean) {
    this.#res = res;
    this.#ended = ended;
  }

  write(chunk: Uint8Array): boolean {
    let ok = false;
    this.#res.cork(() => {
      ok = this.#res.write(chunk);
    });
    return ok;
  }

  onDrain(then: () => void): void {
    this.#res.onWritable(() => {
      then();
      return true;
    });
  }

  end(written: (delivered: boolean) => void): void {
    if (!this.#ended) this.#res.cork(() => this.#res.end());
    this.#ended = true;
    written(true);
  }
}
