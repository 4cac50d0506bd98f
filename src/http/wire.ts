// The contract between an HTTP engine (./uws-server.ts, ./node-server.ts) and the engine-neutral
// exchange: what the engine copies from a request, and how the exchange writes back through it.

/** What an engine copied from the request before anything asynchronous happened. */
export interface Incoming {
  /** Upper case, as sent (not necessarily one of METHODS). */
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Record<string, string>;
  /** The socket peer's address (before trusted proxies are applied). */
  readonly peer: string;
}

/** How the core talks to one request's connection. */
export interface Wire {
  /**
   * Writes the whole response (`X-Request-Id` first, then `headers`); for HEAD, the headers a GET
   * would get with `Content-Length: payload.byteLength` and no body. Calls `written(true)` once the
   * last byte was handed to the socket, `written(false)` if the connection broke first (or is not
   * called then, when the engine reports the client gone instead). Throws when the response cannot
   * be written at all (closed under us). `unread`: the request body is not read to its end (refused
   * early, or too large): the connection is closed once the answer is out, never drained.
   */
  respond(
    status: number,
    requestId: string,
    headers: Record<string, string>,
    payload: Uint8Array,
    head: boolean,
    unread: boolean,
    written: (delivered: boolean) => void,
  ): void;
  /**
   * Starts a streamed response (status and headers; no Content-Length, so the body goes chunked
   * [RFC 9112 §7.1]); for HEAD, the headers only. The exchange writes through the sink it returns.
   * Throws when the response cannot be written at all (closed under us).
   */
  openStream(status: number, requestId: string, headers: Record<string, string>, head: boolean): StreamSink;
  /**
   * Starts reading the body: `onData` gets copies, the last call with `isLast`, and answers whether
   * it still reads (false once the body is complete, refused or abandoned: the request may be answered).
   */
  readBody(onData: (chunk: Buffer, isLast: boolean) => boolean): void;
  /** Stops taking body bytes off the connection (what is already in may still arrive); `resume` goes on. */
  pause(): void;
  resume(): void;
  /** Cuts the connection without an answer; the engine then reports the client as gone. */
  destroy(): void;
}

/** One streamed response's writer (Wire.openStream). Used only while the client is there. */
export interface StreamSink {
  /** Queues a chunk; false when it is buffered beyond what the socket took (wait for `onDrain`). */
  write(chunk: Uint8Array): boolean;
  /** Calls `then` once, when buffered data went out and writing may go on. */
  onDrain(then: () => void): void;
  /** Ends the body; `written(true)` once it was handed to the socket, `written(false)` if the connection broke first. */
  end(written: (delivered: boolean) => void): void;
}
