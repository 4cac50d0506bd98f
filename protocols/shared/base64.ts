// Template / photo payloads are base64 [PUSH-v2 §6.4]; text that is not base64 is stored but flagged
// unusable (never sent to another device).
// With the length a multiple of 4, "alphabet then at most two `=`" is exactly padded base64; this simple
// pattern is the fastest check measured (test/bench/codec-decode.bench.ts runs it over every template).
const ALPHABET_THEN_PAD = /^[A-Za-z0-9+/]*={0,2}$/;

export function isBase64(text: string): boolean {
  return text.length > 0 && text.length % 4 === 0 && ALPHABET_THEN_PAD.test(text);
}
