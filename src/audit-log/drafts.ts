/** Audit entries as a change's rule describes them, before the store gives them an id, time and actor. */
import type { AuditChange, NewAuditEntry } from '../store/ports/index.js';
import { changesOf } from './changes.js';

export type Draft = Omit<NewAuditEntry, 'at' | 'actor'>;

type Id = string | number;

export const draft = (location_id: number | null, type: string, verb: string, id: Id, changes: Record<string, AuditChange>): Draft => ({
  location_id,
  action: `${type}.${verb}`,
  target: { type, id: String(id) },
  changes,
});

/** A record that did not exist before. */
export const created = (location_id: number | null, type: string, id: Id, record: object): Draft[] => [
  draft(location_id, type, 'created', id, changesOf(null, record)),
];

/** A record changed; nothing when a write left every field as it was (an idempotent repeat). */
export function updated(
  location_id: number | null,
  type: string,
  id: Id,
  before: object | null | undefined,
  after: object,
  verb = 'updated',
): Draft[] {
  const changes = changesOf(before, after);
  return Object.keys(changes).length > 0 ? [draft(location_id, type, verb, id, changes)] : [];
}

/** A record that is gone; nothing when there was none. */
export const deleted = (location_id: number | null, type: string, id: Id, before: object | null | undefined): Draft[] =>
  before ? [draft(location_id, type, 'deleted', id, changesOf(before, null))] : [];
