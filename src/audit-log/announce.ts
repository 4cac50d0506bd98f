/**
 * Audit entries onto the event feed as `audit.recorded` (issue #36 item 1), after their change is committed,
 * through the bus of the process that made the change (a gateway's feed, or the CLI's, which stores them
 * before the command ends). At most once: a crash after the commit loses the event, never the entry
 * (GET /api/audit is the record).
 */
import type { EventBus } from '../events/bus.js';
import type { AuditEntry } from '../store/ports/index.js';

/** Entries of no location (an unassigned device the admin deleted) have no feed to go to. */
const located = (entries: readonly AuditEntry[]) =>
  entries.filter((e): e is AuditEntry & { location_id: number } => e.location_id !== null);

export function announceAudit(bus: EventBus, entries: readonly AuditEntry[]): void {
  for (const entry of located(entries)) bus.emit('audit.recorded', { location_id: entry.location_id, entry });
}
