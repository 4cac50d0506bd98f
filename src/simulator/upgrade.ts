// UPGRADE, the same three methods in both dialects [COMMANDS §4.22, PUSH-v3 §11.7].

import { createHash } from 'node:crypto';
import type { ExecutorIo } from './execution.js';
import { field, parseCommaFields, parseIntStrict } from './wire-text.js';

export interface UpgradeCodes {
  /** missing or malformed checksum / url / size */
  readonly badParams: number;
  /** the firmware could not be downloaded */
  readonly fetchFailed: number;
}

/** −19 checksum error, −20 received length ≠ declared length [PUSH-v3 §12]. */
const CHECKSUM_ERROR = -19;
const LENGTH_ERROR = -20;

const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex');

/** Download and check the firmware; 0 on success (the device then restarts).
 *  Method 1 serves base64 text; whether size and checksum refer to the file or to the text is open
 *  [COMMANDS §8 q7], so either matches. */
export async function runUpgrade(args: string, io: ExecutorIo, codes: UpgradeCodes): Promise<number> {
  const f = parseCommaFields(args);
  const checksum = field(f, 'checksum');
  const url = field(f, 'url');
  const size = parseIntStrict(field(f, 'size'));
  if (
    f.malformed ||
    checksum === undefined ||
    !/^[0-9A-Fa-f]{32}$/.test(checksum) ||
    url === undefined ||
    url === '' ||
    size === undefined ||
    size < 0
  ) {
    return codes.badParams;
  }
  const raw = field(f, 'type') === '1';
  const direct = field(f, 'supportsubcontracting') === '1';
  const content = await io.download(url, direct);
  if (content === null) return codes.fetchFailed;
  const candidates = raw || direct ? [content] : [content, Buffer.from(content.toString('latin1'), 'base64')];
  if (!candidates.some((c) => c.length === size)) return LENGTH_ERROR;
  if (!candidates.some((c) => md5(c) === checksum.toLowerCase())) return CHECKSUM_ERROR;
  return 0;
}
