/**
 * The cluster port on SQLite (see ClusterPort in ../types.ts). SQLite serves one node, so there is
 * no change stream: the feed delivers this node's events in process. Sequences, leases and
 * presence are still kept here, so a restart resumes where the last run stopped.
 */
import { oneLocation, type ClusterPort, type DeviceLease, type StoredEvent } from '../types.js';
import type { Db } from './db.js';

type EventRow = { location_id: number; seq: number; id: string; type: string; at: string; node: string; data: string };
const toEvent = (r: EventRow): StoredEvent => ({ id: r.id, seq: r.seq, location_id: r.location_id, type: r.type, at: r.at, node: r.node, data: JSON.parse(r.data) as unknown });

export function sqliteCluster(db: Db): ClusterPort {
  const takeSeqs = db.prepare(
    'INSERT INTO event_seqs (location_id, seq) VALUES (?, ?) ON CONFLICT (location_id) DO UPDATE SET seq = seq + excluded.seq RETURNING seq',
  );
  const insertEvent = db.prepare('INSERT INTO events (location_id, seq, id, type, at, node, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const append = db.transaction((events: readonly Omit<StoredEvent, 'seq'>[]): StoredEvent[] => {
    const locationId = oneLocation(events);
    const { seq: last } = takeSeqs.get(locationId, events.length) as { seq: number };
    return events.map((e, i) => {
      const seq = last - events.length + 1 + i;
      insertEvent.run(e.location_id, seq, e.id, e.type, e.at, e.node, JSON.stringify(e.data));
      return { ...e, seq };
    });
  });
  const leaseOf = db.prepare('SELECT owner_node, lease_until, presence FROM devices WHERE serial_number = ?');
  return {
    async appendEvents(events) {
      return events.length === 0 ? [] : append.immediate(events);
    },
    async eventsAfter(locationId, after, limit) {
      return (db.prepare('SELECT * FROM events WHERE location_id = ? AND seq > ? ORDER BY seq LIMIT ?').all(locationId, after, limit) as EventRow[]).map(toEvent);
    },
    async latestSeqs() {
      const rows = db.prepare('SELECT location_id, seq FROM event_seqs').all() as { location_id: number; seq: number }[];
      return new Map(rows.map((r) => [r.location_id, r.seq]));
    },
    async pruneEvents(before, keep) {
      return db
        .prepare('DELETE FROM events WHERE at < ? AND seq <= (SELECT s.seq - ? FROM event_seqs s WHERE s.location_id = events.location_id)')
        .run(before, keep).changes;
    },
    async watchEvents() {
      return undefined;
    },
    async acquireLease(name, node, now, until) {
      const r = db
        .prepare(
          `INSERT INTO leases (name, owner_node, lease_until) VALUES (?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET owner_node = excluded.owner_node, lease_until = excluded.lease_until
           WHERE leases.owner_node = excluded.owner_node OR leases.lease_until < ?`,
        )
        .run(name, node, until, now);
      return r.changes === 1;
    },
    async releaseLease(name, node) {
      db.prepare('DELETE FROM leases WHERE name = ? AND owner_node = ?').run(name, node);
    },
    async claimDevice(sn, node, until) {
      return db.transaction(() => {
        const before = leaseOf.get(sn) as DeviceLease | undefined;
        if (before) db.prepare('UPDATE devices SET owner_node = ?, lease_until = ? WHERE serial_number = ?').run(node, until, sn);
        return before && { ...before };
      }).immediate();
    },
    async deviceLease(sn) {
      const r = leaseOf.get(sn) as DeviceLease | undefined;
      return r && { ...r };
    },
    async setPresence(sn, to) {
      return db.prepare('UPDATE devices SET presence = ? WHERE serial_number = ? AND (presence IS NULL OR presence <> ?)').run(to, sn, to).changes === 1;
    },
    async staleOnline(before, now, limit) {
      return db
        .prepare(
          `SELECT serial_number AS sn, location_id FROM devices
           WHERE presence = 'online' AND (last_seen IS NULL OR last_seen < ?) AND (lease_until IS NULL OR lease_until < ?)
           ORDER BY last_seen LIMIT ?`,
        )
        .all(before, now, limit) as { sn: string; location_id: number | null }[];
    },
  };
}
