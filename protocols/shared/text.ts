// Body bytes → text [PUSH-v2 §2.6]: UTF-8; GB2312 (read as GBK, its superset) only when the bytes are
// not valid UTF-8 and the device language is 83 (Simplified Chinese).
const utf8 = new TextDecoder('utf-8');
const utf8Strict = new TextDecoder('utf-8', { fatal: true });
const gbk = new TextDecoder('gbk');

export function decodeText(bytes: Uint8Array, language?: string): string {
  if (language !== '83') return utf8.decode(bytes);
  try {
    return utf8Strict.decode(bytes);
  } catch {
    // [PUSH-v2 §2.6] not UTF-8 on a Simplified Chinese device: GB2312 names
    return gbk.decode(bytes);
  }
}
