// Attendance PUSH table names, record tags and upload replies [PUSH-v2 §6].
import type { ReplyPlan } from '../codec.js';

/** Record tags at the start of a line [PUSH-v2 §6.4, §6.7, §6.9]; `BIODATA` also in lower case (v3). */
export type Tag = 'OPLOG' | 'USER' | 'FP' | 'FACE' | 'FVEIN' | 'USERPIC' | 'BIOPHOTO' | 'BIODATA' | 'ERRORLOG';

export const TAGS: ReadonlyMap<string, Tag> = new Map<string, Tag>([
  ['OPLOG', 'OPLOG'],
  ['USER', 'USER'],
  ['FP', 'FP'],
  ['FACE', 'FACE'],
  ['FVEIN', 'FVEIN'],
  ['USERPIC', 'USERPIC'],
  ['BIOPHOTO', 'BIOPHOTO'],
  ['BIODATA', 'BIODATA'],
  ['ERRORLOG', 'ERRORLOG'],
]);

/** Tables whose lines may come without their tag, and the tag they imply [PUSH-v2 §6.10]. */
export const DEFAULT_TAG: ReadonlyMap<string, Tag> = new Map<string, Tag>([
  ['USERINFO', 'USER'],
  ['FINGERTMP', 'FP'],
  ['FACE', 'FACE'],
  ['FVEIN', 'FVEIN'],
  ['BIODATA', 'BIODATA'],
  ['USERPIC', 'USERPIC'],
  ['BIOPHOTO', 'BIOPHOTO'],
  ['ERRORLOG', 'ERRORLOG'],
]);

/** Tables decoded as tagged lines (upper-cased names). */
export const TAGGED_TABLES: ReadonlySet<string> = new Set(['OPERLOG', ...DEFAULT_TAG.keys()]);

/** [PUSH-v2 §6.1] `OK: ${n}` for ATTLOG, OPERLOG, BIODATA, IDCARD, USERINFO; `OK` for the rest. */
const COUNTED = new Set(['ATTLOG', 'OPERLOG', 'BIODATA', 'IDCARD', 'USERINFO']);

export function uploadReplyPlan(table: string): ReplyPlan {
  return COUNTED.has(table.toUpperCase()) ? { kind: 'okCount' } : { kind: 'ok' };
}
