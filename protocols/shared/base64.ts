// Template / photo payloads are base64 [PUSH-v2 §6.4]; text that is not base64 is stored but flagged
// unusable (never sent to another device).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isBase64(text: string): boolean {
  return text.length > 0 && BASE64.test(text);
}
