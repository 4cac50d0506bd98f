/**
 * The one decode of a device request, in the device's language [PUSH-v2 §2.6]. Any codec reads any
 * request [PUSH-v2 §10.3], so `readerCodec` decodes them all. The push route decodes before the device
 * is known, with UTF-8; text in a device's language differs from that only when the language has
 * another character set (83: GB2312) and the body holds non-ASCII bytes: such a request is decoded
 * once more here, in that language, by the actor that knows its device (`inLanguage`).
 *
 * A large ATTLOG upload is decoded without stalling the event loop: the body is cut at line ends into
 * slices of SLICE_BYTES, each slice is decoded on its own, and the event loop runs other requests
 * between slices. The result is what one decode of the whole body gives: one attendance event with
 * every record, the rejected count and the first samples. Only ATTLOG is sliced: it is one record per
 * line [PUSH-v2 §6.2], so any line end is a record boundary. `\n` (0x0A) never occurs inside a
 * multi-byte character of UTF-8 or GB2312/GBK (every byte of those is ≥ 0x40), so the byte split is
 * safe for every text encoding the protocols allow [PUSH-v2 §2.6].
 */
import { charsetFor, readerCodec, type DecodeResult, type DeviceEvent, type WireRequest } from '../../protocols/index.js';

/** Bodies up to this size are decoded in one go (a few milliseconds). */
export const SLICE_BYTES = 128 * 1024;
const MAX_SAMPLES = 5;

/** A device request as typed events; `language`: the device's `Language` option, when known. */
export function decodeRequest(wire: WireRequest, language?: string): DecodeResult {
  return language === undefined ? readerCodec.decode(wire) : readerCodec.decode(wire, { language });
}

const hasHighBytes = (body: Uint8Array): boolean => {
  for (const byte of body) if (byte >= 0x80) return true;
  return false;
};

/**
 * The request as its device's language reads it: the route's UTF-8 decode when that is what the
 * language reads (every language but 83) or the body is ASCII (cheap on the hot path), else the body
 * decoded again in the language.
 */
export function inLanguage(wire: WireRequest, decoded: DecodeResult, language: string | undefined): DecodeResult {
  if (language === undefined || charsetFor(language) === 'utf-8' || !hasHighBytes(wire.body)) return decoded;
  return decodeRequest(wire, language);
}

const isAttlogUpload = (wire: WireRequest): boolean =>
  /(^|\/)cdata$/i.test(wire.path) &&
  Object.entries(wire.query).some(([k, v]) => k.toLowerCase() === 'table' && v.toUpperCase() === 'ATTLOG');

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** decodeRequest(wire, language), in slices with yields between them for a large ATTLOG body. */
export async function decodeInSlices(wire: WireRequest, language?: string): Promise<DecodeResult> {
  if (wire.body.length <= SLICE_BYTES || !isAttlogUpload(wire)) return decodeRequest(wire, language);
  const parts: DecodeResult[] = [];
  for (let start = 0; start < wire.body.length;) {
    let end = Math.min(wire.body.length, start + SLICE_BYTES);
    if (end < wire.body.length) {
      const newline = wire.body.indexOf(0x0a, end - 1);
      end = newline === -1 ? wire.body.length : newline + 1;
    }
    if (parts.length > 0) await yieldToLoop();
    parts.push(decodeRequest({ ...wire, body: wire.body.subarray(start, end) }, language));
    start = end;
  }
  return merge(parts);
}

/** One result from the slices' results: same-source attendance events joined into one. */
function merge(parts: readonly DecodeResult[]): DecodeResult {
  const first = parts[0] as DecodeResult;
  const events: DeviceEvent[] = [];
  /** The records of the last event when it is an attendance event (appended to in place). */
  let joined: { source: string; records: unknown[] } | undefined;
  for (const part of parts) {
    for (const event of part.events) {
      if (event.type === 'attendance') {
        const source = JSON.stringify(event.source);
        if (joined?.source === source) {
          for (const r of event.records) joined.records.push(r);
          continue;
        }
        const records = [...event.records];
        events.push({ ...event, records });
        joined = { source, records };
      } else {
        events.push(event);
        joined = undefined;
      }
    }
  }
  return {
    ...first,
    events,
    rejected: parts.reduce((n, p) => n + p.rejected, 0),
    rejectedSamples: parts.flatMap((p) => p.rejectedSamples).slice(0, MAX_SAMPLES),
  };
}
