/**
 * What a change changed: field → [before, after] of two stored records (issue #36 item 1), under the names the
 * public views use (a token's `hash` is `token`, a device's `comm_key_hash` is `comm_key`). Bookkeeping and
 * internal fields are left out; secrets (tokens, passwords, cards, signing secrets, comm keys, photos, templates)
 * are never copied, only marked `"(changed)"`.
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
  // Internal to a terminal's registration and a webhook's secret rotation: no field of any public view.
  'registry_code',
  'session_id',
  'token_bound_at',
  'token_bound_address',
  'registration_accepted_at',
  'previous_secret',
  'previous_valid_until',
  'idempotency_key',
  'sync_key',
]);

/** Stored names that the public views call otherwise (the store keeps a hash of what the caller gave). */
const PUBLIC_NAMES: Readonly<Record<string, string>> = { comm_key_hash: 'comm_key', hash: 'token', token_hash: 'token' };

/** Fields whose values must never reach the log. */
const SECRETS = new Set(['token', 'password', 'card_no', 'secret', 'comm_key', 'format_options', 'headers', 'photo', 'templates']);

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
    const name = PUBLIC_NAMES[key] ?? key;
    changes[name] = SECRETS.has(name) ? CHANGED : [was, is];
  }
  return changes;
}
