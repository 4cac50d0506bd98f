/**
 * Reply bodies in a device's character set [COMMANDS §3.10, PUSH-v2 §2.6]: a terminal whose language is
 * 83 (Simplified Chinese) reads names as GB2312; GBK, its superset, is what is sent. Node decodes GBK
 * (TextDecoder) but cannot encode it: the one door of `iconv-lite`.
 */
import iconv from 'iconv-lite';
import type { Charset } from '../protocols/index.js';

/** The body as bytes of `charset`; UTF-8 text is returned unchanged (the HTTP layer writes it). */
export function encodeBody(body: string, charset: Charset | undefined): string | Uint8Array {
  if (charset === undefined || charset === 'utf-8') return body;
  return iconv.encode(body, charset);
}

/** Whether iconv-lite knows `encoding` (`windows-1252`, `utf-16le`, `latin1`, …): the CLI's `--encoding` check. */
export function isKnownEncoding(encoding: string): boolean {
  return iconv.encodingExists(encoding);
}

/** Bytes of a file in `encoding` as text (a byte-order mark is removed); the CSV import's decoder. */
export function decodeBytes(bytes: Uint8Array, encoding: string): string {
  return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding);
}
