// One open WebSocket as routes see it, and the engine socket under it: sends report 'sent',
// 'backpressure' or 'dropped', and a client that leaves more than maxBuffered bytes unread is closed
// with 1008 and a reason [RFC 6455 §7.4.1].
import type { Logger } from '../log.js';
import type { SendOutcome, WebSocketConnection } from './types.js';

/** RFC 6455 §5.5: a close frame's payload is at most 125 bytes, 2 of them the code. */
const MAX_CLOSE_REASON = 123;
/** RFC 6455 §7.4.1 */
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_POLICY = 1008;
export const CLOSE_TOO_BIG = 1009;
export const CLOSE_INTERNAL = 1011;

/** What an engine's socket does for a Connection. */
export interface RawWebSocket {
  /** 'sent': handed to the socket; 'queued': buffered behind unread data; 'dropped': refused. */
  send(data: string | Uint8Array, isBinary: boolean): 'sent' | 'queued' | 'dropped';
  /** Bytes queued in user space. */
  readonly buffered: number;
  /** Sends a close frame (code, reason already cut to size). */
  end(code: number, reason: string): void;
}

/** One open WebSocket as routes see it; the engine's socket is attached at open and detached at close. */
export class Connection<U> implements WebSocketConnection<U> {
  readonly userData: U;
  readonly remoteAddress: string;
  readonly id: string;
  readonly protocol: string | null;
  readonly log: Logger;
  readonly #maxBuffered: number;
  #raw: RawWebSocket | null = null;
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

  attach(raw: RawWebSocket): void {
    this.#raw = raw;
  }

  /** The engine may invalidate its socket after the close event; touching it then would throw. */
  detach(): void {
    this.#raw = null;
    this.#closed = true;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get bufferedAmount(): number {
    return this.#raw && !this.#closed ? this.#raw.buffered : 0;
  }

  send(data: string | Uint8Array, isBinary?: boolean): SendOutcome {
    const raw = this.#raw;
    if (!raw || this.#ending || this.#closed) return 'dropped';
    const binary = typeof data === 'string' ? false : (isBinary ?? true);
    let status: 'sent' | 'queued' | 'dropped';
    try {
      status = raw.send(data, binary);
    } catch {
      return 'dropped';
    }
    if (status === 'dropped') {
      this.#tooSlow(raw);
      return 'dropped';
    }
    if (status === 'sent') return 'sent';
    if (this.bufferedAmount > this.#maxBuffered) {
      this.#tooSlow(raw);
      return 'dropped';
    }
    return 'backpressure';
  }

  end(code = 1000, reason = ''): void {
    const raw = this.#raw;
    if (!raw || this.#ending || this.#closed) return;
    this.#ending = true;
    try {
      raw.end(code, truncateUtf8(reason, MAX_CLOSE_REASON));
    } catch {
      // Already gone under us: its close event has run or will.
    }
  }

  #tooSlow(raw: RawWebSocket): void {
    this.log.warn(
      { remote: this.remoteAddress, buffered: raw.buffered, limit: this.#maxBuffered },
      'websocket client is not reading: disconnected',
    );
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
