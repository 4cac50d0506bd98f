/**
 * Writing users one at a time or by PIN list, with their sync effects: the store write, the
 * outbox flush that queues the devices' ops and announces `user.changed`. REST and the
 * CLI call these; they only parse requests and render views.
 */
import { BioGateError, type ValidationIssue } from '../errors.js';
import type { Store } from '../store/types.js';
import type { Location, User, UserFields } from '../store/ports/index.js';
import type { SyncCounts } from '../sync/queue.js';
import { compiled, issuesFrom } from '../validation/schema.js';
import { flushOutbox, type UsersDeps } from './effects.js';
import { checkUserFields } from './input.js';
import { announceOffTerminalChanges, ensureOrgNames } from './org-names.js';
import { deletePhotoFiles } from './photo-files.js';
import { UserWrite } from './schemas.js';
import { DEFAULT_QUOTAS, quotaExceeded, userRoom } from '../locations/quotas.js';

const notFound = (pin: number) => new BioGateError('USER_NOT_FOUND', `User ${pin} not found`);

/** The ids a user write names (`areas`, `access_levels`) that are no record of the location, as issues (issue #33). */
async function unknownReferences(store: Store, locationId: number, fields: UserFields): Promise<ValidationIssue[]> {
  const references = [
    { key: 'areas', what: 'area', ids: fields.areas, known: (ids: readonly number[]) => store.areas.existing(locationId, ids) },
    {
      key: 'access_levels',
      what: 'access level',
      ids: fields.access_levels,
      known: async (ids: readonly number[]) => (await store.accessLevels.getMany(locationId, ids)).map((l) => l.id),
    },
  ];
  const issues: ValidationIssue[] = [];
  for (const { key, what, ids, known } of references) {
    if (!ids || ids.length === 0) continue;
    const found = new Set(await known(ids));
    ids.forEach((id, i) => {
      if (!found.has(id)) issues.push({ loc: ['body', key, i], msg: `no ${what} ${id} in this location`, type: 'value_error' });
    });
  }
  return issues;
}

/**
 * Creates or updates the user a raw body names by PIN. Schema problems and the rules that need the
 * stored user (first_name for a new PIN, the validity window) come back in one 422 [API-CONTRACT §3].
 */
export async function upsertUser(
  deps: UsersDeps,
  location: Location,
  raw: Record<string, unknown>,
): Promise<{ user: User; created: boolean }> {
  const issues = issuesFrom(compiled(UserWrite), raw, ['body']);
  const failed = new Set(issues.map((i) => i.loc[1]));
  const pin = failed.has('pin') ? undefined : (raw['pin'] as number);
  const before = pin === undefined ? undefined : await deps.store.users.get(location.id, pin);
  const valid = Object.fromEntries(Object.entries(raw).filter(([k]) => !failed.has(k)));
  const checked = checkUserFields(valid, pin === undefined ? 'unknown' : before, ['body']);
  // A first_name the schema rejected is reported once, by the schema.
  issues.push(...checked.issues.filter((i) => !failed.has(i.loc[1])));
  issues.push(...(await unknownReferences(deps.store, location.id, checked.fields)));
  if (issues.length > 0 || pin === undefined) throw new BioGateError('VALIDATION_FAILED', issues);
  const quota = deps.quotaUsers ?? DEFAULT_QUOTAS.users;
  if (!before && (await userRoom(deps.store, location.id, quota)) === 0) throw quotaExceeded('users', quota);
  const now = deps.clock.now().toISOString();
  await ensureOrgNames(deps.store, location.id, [checked.fields], now);
  const result = await deps.store.users.upsert(location.id, pin, checked.fields, now);
  await flushOutbox(deps, location.id, [pin]);
  await announceOffTerminalChanges(deps, location.id, [result]);
  return { user: result.user, created: result.created };
}

/** Deactivates some users (`pins`) or all (`null`) and queues their deletion from the devices. */
export async function clearUsers(
  deps: UsersDeps,
  location: Location,
  pins: readonly number[] | null,
): Promise<{ cleared: readonly User[]; counts: SyncCounts }> {
  const cleared = await deps.store.users.deactivate(location.id, pins, deps.clock.now().toISOString());
  const clearedPins = cleared.map((u) => u.pin);
  const flushed = await flushOutbox(deps, location.id, clearedPins);
  const counts = flushed.devices > 0 ? flushed : { ...flushed, devices: await deps.store.devices.count(location.id) };
  return { cleared, counts };
}

/** Deletes a user and queues its deletion from the devices. @throws USER_NOT_FOUND */
export async function deleteUser(deps: UsersDeps, location: Location, pin: number): Promise<void> {
  const user = await deps.store.users.delete(location.id, pin, deps.clock.now().toISOString());
  // A retried DELETE whose delete was committed but whose ops were not queued converges: the
  // outbox entry outlives the user until they are.
  if (!user && (await deps.store.syncOutbox.get(location.id, [pin])).length === 0) throw notFound(pin);
  await flushOutbox(deps, location.id, [pin]);
  // The photo's bytes go with the user (a retried DELETE removes what a failed one left).
  await deletePhotoFiles(deps.store, location.id, pin);
}

/** One stored user. @throws USER_NOT_FOUND */
export async function getUser(deps: Pick<UsersDeps, 'store'>, location: Location, pin: number): Promise<User> {
  const user = await deps.store.users.get(location.id, pin);
  if (!user) throw notFound(pin);
  return user;
}
