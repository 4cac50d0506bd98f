/**
 * The department and position names users are given, kept as the location's rows (OrgNamesPort): every name a user
 * holds has its row, made before the user write that sets it (a write that then fails leaves a row no user holds).
 */
import { newMarker } from '../events/outbox.js';
import { ORG_KINDS, type UpsertResult, type UserFields } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import type { UsersDeps } from './effects.js';

/** Makes the rows of the department and position names these writes set (each distinct name once). */
export async function ensureOrgNames(store: Store, locationId: number, writes: readonly UserFields[], now: string): Promise<void> {
  for (const kind of ORG_KINDS) {
    const names = new Set(writes.flatMap((f) => (typeof f[kind] === 'string' ? [f[kind]] : [])));
    for (const name of names) await store.orgNames.ensure(locationId, kind, name, now);
  }
}

/**
 * `user.changed` (upserted) for the users whose write changed only what terminals never hold (department, position):
 * the sync outbox, which announces every other change, owes nothing for them. Stored right after the write, at most
 * once: the change is done, so a feed outage is logged, not thrown.
 */
export async function announceOffTerminalChanges(
  deps: Pick<UsersDeps, 'bus' | 'log'>,
  locationId: number,
  results: readonly UpsertResult[],
): Promise<void> {
  const pins = results.filter((r) => r.changed && !r.synced).map((r) => r.user.pin);
  if (pins.length === 0) return;
  if (!(await deps.bus.emitStored('user.changed', { location_id: locationId, pins, change: 'upserted', feed_event: newMarker() })))
    deps.log?.warn({ location_id: locationId, users: pins.length }, 'user.changed could not be stored in the feed');
}
