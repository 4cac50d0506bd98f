/**
 * MQTT over WebSocket at /mqtt: a WebSocket carries MQTT bytes in binary frames
 * [MQTT-6.0], so the connection becomes a byte stream the embedded broker serves like a TCP socket
 * (through the same guardedConnection bounds). The WebSocket side is src/http's abstraction,
 * seen here only as "send bytes, maybe with backpressure; end".
 */
import { Duplex } from 'node:stream';

/** What this adapter needs of a server-side WebSocket connection (src/http). */
export interface MessageSocket {
  send(data: Uint8Array, isBinary: boolean): 'sent' | 'backpressure' | 'dropped';
  end(code?: number, reason?: string): void;
}

export interface WebSocketStream {
  /** Hand this to the broker. */
  readonly stream: Duplex;
  /** A frame arrived (its bytes are copied: a WebSocket library may reuse the buffer). */
  message(data: ArrayBuffer | Uint8Array): void;
  /** The socket took what was buffered: writes may go on. */
  drain(): void;
  /** The WebSocket is gone. */
  closed(): void;
}

export function websocketStream(socket: MessageSocket): WebSocketStream {
  let waiting: ((err?: Error | null) => void) | undefined;
  let open = true;
  const stream = new Duplex({
    read() {
      // Frames arrive when they arrive: the WebSocket layer bounds their size (maxPayloadLength).
    },
    write(chunk: Buffer, _encoding, done) {
      const outcome = open ? socket.send(chunk, true) : 'dropped';
      if (outcome === 'sent') done();
      else if (outcome === 'backpressure')
        waiting = done; // the broker's backlog counts it until drain
      else done(new Error('websocket closed'));
    },
    final(done) {
      if (open) socket.end(1000, 'bye');
      done();
    },
    destroy(err, done) {
      if (open) {
        open = false;
        socket.end(1000, 'mqtt connection closed');
      }
      done(err);
    },
  });
  return {
    stream,
    message(data) {
      const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
      stream.push(Buffer.from(bytes)); // Buffer.from(Uint8Array) copies
    },
    drain() {
      const done = waiting;
      waiting = undefined;
      done?.();
    },
    closed() {
      open = false;
      const done = waiting;
      waiting = undefined;
      done?.(new Error('websocket closed'));
      stream.push(null);
      stream.destroy();
    },
  };
}
