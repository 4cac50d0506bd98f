/**
 * The HTTP shapes the rest of BioGate sees (the port). Nothing here mentions an engine: uWebSockets.js
 * (./uws-server.ts) and node:http (./node-server.ts) both serve behind these shapes.
 */
import type { Logger } from '../log.js';
import type { TrustCheck } from './client-address.js';

/** The engines behind the port: uWebSockets.js (native) or node:http + ws. */
export type HttpEngineName = 'uws' | 'node';
/** What an operator chooses (BIOGATE_HTTP_ENGINE): `auto` takes uws when its native binary loads. */
export type HttpEngineChoice = HttpEngineName | 'auto';

export interface HttpServerOptions {
  readonly logger: Logger;
  readonly bodyLimit: number;
  /** Which engine; default `auto`. */
  readonly engine?: HttpEngineChoice | undefined;
  readonly tls?: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly onResponse?: ResponseObserver;
  /** Time allowed for a whole request body to arrive, from the headers (ms; routes may override); default 120 s. */
  readonly bodyTimeoutMs?: number;
  /** Peers whose Forwarded / X-Forwarded-For name the client (BIOGATE_TRUSTED_PROXIES); unset: nobody. */
  readonly trustedProxies?: TrustCheck | undefined;
}

export interface HttpServer {
  /** The engine serving this server. */
  readonly engine: HttpEngineName;
  route(route: Route): void;
  routes(): readonly Route[];
  /** A WebSocket endpoint (./websocket.ts); a plain GET on its path is a 400. */
  websocket<U>(route: WebSocketRoute<U>): void;
  /** Open WebSocket connections. */
  readonly openWebSockets: number;
  /** Binds (exclusively: a port in use is a ListenError) and resolves with the bound port (useful with port 0). */
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting, lets in-flight requests finish (held long polls are released) for up to graceMs, then closes every connection. */
  close(graceMs: number): Promise<void>;
  readonly inFlight: number;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

export interface HttpRequest {
  /** Request id: the caller's `X-Request-Id` when sane, else generated. Echoed back. */
  readonly id: string;
  readonly method: HttpMethod;
  /** Path without the query string, as received. */
  readonly path: string;
  /** The route pattern that matched (e.g. `/api/users/:pin`), for metrics and logs. */
  readonly route: string;
  readonly params: Readonly<Record<string, string>>;
  /** The raw query string (without `?`). */
  readonly rawQuery: string;
  readonly query: URLSearchParams;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The whole body; empty for GET/HEAD. Already checked against the size limit. */
  readonly body: Buffer;
  readonly remoteAddress: string;
  readonly log: Logger;
  /** Aborted when the client goes away (or the server stops): long polls stop waiting. Made on first use. */
  readonly signal: AbortSignal;
  /** Whether the client went away (or the server is stopping), without making the signal. */
  readonly gone: boolean;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string or bytes are sent as is; anything else is sent as JSON. */
  readonly body?: string | Uint8Array | object | null;
  /**
   * A body made piece by piece and sent chunked (no Content-Length; `body` is ignored): one chunk is
   * pulled at a time, the next only once the previous one left user space (backpressure), so a slow
   * reader holds up the producer instead of filling memory. When the client goes away (or the server
   * stops) the iterator is closed (`return()`), so a generator's `finally` runs. An error once the
   * first chunk went out cuts the connection (the status is sent already). See ./stream-body.ts.
   */
  readonly stream?: AsyncIterable<string | Uint8Array>;
  /**
   * Called exactly once when the fate of this response is known: `true` once the whole
   * response was handed to the socket, `false` if the client went away before or while
   * it was written (or it could not be sent, e.g. the server closed first). A long poll
   * uses it to put claimed commands back when nobody received them. Must not throw
   * (a throw is logged and ignored).
   */
  readonly onSettled?: (delivered: boolean) => void;
}

export type Handler = (req: HttpRequest) => Promise<HttpResponse> | HttpResponse;

export interface Route {
  readonly method: HttpMethod;
  /** `/api/users/:pin`; a final `*` matches the rest of the path (available as params['*']). */
  readonly pattern: string;
  readonly handler: Handler;
  /** Largest body this route accepts, in bytes; defaults to the server's limit. */
  readonly bodyLimit?: number;
  /** Time allowed for the whole body to arrive, in ms, counted from the headers; defaults to the server's body timeout. */
  readonly bodyTimeoutMs?: number;
  /**
   * Checks the caller from the request head, before the body is read: a throw (a BioGateError: 401,
   * 403, 429) is the answer, and the body is never read in bulk. The handler runs only after it passed.
   */
  readonly authorize?: (req: HttpRequest) => Promise<void> | void;
}

/**
 * Called once per finished request (metrics, the access log). `request` is the object the handler
 * got (absent when no route matched), so a layer above can recall what it learnt of it (its location).
 */
export type ResponseObserver = (info: {
  route: string;
  method: string;
  status: number;
  seconds: number;
  request?: HttpRequest | undefined;
}) => void;

// ------------------------------------------------------------------ WebSocket (src/http/websocket.ts)

/** The upgrade request as a handler sees it: a GET with its headers, plus the offered subprotocols. */
export interface WebSocketUpgrade extends HttpRequest {
  /** `Sec-WebSocket-Protocol` split on commas, in the client's order (RFC 6455 §4.1). */
  readonly protocols: readonly string[];
}

/**
 * Accept with the connection's own data (and the subprotocol to echo, which must be one the client
 * offered), or refuse with an HTTP response sent before any upgrade. Throwing a BioGateError refuses
 * with its status and `{detail, code}` body, like any route.
 */
export type UpgradeDecision<U> = { readonly accept: U; readonly protocol?: string | undefined } | { readonly refuse: HttpResponse };

/** What `send` did: queued and flushed, queued behind unread data, or not sent (connection closing or closed). */
export type SendOutcome = 'sent' | 'backpressure' | 'dropped';

/** One open WebSocket; valid from `open` to `close`, after which `send` answers 'dropped'. */
export interface WebSocketConnection<U> {
  readonly userData: U;
  /** The client's address (trusted proxies applied), and the request id of its upgrade, for logs. */
  readonly remoteAddress: string;
  readonly id: string;
  /** The subprotocol agreed at the upgrade, or null. */
  readonly protocol: string | null;
  /** A string goes as a text frame; bytes as a binary frame unless `isBinary` is false. */
  send(data: string | Uint8Array, isBinary?: boolean): SendOutcome;
  /** Bytes queued in user space that the client has not taken yet (the kernel's buffers come first). */
  readonly bufferedAmount: number;
  /** Closes with a close frame (RFC 6455 §7.4 code, reason up to 123 bytes). Idempotent. */
  end(code?: number, reason?: string): void;
  readonly closed: boolean;
}

export interface WebSocketRoute<U> {
  /** Exact path, e.g. `/api/stream`. A plain GET there (no upgrade) gets 426. */
  readonly path: string;
  /**
   * Largest message a client may send; a larger one closes the connection with 1009 and a reason
   * (beyond 4 times this, uWS drops the connection without a close frame). Default 16 KiB.
   */
  readonly maxPayloadBytes?: number;
  /**
   * Unread bytes allowed per connection. A send that leaves more queued closes the connection with
   * 1008 and a reason, so a client that stops reading is cut off, never buffered without bound.
   * Default 1 MiB.
   */
  readonly maxBufferedBytes?: number;
  /** Seconds without any frame before the connection is dropped; pings go out automatically before that. Default 60. */
  readonly idleTimeoutS?: number;
  upgrade(req: WebSocketUpgrade): Promise<UpgradeDecision<U>> | UpgradeDecision<U>;
  open?(conn: WebSocketConnection<U>): void;
  /** `data` is a copy the handler may keep. */
  message?(conn: WebSocketConnection<U>, data: Uint8Array, isBinary: boolean): void;
  /** Buffered data went out: sending may go on. */
  drain?(conn: WebSocketConnection<U>): void;
  /** Called once, whoever closed; the connection cannot send any more. */
  close?(conn: WebSocketConnection<U>, code: number, reason: string): void;
}
