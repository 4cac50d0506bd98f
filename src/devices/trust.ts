/**
 * Device trust [API-CONTRACT §6]: a serial number is printed on the label, so it proves nothing. A
 * device assigned with a comm key must present that key on every request (`ComKey` or
 * `pushcommkey` in the query [PUSH-v2 §2.9], or `authKey` in the v3 registration body
 * [PUSH-v3 §3.1]); BioGate stores only its SHA-256 and compares in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { DecodeResult, WireRequest } from '../../protocols/index.js';
import type { Device } from '../store/types.js';

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

/** Whether the request may act for `device`: always without a comm key, else only with the right one. */
export function trusted(device: Device | undefined, wire: WireRequest, decoded: DecodeResult): boolean {
  if (!device?.comm_key_hash) return true;
  const key = presentedCommKey(wire, decoded);
  if (key === undefined) return false;
  const expected = Buffer.from(device.comm_key_hash, 'hex');
  const actual = Buffer.from(hashCommKey(key), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
