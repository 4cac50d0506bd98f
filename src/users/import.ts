/**
 * Importing users in bulk (`biogate users import` and its REST twin, the users' import endpoint):
 * each item is validated on its own, the good ones are upserted in chunks, and the device fan-out
 * goes through the sync outbox.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { BioGateError, type ValidationIssue } from '../errors.js';
import type { Location, User, UserFields } from '../store/ports/index.js';
import { compiled, issuesFrom } from '../validation/schema.js';
import { outboxOf, type UsersDeps } from './effects.js';
import { toUserFields } from './input.js';
import { announceOffTerminalChanges, ensureOrgNames } from './org-names.js';
import { ImportItem } from './schemas.js';
import { DEFAULT_QUOTAS, quotaExceeded, userRoom } from '../locations/quotas.js';

/** Most items one import takes (PAYLOAD_TOO_LARGE beyond). */
export const IMPORT_MAX_ITEMS = 10_000;

/** Items read from the store and written at once. */
const CHUNK = 500;

export interface ImportOutcome {
  readonly processed: User[];
  readonly errors: { user_data: unknown; error: string; code: string }[];
}

/**
 * Validates each item on its own and upserts the good ones (API import and CLI import share this).
 * `dryRun` (the CLI's `--dry-run`) runs every check, against the users already stored, and writes nothing.
 */
export async function importUsers(
  deps: UsersDeps,
  location: Location,
  items: readonly unknown[],
  onProgress?: (done: number) => void,
  options: { dryRun?: boolean } = {},
): Promise<ImportOutcome> {
  const validator = compiled(ImportItem);
  // Kept with the item's index: errors are reported in input order, whichever check found them.
  const errors: (ImportOutcome['errors'][number] & { index: number })[] = [];
  const valid: { index: number; item: Record<string, unknown>; pin: number }[] = [];
  items.forEach((item, index) => {
    const issues = issuesFrom(validator, item, [index]);
    if (issues.length > 0) return errors.push({ index, user_data: item, error: describeIssues(issues), code: 'VALIDATION_FAILED' });
    const record = item as Record<string, unknown>;
    const pin = typeof record['pin'] === 'string' ? Number(record['pin'].trim()) : (record['pin'] as number);
    if (pin < 1) return errors.push({ index, user_data: item, error: 'pin: must be between 1 and 99999999', code: 'VALIDATION_FAILED' });
    valid.push({ index, item: record, pin });
  });
  const processed: User[] = [];
  // BIOGATE_QUOTA_USERS: PINs new to the location beyond the room left are per-item errors; updates still apply.
  const quota = deps.quotaUsers ?? DEFAULT_QUOTAS.users;
  let room = await userRoom(deps.store, location.id, quota);
  const added = new Set<number>();
  for (let i = 0; i < valid.length; i += CHUNK) {
    const chunk = valid.slice(i, i + CHUNK);
    const existing = new Map((await deps.store.users.getMany(location.id, [...new Set(chunk.map((c) => c.pin))])).map((u) => [u.pin, u]));
    // The areas the chunk names, checked at once: an item naming an area the location lacks is an error of its own.
    const named = chunk.flatMap((c) => (Array.isArray(c.item['areas']) ? (c.item['areas'] as number[]) : []));
    const known = new Set(named.length > 0 ? await deps.store.areas.existing(location.id, named) : []);
    const levels = chunk.flatMap((c) => (Array.isArray(c.item['access_levels']) ? (c.item['access_levels'] as number[]) : []));
    const knownLevels = new Set(levels.length > 0 ? (await deps.store.accessLevels.getMany(location.id, levels)).map((l) => l.id) : []);
    const writes: { pin: number; fields: UserFields }[] = [];
    // A PIN written earlier in the batch exists by the time a later item is written, with the
    // validity window that item left (the later item's order check runs against it).
    const windows = new Map<number, { start_time: string | null; end_time: string | null }>();
    for (const c of chunk) {
      try {
        const seen = windows.get(c.pin) ?? existing.get(c.pin);
        const fields = toUserFields({ ...c.item, pin: c.pin }, seen, []);
        const unknown = (fields.areas ?? []).filter((a) => !known.has(a));
        if (unknown.length > 0) throw new BioGateError('VALIDATION_FAILED', `areas: no area ${unknown.join(', ')} in this location`);
        const unknownLevel = (fields.access_levels ?? []).filter((l) => !knownLevels.has(l));
        if (unknownLevel.length > 0)
          throw new BioGateError('VALIDATION_FAILED', `access_levels: no access level ${unknownLevel.join(', ')} in this location`);
        if (!existing.has(c.pin) && !added.has(c.pin)) {
          if (room === 0) throw quotaExceeded('users', quota);
          room--;
          added.add(c.pin);
        }
        writes.push({ pin: c.pin, fields });
        windows.set(c.pin, {
          start_time: fields.start_time !== undefined ? fields.start_time : (seen?.start_time ?? null),
          end_time: fields.end_time !== undefined ? fields.end_time : (seen?.end_time ?? null),
        });
      } catch (err) {
        const detail = err instanceof BioGateError ? err.detail : String(err);
        errors.push({
          index: c.index,
          user_data: c.item,
          error: typeof detail === 'string' ? detail : describeIssues(detail),
          code: err instanceof BioGateError ? err.code : 'INTERNAL',
        });
      }
    }
    if (!options.dryRun) {
      const now = deps.clock.now().toISOString();
      await ensureOrgNames(
        deps.store,
        location.id,
        writes.map((w) => w.fields),
        now,
      );
      const results = await deps.store.users.upsertMany(location.id, writes, now);
      processed.push(...results.map((r) => r.user));
      await announceOffTerminalChanges(deps, location.id, results);
    }
    onProgress?.(Math.min(items.length, i + chunk.length + errors.length));
    // Other requests run between chunks (an embedded store answers without leaving the event loop).
    await yieldToLoop();
  }
  // The device fan-out (up to 10,000 users × every device) is the outbox's: in the background
  // when a server runs it, else (CLI) before returning.
  if (!options.dryRun) {
    if (deps.outbox) deps.outbox.kick();
    else await outboxOf(deps).drain();
  }
  errors.sort((x, y) => x.index - y.index);
  deps.log?.info(
    { location_id: location.id, items: items.length, written: processed.length, errors: errors.length, dry_run: options.dryRun === true },
    'users imported',
  );
  return { processed, errors: errors.map(({ index: _index, ...e }) => e) };
}

function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => `${i.loc.filter((p) => typeof p === 'string').join('.') || 'item'}: ${i.msg}`).join('; ');
}
