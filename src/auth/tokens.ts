/**
 * API tokens: 192 random bits, `bg_` prefix, stored only as a SHA-256 hash,
 * compared in constant time [API-CONTRACT §4].
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_PREFIX = 'bg_';
const TOKEN_SHAPE = /^bg_[A-Za-z0-9_-]{32}$/;

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(24).toString('base64url');
}

/** Tokens carry 192 random bits, so a fast unsalted hash is enough: nothing to brute-force. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function looksLikeToken(text: string): boolean {
  return TOKEN_SHAPE.test(text);
}

/** Constant-time equality of two secrets of any length (hashes both to equal length first). */
export function secretsEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/** `Authorization: Bearer <token>` → the token, or undefined. */
export function bearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m?.[1];
}
