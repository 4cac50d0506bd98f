/** The sync outbox and job state (see ../ports/sync-outbox.ts and ../ports/jobs.ts). */
import { randomUUID } from 'node:crypto';
import type { JobState, JobsPort, OutboxEntry, SyncOutboxPort } from '../ports/index.js';
import type { Db } from './db.js';

/**
 * Marks users whose sync is owed; called inside the transaction of the user write, so the change
 * and its obligation commit together. A newer mark replaces an older one (new revision).
 */
export function outboxMarker(db: Db): (locationId: number, pin: number, now: string) => void {
  const mark = db.prepare(
    `INSERT INTO sync_outbox (location_id, pin, rev, since) VALUES (?, ?, ?, ?)
     ON CONFLICT (location_id, pin) DO UPDATE SET rev = excluded.rev, since = excluded.since`,
  );
  return (locationId, pin, now) => void mark.run(locationId, pin, randomUUID(), now);
}

export function sqliteSyncOutbox(db: Db): SyncOutboxPort {
  const remove = db.prepare('DELETE FROM sync_outbox WHERE location_id = ? AND pin = ? AND rev = ?');
  return {
    async get(locationId, pins) {
      if (pins.length === 0) return [];
      return db
        .prepare(
          'SELECT location_id, pin, rev, since FROM sync_outbox WHERE location_id = ? AND pin IN (SELECT value FROM json_each(?)) ORDER BY pin',
        )
        .all(locationId, JSON.stringify([...new Set(pins)])) as OutboxEntry[];
    },
    async due(before, limit) {
      return db
        .prepare('SELECT location_id, pin, rev, since FROM sync_outbox WHERE since <= ? ORDER BY since, location_id, pin LIMIT ?')
        .all(before, limit) as OutboxEntry[];
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
