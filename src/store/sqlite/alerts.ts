/** Alert rules and open incidents on SQLite (AlertsPort in ../ports/alerts.ts); an incident's primary key (rule, key) makes raise a compare-and-set. */
import type { AlertIncident, AlertKind, AlertRule, AlertsPort } from '../ports/index.js';
import type { Db } from './db.js';

type Row = Record<string, unknown>;

const toRule = (r: Row): AlertRule => ({
  id: r['id'] as number,
  location_id: r['location_id'] as number,
  name: r['name'] as string,
  kind: r['kind'] as AlertKind,
  params: JSON.parse(r['params'] as string) as Record<string, number>,
  webhook_id: (r['webhook_id'] as number | null) ?? null,
  enabled: r['enabled'] === 1,
  created_at: r['created_at'] as string,
  updated_at: (r['updated_at'] as string | null) ?? null,
});

const toIncident = (r: Row): AlertIncident => ({
  rule_id: r['rule_id'] as number,
  location_id: r['location_id'] as number,
  key: r['key'] as string,
  since: r['since'] as string,
  detail: JSON.parse(r['detail'] as string) as Record<string, unknown>,
});

export function sqliteAlerts(db: Db): AlertsPort {
  const one = db.prepare('SELECT * FROM alert_rules WHERE location_id = ? AND id = ?');
  return {
    async list(locationId) {
      return (db.prepare('SELECT * FROM alert_rules WHERE location_id = ? ORDER BY id').all(locationId) as Row[]).map(toRule);
    },
    async get(locationId, id) {
      const r = one.get(locationId, id) as Row | undefined;
      return r ? toRule(r) : undefined;
    },
    async count(locationId) {
      return (db.prepare('SELECT COUNT(*) AS n FROM alert_rules WHERE location_id = ?').get(locationId) as { n: number }).n;
    },
    async create(locationId, f, now) {
      const r = db
        .prepare(
          'INSERT INTO alert_rules (location_id, name, kind, params, webhook_id, enabled, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
        )
        .get(locationId, f.name, f.kind, JSON.stringify(f.params), f.webhook_id, f.enabled ? 1 : 0, now) as Row;
      return toRule(r);
    },
    async update(locationId, id, f, now) {
      return db
        .transaction(() => {
          const before = one.get(locationId, id) as Row | undefined;
          if (!before) return undefined;
          // A rule whose condition changed starts afresh: its open incidents were about the old one.
          if (before['kind'] !== f.kind || before['params'] !== JSON.stringify(f.params) || (before['enabled'] === 1) !== f.enabled)
            db.prepare('DELETE FROM alert_incidents WHERE rule_id = ?').run(id);
          const r = db
            .prepare(
              'UPDATE alert_rules SET name = ?, kind = ?, params = ?, webhook_id = ?, enabled = ?, updated_at = ? WHERE location_id = ? AND id = ? RETURNING *',
            )
            .get(f.name, f.kind, JSON.stringify(f.params), f.webhook_id, f.enabled ? 1 : 0, now, locationId, id) as Row;
          return toRule(r);
        })
        .immediate();
    },
    async delete(locationId, id) {
      return db
        .transaction(() => {
          const gone = db.prepare('DELETE FROM alert_rules WHERE location_id = ? AND id = ?').run(locationId, id).changes > 0;
          if (gone) db.prepare('DELETE FROM alert_incidents WHERE rule_id = ?').run(id);
          return gone;
        })
        .immediate();
    },
    async listEnabled() {
      return (db.prepare('SELECT * FROM alert_rules WHERE enabled = 1 ORDER BY location_id, id').all() as Row[]).map(toRule);
    },
    async open(ruleIds) {
      if (ruleIds.length === 0) return [];
      const marks = ruleIds.map(() => '?').join(', ');
      return (db.prepare(`SELECT * FROM alert_incidents WHERE rule_id IN (${marks}) ORDER BY rule_id, key`).all(...ruleIds) as Row[]).map(
        toIncident,
      );
    },
    async raise(i) {
      const sql = 'INSERT OR IGNORE INTO alert_incidents (rule_id, key, location_id, since, detail) VALUES (?, ?, ?, ?, ?)';
      return db.prepare(sql).run(i.rule_id, i.key, i.location_id, i.since, JSON.stringify(i.detail)).changes === 1;
    },
    async clear(ruleId, key) {
      return db.prepare('DELETE FROM alert_incidents WHERE rule_id = ? AND key = ?').run(ruleId, key).changes === 1;
    },
  };
}
