/**
 * Sending a streamed response (HttpResponse.stream): pulls one chunk at a time from the handler's
 * iterator and writes it through the engine's sink; under backpressure it waits for the sink to
 * drain (or the client to leave) before pulling the next, so at most one chunk plus what the
 * socket buffers is held per response, whatever the body's size.
 */
import type { Logger } from '../log.js';
import type { StreamSink } from './wire.js';

/** What the pump needs of its exchange. */
export interface StreamOwner {
  readonly gone: boolean;
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** The fate of the response (./exchange.ts settle). */
  settle(delivered: boolean): void;
}

const encoder = new TextEncoder();

/** Waits until the sink drained or the client left. */
function drained(sink: StreamSink, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done);
    sink.onDrain(done);
  });
}

/** Closes the producer; its own failure to close is logged, never thrown. */
async function close(iterator: AsyncIterator<string | Uint8Array>, log: Logger): Promise<void> {
  try {
    await iterator.return?.();
  } catch (err) {
    log.warn({ err }, 'streamed response: the producer failed while closing');
  }
}

/**
 * Runs the stream to its end; resolves when the response settled (never rejects). `cut` drops the
 * connection: after the status went out, that is the only way to tell the client the body failed.
 */
export async function pump(
  owner: StreamOwner,
  sink: StreamSink,
  source: AsyncIterable<string | Uint8Array>,
  cut: () => void,
): Promise<void> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (owner.gone) {
        await close(iterator, owner.log);
        return owner.settle(false);
      }
      const next = await iterator.next();
      if (next.done) break;
      if (owner.gone) continue; // closed at the top of the loop
      const chunk = typeof next.value === 'string' ? encoder.encode(next.value) : next.value;
      if (chunk.byteLength > 0 && !sink.write(chunk)) await drained(sink, owner.signal);
    }
  } catch (err) {
    owner.log.error({ err }, 'streamed response failed part-way: connection cut');
    await close(iterator, owner.log);
    cut();
    return owner.settle(false);
  }
  if (owner.gone) return owner.settle(false);
  sink.end((delivered) => owner.settle(delivered));
}
