/** Biometric templates of a location's users (../ports/templates.ts), keyed by (pin, type, finger, index). */
import type { Template, TemplatesPort } from '../ports/index.js';
import { bool, pinChunks, type Db } from './db.js';

type Row = Record<string, unknown>;

const toTemplate = (r: Row): Template => ({
  id: r['id'] as number,
  location_id: r['location_id'] as number,
  user_pin: r['user_pin'] as number,
  bio_type: r['bio_type'] as Template['bio_type'],
  type_index: r['type_index'] as number,
  finger_id: r['finger_id'] as number,
  template_index: r['template_index'] as number,
  valid: r['valid'] as number,
  duress: bool(r['duress']),
  major_ver: r['major_ver'] as number,
  minor_ver: r['minor_ver'] as number,
  format: r['format'] as number,
  source_format: r['source_format'] as Template['source_format'],
  data: r['data'] as string,
  size: r['size'] as number,
  source_sn: (r['source_sn'] as string | null) ?? null,
  created_at: r['created_at'] as string,
  updated_at: (r['updated_at'] as string | null) ?? null,
});

/** Template columns in the order of `values` below; source_sn (the origin) is last and not compared. */
const CONTENT_COLUMNS = ['bio_type', 'valid', 'duress', 'major_ver', 'minor_ver', 'format', 'source_format', 'data', 'size'] as const;

export function sqliteTemplates(db: Db): TemplatesPort {
  const find = db.prepare(
    'SELECT * FROM templates WHERE location_id = ? AND user_pin = ? AND type_index = ? AND finger_id = ? AND template_index = ?',
  );
  return {
    async upsert(locationId, t, now) {
      return db
        .transaction(() => {
          const existing = find.get(locationId, t.user_pin, t.type_index, t.finger_id, t.template_index) as Row | undefined;
          const values = [
            t.bio_type,
            t.valid,
            t.duress ? 1 : 0,
            t.major_ver,
            t.minor_ver,
            t.format,
            t.source_format,
            t.data,
            t.size,
            t.source_sn,
          ];
          if (!existing) {
            const r = db
              .prepare(
                `INSERT INTO templates (location_id, user_pin, type_index, finger_id, template_index, bio_type, valid, duress, major_ver, minor_ver, format, source_format, data, size, source_sn, created_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
              )
              .get(locationId, t.user_pin, t.type_index, t.finger_id, t.template_index, ...values, now) as Row;
            return { template: toTemplate(r), created: true, changed: true };
          }
          // Every stored field but the origin counts: the same template echoed back by another
          // device (after fan-out) is not a change, a new duress flag or algorithm version is.
          const changed = CONTENT_COLUMNS.some((col, i) => existing[col] !== values[i]);
          if (!changed) return { template: toTemplate(existing), created: false, changed: false };
          const r = db
            .prepare(
              `UPDATE templates SET bio_type = ?, valid = ?, duress = ?, major_ver = ?, minor_ver = ?, format = ?, source_format = ?, data = ?, size = ?, source_sn = ?, updated_at = ?
               WHERE id = ? RETURNING *`,
            )
            .get(...values, now, existing['id']) as Row;
          return { template: toTemplate(r), created: false, changed: true };
        })
        .immediate();
    },
    async listForUser(locationId, pin) {
      return (
        db
          .prepare('SELECT * FROM templates WHERE location_id = ? AND user_pin = ? ORDER BY type_index, finger_id, template_index')
          .all(locationId, pin) as Row[]
      ).map(toTemplate);
    },
    async listForUsers(locationId, pins) {
      const out: Template[] = [];
      for (const chunk of pinChunks(pins)) {
        const rows = db
          .prepare(
            `SELECT * FROM templates WHERE location_id = ? AND user_pin IN (${chunk.map(() => '?').join(',')}) ORDER BY user_pin, type_index, finger_id, template_index`,
          )
          .all(locationId, ...chunk) as Row[];
        out.push(...rows.map(toTemplate));
      }
      return out;
    },
    async pinsWithTemplates(locationId, pins) {
      const out = new Set<number>();
      for (const chunk of pinChunks(pins)) {
        const rows = db
          .prepare(`SELECT DISTINCT user_pin FROM templates WHERE location_id = ? AND user_pin IN (${chunk.map(() => '?').join(',')})`)
          .all(locationId, ...chunk) as { user_pin: number }[];
        for (const r of rows) out.add(r.user_pin);
      }
      return out;
    },
    async deleteForUser(locationId, pin) {
      return db.prepare('DELETE FROM templates WHERE location_id = ? AND user_pin = ?').run(locationId, pin).changes;
    },
    async deleteSlot(locationId, pin, typeIndex, fingerId) {
      return db
        .prepare('DELETE FROM templates WHERE location_id = ? AND user_pin = ? AND type_index = ? AND finger_id = ?')
        .run(locationId, pin, typeIndex, fingerId).changes;
    },
  };
}
