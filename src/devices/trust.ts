/**
 * Device trust [API-CONTRACT §6, README "Security model"]: a serial number is printed on the label, so
 * it proves nothing. What BioGate checks, in order, for a known serial:
 * 1. the IP allow-list of the device, when it has one (socket address);
 * 2. the comm key, when the device was assigned with one (`ComKey` or `pushcommkey` in the query
 *    [PUSH-v2 §2.9], or `authKey` in the v3 registration body [PUSH-v3 §3.1]); BioGate stores only its
 *    SHA-256 and compares in constant time; wrong keys are throttled per serial (throttle.ts);
 * 3. the registration token [PUSH-v3 §5]: once a v3 terminal has presented `Cookie: token=` matching the
 *    registry code and session BioGate issued to it, every later request must carry it. Binding only
 *    after a first match keeps terminals working whose firmware sends no token or computes it otherwise
 *    (the formula is inferred, PUSH-v3 §5): they stay `serial_only`, visible in GET /api/devices.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { assumedToken, type DecodeResult, type WireRequest } from '../../protocols/index.js';
import type { Device } from '../store/ports/index.js';
import { inNetworks } from './networks.js';
import type { CommKeyThrottle } from './throttle.js';

const KEY_PARAMS = new Set(['comkey', 'pushcommkey']);

export const hashCommKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** The comm key a request carries, if any. */
export function presentedCommKey(wire: WireRequest, decoded: DecodeResult): string | undefined {
  for (const [k, v] of Object.entries(wire.query)) if (KEY_PARAMS.has(k.toLowerCase()) && v !== '') return v;
  for (const event of decoded.events) {
    if (event.type === 'registration') {
      const key = event.options.values['authKey'];
      if (key !== undefined && key !== '') return key;
    }
  }
  return undefined;
}

/** Equal-length digests compared in constant time. */
function sameDigest(expectedHex: string, actualHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  const actual = Buffer.from(actualHex, 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function commKeyMatches(device: Device & { comm_key_hash: string }, key: string | undefined): boolean {
  return key !== undefined && sameDigest(device.comm_key_hash, hashCommKey(key));
}

/**
 * [PUSH-v3 §5] the token is hex MD5 of RegistryCode + SN + SessionID (case-insensitive hex). Compared as
 * SHA-256 digests so the comparison is constant-time whatever the length the caller sent.
 */
function tokenMatches(device: Device & { registry_code: string; session_id: string }, token: string | null): boolean {
  if (token === null) return false;
  const expected = assumedToken(device.registry_code, device.serial_number, device.session_id).toLowerCase();
  return sameDigest(hashCommKey(expected), hashCommKey(token.toLowerCase()));
}

export type TrustRefusal = 'network' | 'throttled' | 'comm_key' | 'token';

export type TrustVerdict =
  | { readonly ok: true; /** the request presented the registration token first: bind it */ readonly bind: boolean }
  | {
      readonly ok: false;
      readonly reason: TrustRefusal;
      /** wrong comm keys for this serial so far (comm_key only) */ readonly failures?: number;
      readonly blockedMs?: number;
    };

export interface TrustInput {
  readonly wire: WireRequest;
  readonly decoded: DecodeResult;
  readonly remoteAddress: string;
}

/** Whether the request may act for `device` (undefined: a serial BioGate does not know yet). */
export function checkTrust(device: Device | undefined, req: TrustInput, throttle: CommKeyThrottle, nowMs: number): TrustVerdict {
  if (!device) return { ok: true, bind: false };
  if (device.allowed_networks && !inNetworks(req.remoteAddress, device.allowed_networks)) return { ok: false, reason: 'network' };
  if (device.comm_key_hash !== null) {
    if (throttle.blockedFor(device.serial_number, nowMs) > 0) return { ok: false, reason: 'throttled' };
    if (!commKeyMatches(device as Device & { comm_key_hash: string }, presentedCommKey(req.wire, req.decoded))) {
      const { failures, blockedMs } = throttle.failed(device.serial_number, nowMs);
      return { ok: false, reason: 'comm_key', failures, blockedMs };
    }
    throttle.succeeded(device.serial_number);
  }
  if (device.registry_code !== null && device.session_id !== null) {
    const matches = tokenMatches(device as Device & { registry_code: string; session_id: string }, req.decoded.token);
    if (device.token_bound_at !== null) return matches ? { ok: true, bind: false } : { ok: false, reason: 'token' };
    return { ok: true, bind: matches };
  }
  return { ok: true, bind: false };
}
