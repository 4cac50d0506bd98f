// Card numbers [COMMANDS §3.6, PUSH-v2 §6.6]: decimal, or hex bytes in brackets, least significant
// byte first: `[15CD5B07]` = 0x075BCD15 = 123456789. Any even number of hex digits (up to 16 bytes).
import { fromHex } from './hex.js';

const DECIMAL = /^\d{1,39}$/;
const BRACKETED = /^\[([0-9a-fA-F]{2,32})\]$/;

/** Decimal text of a card number, or undefined when it is neither decimal nor bracketed hex. */
export function parseCard(raw: string): string | undefined {
  const text = raw.trim();
  if (DECIMAL.test(text)) return BigInt(text).toString();
  const m = BRACKETED.exec(text);
  const bytes = m === null ? undefined : fromHex(m[1] as string);
  if (bytes === undefined) return undefined;
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i] as number);
  return value.toString();
}

/** Bracketed little-endian hex of a decimal card number, `byteCount` bytes (default 4). */
export function cardToHex(decimal: string, byteCount = 4): string | undefined {
  if (!DECIMAL.test(decimal)) return undefined;
  let value = BigInt(decimal);
  if (value >= 1n << BigInt(byteCount * 8)) return undefined;
  let hex = '';
  for (let i = 0; i < byteCount; i++) {
    hex += (value & 0xffn).toString(16).toUpperCase().padStart(2, '0');
    value >>= 8n;
  }
  return `[${hex}]`;
}
