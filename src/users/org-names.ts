/**
 * The department and position names users are given, kept as the location's rows (OrgNamesPort): every name a user
 * holds has its row, made before the user write that sets it (a write that then fails leaves a row no user holds).
 */
import { ORG_KINDS, type UserFields } from '../store/ports/index.js';
import type { Store } from '../store/types.js';

/** Makes the rows of the department and position names these writes set (each distinct name once). */
export async function ensureOrgNames(store: Store, locationId: number, writes: readonly UserFields[], now: string): Promise<void> {
  for (const kind of ORG_KINDS) {
    const names = new Set(writes.flatMap((f) => (typeof f[kind] === 'string' ? [f[kind]] : [])));
    for (const name of names) await store.orgNames.ensure(locationId, kind, name, now);
  }
}
