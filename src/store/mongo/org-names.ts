/**
 * Department and position names per location on MongoDB (../ports/org-names.ts). The unique index (location_id,
 * kind, name) of schema.ts makes `ensure` safe without transactions: of two inserts of one name, one is refused,
 * and its caller reads the row the other wrote.
 */
import type { Collection, Filter } from 'mongodb';
import type { OrgName, OrgNamesPort } from '../ports/index.js';
import { catchUp, isIdCollision, type Ids } from './ids.js';
import type { Collections, OrgNameDoc } from './schema.js';
import { isDuplicateKey, maybe, pageOf, settle } from './util.js';

const toOrgName = ({ _id, location_id, kind, code, name, created_at }: OrgNameDoc): OrgName => ({
  id: _id,
  location_id,
  kind,
  code,
  name,
  created_at,
});

export function mongoOrgNames(c: Collections, ids: Ids): OrgNamesPort {
  return {
    async list(locationId, kind, filter, window) {
      const query: Filter<OrgNameDoc> = { location_id: locationId, kind };
      if (filter.code !== undefined) query.code = filter.code;
      if (filter.name !== undefined) query.name = filter.name;
      const page = pageOf(window);
      const [total, docs] = await Promise.all([
        c.orgNames.countDocuments(query),
        page ? c.orgNames.find(query).sort({ _id: 1 }).skip(page.skip).limit(page.limit).toArray() : [],
      ]);
      return { items: docs.map(toOrgName), total };
    },
    async get(locationId, kind, id) {
      return maybe(await c.orgNames.findOne({ _id: id, location_id: locationId, kind }), toOrgName);
    },
    async ensure(locationId, kind, name, now, code = name) {
      const key = { location_id: locationId, kind, name };
      return settle('org name ensure', async () => {
        const found = await c.orgNames.findOne(key);
        if (found) return toOrgName(found);
        const doc: OrgNameDoc = { _id: await ids('org_names'), ...key, code, created_at: now };
        try {
          await c.orgNames.insertOne(doc);
          return toOrgName(doc);
        } catch (e) {
          // A taken _id: the counter is behind its collection; move it on and take a fresh id.
          if (isIdCollision(e)) await catchUp(c.counters, c.orgNames as unknown as Collection<{ _id: number }>, 'org_names');
          // A taken name: another caller made the row; the next attempt reads it.
          else if (!isDuplicateKey(e)) throw e;
          return undefined;
        }
      });
    },
  };
}
