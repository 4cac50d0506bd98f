// Body bytes ↔ text [PUSH-v2 §2.6, COMMANDS §3.10]: UTF-8; GB2312 (read as GBK, its superset) only when
// the bytes are not valid UTF-8 and the device language is 83 (Simplified Chinese). Every other
// language, Russian (82) included, is UTF-8: no document names another character set.
const utf8 = new TextDecoder('utf-8');
const utf8Strict = new TextDecoder('utf-8', { fatal: true });
const gbk = new TextDecoder('gbk');

/** The character set of a device's names: `gbk` for language 83 [PUSH-v2 §2.6], else `utf-8`. */
export type Charset = 'utf-8' | 'gbk';

/** [PUSH-v2 §4.1] `language` id (handshake, `Language` option) → character set of its names. */
export function charsetFor(language: string | null | undefined): Charset {
  return language?.trim() === '83' ? 'gbk' : 'utf-8';
}

export function decodeText(bytes: Uint8Array, language?: string): string {
  if (charsetFor(language) !== 'gbk') return utf8.decode(bytes);
  try {
    return utf8Strict.decode(bytes);
  } catch {
    // [PUSH-v2 §2.6] not UTF-8 on a Simplified Chinese device: GB2312 names
    return gbk.decode(bytes);
  }
}

/** Bytes of one character in `charset`: GBK takes 2 for every non-ASCII character it holds. */
export function charBytes(ch: string, charset: Charset): number {
  if (charset === 'gbk') return ch.charCodeAt(0) < 0x80 ? 1 : 2;
  return Buffer.byteLength(ch, 'utf8');
}
