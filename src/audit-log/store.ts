/**
 * The audited store (issue #36 item 1): the store with the writes of ./rules.ts recording, while a door's
 * actor is acting (./actor.ts), one entry per change.
 *
 * Invariants:
 * - An entry is appended in the same transaction as its change, after it (Store.atomic): a change that fails
 *   appends nothing. SQLite: both or neither (an entry that cannot be written undoes its change). MongoDB (no
 *   multi-document transactions): the entry right after the change, so a crash between them loses the entry,
 *   never invents one.
 * - Outside an acting scope a write is the store's own, read of nothing more.
 * - The scope is told of the entries after the unit commits (the feed's `audit.recorded`).
 */
import type { Clock } from '../clock.js';
import type { AuditEntry } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { actingScope } from './actor.js';
import { auditedPorts, type Record } from './rules.js';

export function withAuditLog(store: Store, clock: Clock): Store {
  const record: Record = async (read, change, describe) => {
    const scope = actingScope();
    if (!scope) return change();
    let entries: readonly AuditEntry[] = [];
    const result = await store.atomic(async () => {
      const before = await read();
      const result = await change();
      const drafts = describe(result, before);
      if (drafts.length > 0) {
        const at = clock.now().toISOString();
        entries = await store.auditLog.append(drafts.map((d) => ({ ...d, at, actor: scope.actor })));
      }
      return result;
    });
    if (entries.length > 0) scope.announce?.(entries);
    return result;
  };
  // The aggregate's own methods (unitOfWork, isolated, ping, close) stay bound to the store they belong to.
  return Object.assign(Object.create(store) as Store, auditedPorts(store, record));
}
