/**
 * Writing users one at a time or by PIN list, with their sync effects: the store write, the
 * outbox flush that queues the devices' ops and announces `user.changed`. REST and the
 * CLI call these; they only parse requests and render views.
 */
import { BioGateError } from '../errors.js';
import type { Location, User } from '../store/ports/index.js';
import type { SyncCounts } from '../sync/queue.js';
import { compiled, issuesFrom } from '../validation/schema.js';
import { flushOutbox, type UsersDeps } from './effects.js';
import { unknownLevels } from './access.js';
import { unknownAreas } from './areas.js';
import { checkUserFields } from './input.js';
import { UserWrite } from './schemas.js';
import { DEFAULT_QUOTAS, quotaExceeded, userRoom } from '../locations/quotas.js';

const notFound = (pin: number) => new BioGateError('USER_NOT_FOUND', `User ${pin} not found`);

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
  issues.push(...(await unknownAreas(deps.store, location.id, checked.fields.areas, ['body', 'areas'])));
  issues.push(...(await unknownLevels(deps.store, location.id, checked.fields.access_levels, ['body', 'access_levels'])));
  if (issues.length > 0 || pin === undefined) throw new BioGateError('VALIDATION_FAILED', issues);
  const quota = deps.quotaUsers ?? DEFAULT_QUOTAS.users;
  if (!before && (await userRoom(deps.store, location.id, quota)) === 0) throw quotaExceeded('users', quota);
  const result = await deps.store.users.upsert(location.id, pin, checked.fields, deps.clock.now().toISOString());
  await flushOutbox(deps, location.id, [pin]);
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
  const counts = flushed.devices > 0 ? flushed : { ...flushed, devices: (await deps.store.devices.listAssigned(location.id)).length };
  return { cleared, counts };
}

/** Deletes a user and queues its deletion from the devices. @throws USER_NOT_FOUND */
export async function deleteUser(deps: UsersDeps, location: Location, pin: number): Promise<void> {
  const user = await deps.store.users.delete(location.id, pin, deps.clock.now().toISOString());
  // A retried DELETE whose delete was committed but whose ops were not queued converges: the
  // outbox entry outlives the user until they are.
  if (!user && (await deps.store.syncOutbox.get(location.id, [pin])).length === 0) throw notFound(pin);
  await flushOutbox(deps, location.id, [pin]);
}

/** One stored user. @throws USER_NOT_FOUND */
export async function getUser(deps: Pick<UsersDeps, 'store'>, location: Location, pin: number): Promise<User> {
  const user = await deps.store.users.get(location.id, pin);
  if (!user) throw notFound(pin);
  return user;
}
