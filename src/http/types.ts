/**
 * The HTTP shapes the rest of BioGate sees. Nothing here mentions uWebSockets.js,
 * so another HTTP engine can replace src/http without touching handlers.
 */
import type { Logger } from '../log.js';

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
  /** Aborted when the client goes away: long polls stop waiting. */
  readonly signal: AbortSignal;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string or bytes are sent as is; anything else is sent as JSON. */
  readonly body?: string | Uint8Array | object | null;
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
  /** Time allowed for the whole body to arrive, in ms; defaults to the server's body timeout. */
  readonly bodyTimeoutMs?: number;
}

/** Called once per finished request (metrics). */
export type ResponseObserver = (info: { route: string; method: string; status: number; seconds: number }) => void;
