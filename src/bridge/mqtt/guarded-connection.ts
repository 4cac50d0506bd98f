/**
 * What the embedded broker reads from and writes to instead of the raw socket (the README
 * "bounded queues per client" rule), for two bounds aedes does not have:
 *
 * - Inbound: aedes' parser buffers a whole packet before looking at it, and a remaining length
 *   may announce up to 256 MB [MQTT-2.2.3]; anyone who can open a TCP connection could make the
 *   gateway hold that, before logging in. The fixed headers are followed here, and a connection
 *   announcing a packet over MAX_PACKET_BYTES is cut before its body arrives.
 * - Outbound: writes queue here (the socket holds one chunk at a time), so `writableLength` is
 *   everything not yet taken by the kernel, and `write()` answers false at CLIENT_BUFFER_BYTES;
 *   embedded.ts drops deliveries to a connection at that mark.
 */
import { Duplex } from 'node:stream';

/** Largest MQTT packet a client may send: a command request is at most 64 KiB, filters are short. */
export const MAX_PACKET_BYTES = 256 * 1024;
/** Unsent bytes a connection may have before deliveries to it are dropped. */
export const CLIENT_BUFFER_BYTES = 256 * 1024;

/** Follows MQTT fixed headers across chunks [MQTT-2.2]: type byte, remaining length (1–4 bytes, 7 bits each), body. */
export class PacketSizeGuard {
  #state: 'type' | 'length' | 'body' = 'type';
  #length = 0;
  #multiplier = 1;
  #left = 0;

  constructor(readonly max: number) {}

  /** Consumes a chunk; returns an error text when a packet is too large or malformed. */
  feed(chunk: Uint8Array): string | undefined {
    let i = 0;
    while (i < chunk.length) {
      if (this.#state === 'body') {
        const n = Math.min(this.#left, chunk.length - i);
        this.#left -= n;
        i += n;
        if (this.#left === 0) this.#state = 'type';
      } else if (this.#state === 'type') {
        i++;
        this.#state = 'length';
        this.#length = 0;
        this.#multiplier = 1;
      } else {
        const b = chunk[i++] as number;
        this.#length += (b & 0x7f) * this.#multiplier;
        if (this.#length > this.max) return `MQTT packet larger than ${this.max} bytes`;
        if (b & 0x80) {
          this.#multiplier *= 128;
          if (this.#multiplier > 128 ** 3) return 'malformed remaining length';
        } else if (this.#length === 0) {
          this.#state = 'type';
        } else {
          this.#left = this.#length;
          this.#state = 'body';
        }
      }
    }
    return undefined;
  }
}

/** A Duplex over `socket` with the two bounds above; destroying either side destroys both. */
export function guardedConnection(socket: Duplex, onOversize: (reason: string) => void): Duplex {
  const guard = new PacketSizeGuard(MAX_PACKET_BYTES);
  const conn = new Duplex({
    writableHighWaterMark: CLIENT_BUFFER_BYTES,
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, done) {
      // The callback fires once the socket handed the chunk on, so the backlog stays counted here.
      socket.write(chunk, (err) => done(err ?? undefined));
    },
    final(done) {
      socket.end(done);
    },
    destroy(err, done) {
      socket.destroy();
      done(err);
    },
  });
  socket.on('data', (chunk: Buffer) => {
    const problem = guard.feed(chunk);
    if (problem) {
      onOversize(problem);
      conn.destroy(new Error(problem));
      return;
    }
    if (!conn.push(chunk)) socket.pause();
  });
  socket.on('end', () => conn.push(null));
  socket.on('error', (err) => conn.destroy(err));
  socket.on('close', () => conn.destroy());
  return conn;
}
