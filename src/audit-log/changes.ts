/**
 * What a change changed: field → [before, after] of two stored records (issue #36 item 1). Bookkeeping
 * fields are left out; secrets (hashes, passwords, cards, signing secrets, registration codes, photos,
 * templates) are never copied, only marked `"(changed)"`.
 */
import { isDeepStrictEqual } from 'node:util';
import type { AuditChange } from '../store/ports/index.js';

/** Fields that say nothing an operator changed: ids, timestamps the store keeps, outbox markers, counts. */
const BOOKKEEPING = new Set([
  'id',
  'location_id',
  'created_at',
  'updated_at',
  'feed_event',
  'feed_location',
  'cursor',
  'user_count',
  'device_count',
  'last_seen',
  'last_address',
  'state',
]);

/** Fields whose values must never reach the log. */
const SECRETS = new Set([
  'hash',
  'password',
  'card_no',
  'secret',
  'previous_secret',
  'comm_key_hash',
  'registry_code',
  'session_id',
  'format_options',
  'headers',
  'photo',
  'templates',
]);

export const CHANGED = '(changed)';

type Fields = Readonly<Record<string, unknown>>;

/** The fields that differ between `before` and `after` (either may be missing: a creation, a deletion). */
export function changesOf(before: object | null | undefined, after: object | null | undefined): Record<string, AuditChange> {
  const b = (before ?? {}) as Fields;
  const a = (after ?? {}) as Fields;
  const changes: Record<string, AuditChange> = {};
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (BOOKKEEPING.has(key)) continue;
    const was = b[key] ?? null;
    const is = a[key] ?? null;
    if (isDeepStrictEqual(was, is)) continue;
    changes[key] = SECRETS.has(key) ? CHANGED : [was, is];
  }
  return changes;
}
