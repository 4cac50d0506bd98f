/** Biometric templates of a location (sharded on location_id; unique per user and slot). */
import type { Filter } from 'mongodb';
import type { Template, TemplatesPort } from '../ports/index.js';
import type { Ids } from './ids.js';
import type { Collections, TemplateDoc } from './schema.js';
import { settle, unlessDuplicate } from './util.js';

const toTemplate = ({ _id, ...rest }: TemplateDoc): Template => ({ id: _id, ...rest });

/** Every stored field but the origin (source_sn): the same template echoed back by another device
 * after fan-out is not a change; a new duress flag or algorithm version is. */
const CONTENT = ['bio_type', 'valid', 'duress', 'major_ver', 'minor_ver', 'format', 'source_format', 'data', 'size'] as const;

const ORDER = { user_pin: 1, type_index: 1, finger_id: 1, template_index: 1 } as const;

export function mongoTemplates(c: Collections, ids: Ids): TemplatesPort {
  return {
    upsert(locationId, t, now) {
      const key = {
        location_id: locationId,
        user_pin: t.user_pin,
        type_index: t.type_index,
        finger_id: t.finger_id,
        template_index: t.template_index,
      };
      const differs = CONTENT.map((f) => ({ [f]: { $ne: t[f] } }));
      const replace = { ...Object.fromEntries(CONTENT.map((f) => [f, t[f]])), source_sn: t.source_sn, updated_at: now };
      // Same steps as a user upsert: replace only when the content differs (one atomic update),
      // else it exists unchanged or not at all; the unique key refuses a concurrent double insert.
      return settle('template upsert', async () => {
        const replaced = await c.templates.findOneAndUpdate(
          { ...key, $or: differs } as Filter<TemplateDoc>,
          { $set: replace },
          { returnDocument: 'after' },
        );
        if (replaced) return { template: toTemplate(replaced), created: false, changed: true };
        const existing = await c.templates.findOne(key);
        if (existing) return { template: toTemplate(existing), created: false, changed: false };
        const doc: TemplateDoc = { _id: await ids('templates'), ...key, ...pick(t), created_at: now, updated_at: null };
        return unlessDuplicate(c.templates.insertOne(doc).then(() => ({ template: toTemplate(doc), created: true, changed: true })));
      });
    },
    async listForUser(locationId, pin) {
      return (await c.templates.find({ location_id: locationId, user_pin: pin }).sort(ORDER).toArray()).map(toTemplate);
    },
    async listForUsers(locationId, pins) {
      return (
        await c.templates
          .find({ location_id: locationId, user_pin: { $in: [...pins] } })
          .sort(ORDER)
          .toArray()
      ).map(toTemplate);
    },
    async pinsWithTemplates(locationId, pins) {
      const found = await c.templates.distinct('user_pin', { location_id: locationId, user_pin: { $in: [...pins] } });
      return new Set(found);
    },
    async deleteForUser(locationId, pin) {
      return (await c.templates.deleteMany({ location_id: locationId, user_pin: pin })).deletedCount;
    },
    async deleteSlot(locationId, pin, typeIndex, fingerId) {
      return (await c.templates.deleteMany({ location_id: locationId, user_pin: pin, type_index: typeIndex, finger_id: fingerId }))
        .deletedCount;
    },
  };
}

/** The stored fields of an input other than its key. */
function pick(t: Parameters<TemplatesPort['upsert']>[1]): Pick<Template, (typeof CONTENT)[number] | 'source_sn'> {
  return {
    bio_type: t.bio_type,
    valid: t.valid,
    duress: t.duress,
    major_ver: t.major_ver,
    minor_ver: t.minor_ver,
    format: t.format,
    source_format: t.source_format,
    data: t.data,
    size: t.size,
    source_sn: t.source_sn,
  };
}
