// Registration identifiers [PUSH-v3 §3.3, §4.2, §5]. Randomness comes from the caller.
import { createHash } from 'node:crypto';
import { toHex } from '../shared/hex.js';

/** RegistryCode: letters and digits, 10–32 characters — upper-case hex of 5–16 random bytes. */
export function registryCodeFrom(random: Uint8Array): string {
  return toHex(random.subarray(0, 16)).padEnd(10, '0');
}

/** SessionID: 32 upper-case hex characters from 16 random bytes [PUSH-v3 §4.2]. */
export function sessionIdFrom(random: Uint8Array): string {
  return toHex(random.subarray(0, 16)).padEnd(32, '0');
}

/** [PUSH-v3 §5] the assumed token: hex MD5 of RegistryCode + SN + SessionID. The reference only infers
 *  the formula, so a terminal is held to it only once it has sent a matching token (src/devices/trust.ts
 *  binds it then); one that never does stays `serial_only` instead of being locked out. */
export function assumedToken(registryCode: string, sn: string, sessionId: string): string {
  return createHash('md5').update(`${registryCode}${sn}${sessionId}`).digest('hex');
}
