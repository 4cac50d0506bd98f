/** The sync outbox and job state (see ../ports/sync-outbox.ts and ../ports/jobs.ts). */
import { randomUUID } from 'node:crypto';
import type { JobState, JobsPort, OutboxEntry, SyncOutboxPort } from '../ports/index.js';
import type { Db } from './db.js';

/**
 * Marks users whose sync is owed; called inside the transaction of the user write, so the change
 * and its obligation commit together. A newer mark replaces an older one (new revision).
 */
export function outboxMarker(db: Db): (locationId: number, pin: number, now: string, left?: readonly number[]) => void {
  // `areas`: the union of the areas the user left since the entry was marked (OutboxEntry.areas).
  const mark = db.prepare(
    `INSERT INTO sync_outbox (location_id, pin, rev, since, areas) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (location_id, pin) DO UPDATE SET rev = excluded.rev, since = excluded.since,
       areas = CASE WHEN excluded.areas IS NULL THEN sync_outbox.areas WHEN sync_outbox.areas IS NULL THEN excluded.areas
         ELSE (SELECT json_group_array(value) FROM (SELECT value FROM json_each(sync_outbox.areas) UNION SELECT value FROM json_each(excluded.areas))) END`,
  );
  return (locationId, pin, now, left) =>
    void mark.run(locationId, pin, randomUUID(), now, left === undefined || left.length === 0 ? null : JSON.stringify(left));
}

type EntryRow = Omit<OutboxEntry, 'areas'> & { areas: string | null };
const toEntry = ({ areas, ...e }: EntryRow): OutboxEntry => (areas === null ? e : { ...e, areas: JSON.parse(areas) as number[] });

export function sqliteSyncOutbox(db: Db): SyncOutboxPort {
  const remove = db.prepare('DELETE FROM sync_outbox WHERE location_id = ? AND pin = ? AND rev = ?');
  return {
    async get(locationId, pins) {
      if (pins.length === 0) return [];
      return db
        .prepare(
          'SELECT location_id, pin, rev, since, areas FROM sync_outbox WHERE location_id = ? AND pin IN (SELECT value FROM json_each(?)) ORDER BY pin',
        )
        .all(locationId, JSON.stringify([...new Set(pins)]))
        .map((r) => toEntry(r as EntryRow));
    },
    async due(before, limit) {
      return db
        .prepare('SELECT location_id, pin, rev, since, areas FROM sync_outbox WHERE since <= ? ORDER BY since, location_id, pin LIMIT ?')
        .all(before, limit)
        .map((r) => toEntry(r as EntryRow));
    },
    async done(entries) {
      return db.transaction(() => entries.filter((e) => remove.run(e.location_id, e.pin, e.rev).changes === 0)).immediate();
    },
  };
}

export function sqliteJobs(db: Db): JobsPort {
  return {
    async get(name) {
      return db.prepare('SELECT name, mark, updated_at FROM job_state WHERE name = ?').get(name) as JobState | undefined;
    },
    async advance(name, from, to, now) {
      if (from === null)
        return (
          db.prepare('INSERT INTO job_state (name, mark, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING').run(name, to, now)
            .changes === 1
        );
      return db.prepare('UPDATE job_state SET mark = ?, updated_at = ? WHERE name = ? AND mark = ?').run(to, now, name, from).changes === 1;
    },
  };
}
