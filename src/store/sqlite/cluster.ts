/**
 * The cluster port on SQLite (see ClusterPort in ../ports/cluster.ts). SQLite serves one gateway, but other
 * processes write to the same file: the CLI (`biogate command send`, `users import`, `device
 * assign`, `location update`, …) appends its events to the feed like a node would. `watchEvents`
 * hands those to the gateway: every WATCH_MS it asks SQLite whether another connection committed
 * (`PRAGMA data_version`, a read of the shared-memory header, no I/O) and only then reads the events
 * past what it has seen. So the feed is complete on SQLite too, and what the gateway keeps in memory
 * on its word (idle-poll snapshots, held polls without store re-checks) stays right.
 * Sequences, leases and presence are kept here, so a restart resumes where the last run stopped.
 */
import {
  EVENT_PRUNE_BATCH,
  oneLocation,
  prunablePrefix,
  type ClusterPort,
  type DeviceLease,
  type OutboxSettle,
  type StoredEvent,
} from '../ports/index.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

/** How often a watch asks whether another process wrote: the delay of a CLI change reaching the gateway. */
export const WATCH_MS = 100;
const WATCH_PAGE = 500;

type EventRow = { location_id: number; seq: number; id: string; type: string; at: string; node: string; data: string };
const toEvent = (r: EventRow): StoredEvent => ({
  id: r.id,
  seq: r.seq,
  location_id: r.location_id,
  type: r.type,
  at: r.at,
  node: r.node,
  data: JSON.parse(r.data) as unknown,
});

export function sqliteCluster(db: Db): ClusterPort {
  const takeSeqs = db.prepare(
    'INSERT INTO event_seqs (location_id, seq) VALUES (?, ?) ON CONFLICT (location_id) DO UPDATE SET seq = seq + excluded.seq RETURNING seq',
  );
  const insertEvent = db.prepare('INSERT INTO events (location_id, seq, id, type, at, node, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const rows = 'id IN (SELECT value FROM json_each(?))';
  // Prepared once per text (a batch of command results settles hundreds of rows in one append).
  const statements = new Map<string, Statement>();
  const stmt = (sql: string): Statement => {
    let st = statements.get(sql);
    if (!st) statements.set(sql, (st = db.prepare(sql)));
    return st;
  };
  // The range of a punch write (migration 45) holding the settle's first id: the whole write's, or what retention
  // left of it (a sweep offers the rows still there).
  const dropOwed = db.prepare(
    'DELETE FROM attendance_owed WHERE first_id = (SELECT MAX(first_id) FROM attendance_owed WHERE first_id <= @id) AND last_id >= @id RETURNING first_id',
  );
  /** Settles a punch write owed as a range; false when none holds it (rows marked before migration 45, or stored before). */
  const settleRange = (s: OutboxSettle): boolean =>
    s.ids.length > 0 && dropOwed.get({ id: s.ids.reduce((a, b) => Math.min(a, b)) }) !== undefined;
  /**
   * Clears the settles' markers, one UPDATE per table and marker (a batch of sync ops shares its
   * write's marker); returns the events stored before (see OutboxSettle.marker): marked settles none of
   * whose rows it cleared and none of whose rows carries a newer marker.
   */
  const settleAll = (settle: readonly OutboxSettle[]): Set<string> => {
    const groups = new Map<string, OutboxSettle[]>();
    for (const s of settle) {
      if (s.table === 'attendance' && settleRange(s)) continue;
      if (s.ids.length === 0) continue;
      const key = `${s.table}\u0000${s.marker ?? ''}`;
      const group = groups.get(key);
      if (group) group.push(s);
      else groups.set(key, [s]);
    }
    const before = new Set<string>();
    for (const group of groups.values()) {
      const { table, marker } = group[0] as OutboxSettle;
      const list = JSON.stringify(group.flatMap((s) => s.ids));
      const cleared = new Set(
        (marker === undefined
          ? stmt(`UPDATE ${table} SET feed_event = NULL WHERE ${rows} AND feed_event IS NOT NULL RETURNING id`).all(list)
          : stmt(`UPDATE ${table} SET feed_event = NULL WHERE ${rows} AND feed_event = ? RETURNING id`).all(list, marker)
        ).map((r) => (r as { id: number }).id),
      );
      for (const s of group) {
        if (s.ids.some((id) => cleared.has(id))) continue;
        // Written again under a newer marker before this event was stored: it is owed as well.
        const newer =
          marker !== undefined &&
          stmt(`SELECT 1 FROM ${table} WHERE ${rows} AND feed_event IS NOT NULL LIMIT 1`).get(JSON.stringify(s.ids)) !== undefined;
        if (!newer) before.add(s.event);
      }
    }
    return before;
  };
  // The outbox markers are cleared in the same transaction as the events are stored: an event whose
  // rows carry no marker any more was stored before, and is not stored twice.
  const append = db.transaction((all: readonly Omit<StoredEvent, 'seq'>[], settle: readonly OutboxSettle[]): StoredEvent[] => {
    const before = settleAll(settle);
    const events = before.size === 0 ? all : all.filter((e) => !before.has(e.id));
    if (events.length === 0) return [];
    const locationId = oneLocation(events);
    const { seq: last } = takeSeqs.get(locationId, events.length) as { seq: number };
    return events.map((e, i) => {
      const seq = last - events.length + 1 + i;
      insertEvent.run(e.location_id, seq, e.id, e.type, e.at, e.node, JSON.stringify(e.data));
      return { ...e, seq };
    });
  });
  const leaseOf = db.prepare('SELECT owner_node, lease_until, presence FROM devices WHERE serial_number = ?');
  const after = db.prepare('SELECT * FROM events WHERE location_id = ? AND seq > ? ORDER BY seq LIMIT ?');
  const seqs = db.prepare('SELECT location_id, seq FROM event_seqs');
  const oldest = db.prepare('SELECT seq, at FROM events WHERE location_id = ? AND seq <= ? ORDER BY seq LIMIT ?');
  const dropUpTo = db.prepare('DELETE FROM events WHERE location_id = ? AND seq <= ?');
  /**
   * Per location, the last seq an open watch has accounted for: read by it, or appended here right
   * after it (this connection's own events are delivered in process; read again, they would only be
   * dropped as seen). Empty while no watch is open.
   */
  const watched = new Map<number, number>();
  let watches = 0;
  return {
    async appendEvents(events, settle = []) {
      if (events.length === 0 && settle.length === 0) return [];
      const stored = append.immediate(events, settle);
      const first = stored[0];
      if (!first) return stored;
      // Contiguous with what the watch saw: nobody else appended in between, skip them there.
      if (watches > 0 && watched.get(first.location_id) === first.seq - 1) watched.set(first.location_id, first.seq + stored.length - 1);
      return stored;
    },
    async eventsAfter(locationId, from, limit) {
      return (after.all(locationId, from, limit) as EventRow[]).map(toEvent);
    },
    async latestSeqs() {
      const rows = db.prepare('SELECT location_id, seq FROM event_seqs').all() as { location_id: number; seq: number }[];
      return new Map(rows.map((r) => [r.location_id, r.seq]));
    },
    async pruneEvents(before, keep, options = {}) {
      const limit = options.limit ?? EVENT_PRUNE_BATCH;
      let deleted = 0;
      for (const { location_id, seq } of seqs.all() as { location_id: number; seq: number }[]) {
        if (deleted >= limit) break;
        if (seq - keep <= 0) continue;
        // One bounded read and one bounded delete per location (the primary key range): never a table-wide DELETE.
        const rows = oldest.all(location_id, seq - keep, limit - deleted) as { seq: number; at: string }[];
        const last = prunablePrefix(rows, before, options.holds?.get(location_id), options.hardBefore);
        if (last !== null) deleted += dropUpTo.run(location_id, last).changes;
      }
      return deleted;
    },
    async watchEvents(onEvent, onError, onOtherWrite) {
      const version = db.prepare('PRAGMA data_version').pluck();
      const latest = () => seqs.all() as { location_id: number; seq: number }[];
      for (const r of latest()) watched.set(r.location_id, Math.max(watched.get(r.location_id) ?? 0, r.seq));
      let seenVersion = version.get();
      watches++;
      const look = () => {
        if (!db.open) return;
        try {
          const v = version.get();
          if (v === seenVersion) return;
          seenVersion = v;
          for (const { location_id, seq } of latest()) {
            for (let from = watched.get(location_id) ?? 0; from < seq;) {
              const page = (after.all(location_id, from, WATCH_PAGE) as EventRow[]).map(toEvent);
              if (page.length === 0) break; // taken and not yet written (or pruned): the feed's gap handling decides
              for (const e of page) onEvent(e);
              from = (page[page.length - 1] as StoredEvent).seq;
              watched.set(location_id, from);
            }
          }
          onOtherWrite?.();
        } catch (err) {
          onError(err);
        }
      };
      const timer = setInterval(look, WATCH_MS);
      timer.unref();
      let open = true;
      return {
        async close() {
          if (!open) return;
          open = false;
          clearInterval(timer);
          if (--watches === 0) watched.clear();
        },
        catchUp: () => {
          if (open) look();
        },
      };
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
      return db
        .transaction(() => {
          const before = leaseOf.get(sn) as DeviceLease | undefined;
          if (before) db.prepare('UPDATE devices SET owner_node = ?, lease_until = ? WHERE serial_number = ?').run(node, until, sn);
          return before && { ...before };
        })
        .immediate();
    },
    async deviceLease(sn) {
      const r = leaseOf.get(sn) as DeviceLease | undefined;
      return r && { ...r };
    },
    async setPresence(sn, to, marker, now) {
      return (
        db
          .prepare(
            'UPDATE devices SET presence = ?, presence_event = ?, presence_at = ? WHERE serial_number = ? AND (presence IS NULL OR presence <> ?)',
          )
          .run(to, marker ?? null, marker === undefined ? null : (now ?? null), sn, to).changes === 1
      );
    },
    async owePresence(sn, marker, now) {
      return (
        db
          .prepare("UPDATE devices SET presence_event = ?, presence_at = ? WHERE serial_number = ? AND presence = 'online'")
          .run(marker, now, sn).changes === 1
      );
    },
    async presenceAnnounced(sn, marker) {
      db.prepare('UPDATE devices SET presence_event = NULL, presence_at = NULL WHERE serial_number = ? AND presence_event = ?').run(
        sn,
        marker,
      );
    },
    async unannouncedPresence(before, limit) {
      return db
        .prepare(
          `SELECT serial_number AS sn, location_id, presence, presence_event AS marker, presence_at AS at FROM devices
           WHERE presence_event IS NOT NULL AND presence_at < ? ORDER BY presence_at LIMIT ?`,
        )
        .all(before, limit) as { sn: string; location_id: number | null; presence: 'online' | 'offline'; marker: string; at: string }[];
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
