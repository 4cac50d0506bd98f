/**
 * Alert rules and open incidents on MongoDB (AlertsPort in ../ports/alerts.ts). An open incident is a document
 * whose `_id` is `rule:key`: raising inserts it (a duplicate key means it is open already), clearing deletes it,
 * so each is done by exactly one caller without transactions. Indexes are created here, at startup.
 */
import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { AlertIncident, AlertRule, AlertsPort } from '../ports/index.js';
import type { Ids } from './ids.js';

type RuleDoc = Omit<AlertRule, 'id' | 'params'> & { _id: number; params: Record<string, number> };
type IncidentDoc = AlertIncident & { _id: string };

const toRule = ({ _id, ...rest }: RuleDoc): AlertRule => ({ id: _id, ...rest });
const toIncident = ({ rule_id, location_id, key, since, detail }: IncidentDoc): AlertIncident => ({
  rule_id,
  location_id,
  key,
  since,
  detail,
});
const incidentId = (ruleId: number, key: string) => `${ruleId}:${key}`;

export async function mongoAlerts(db: Db, ids: Ids): Promise<AlertsPort> {
  const rules: Collection<RuleDoc> = db.collection('alert_rules');
  const incidents: Collection<IncidentDoc> = db.collection('alert_incidents');
  await rules.createIndexes([
    { name: 'location', key: { location_id: 1, _id: 1 } },
    { name: 'enabled', key: { enabled: 1 } },
  ]);
  await incidents.createIndexes([{ name: 'rule', key: { rule_id: 1, key: 1 } }]);
  return {
    async list(locationId) {
      return (await rules.find({ location_id: locationId }).sort({ _id: 1 }).toArray()).map(toRule);
    },
    async get(locationId, id) {
      const d = await rules.findOne({ _id: id, location_id: locationId });
      return d ? toRule(d) : undefined;
    },
    async count(locationId) {
      return rules.countDocuments({ location_id: locationId });
    },
    async create(locationId, f, now) {
      const doc: RuleDoc = {
        _id: await ids('alert_rules'),
        location_id: locationId,
        ...f,
        params: { ...f.params },
        created_at: now,
        updated_at: null,
      };
      await rules.insertOne(doc);
      return toRule(doc);
    },
    async update(locationId, id, f, now) {
      const before = await rules.findOneAndUpdate(
        { _id: id, location_id: locationId },
        { $set: { ...f, params: { ...f.params }, updated_at: now } },
        { returnDocument: 'before' },
      );
      if (!before) return undefined;
      // A rule whose condition changed starts afresh: its open incidents were about the old one.
      if (before.kind !== f.kind || JSON.stringify(before.params) !== JSON.stringify(f.params) || before.enabled !== f.enabled)
        await incidents.deleteMany({ rule_id: id });
      return toRule({ ...before, ...f, params: { ...f.params }, updated_at: now });
    },
    async delete(locationId, id) {
      const gone = (await rules.deleteOne({ _id: id, location_id: locationId })).deletedCount > 0;
      if (gone) await incidents.deleteMany({ rule_id: id });
      return gone;
    },
    async listEnabled() {
      return (await rules.find({ enabled: true }).sort({ location_id: 1, _id: 1 }).toArray()).map(toRule);
    },
    async open(ruleIds) {
      if (ruleIds.length === 0) return [];
      return (
        await incidents
          .find({ rule_id: { $in: [...ruleIds] } })
          .sort({ rule_id: 1, key: 1 })
          .toArray()
      ).map(toIncident);
    },
    async raise(i) {
      try {
        await incidents.insertOne({ _id: incidentId(i.rule_id, i.key), ...i, detail: { ...i.detail } });
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === 11000) return false;
        throw err;
      }
    },
    async clear(ruleId, key) {
      return (await incidents.deleteOne({ _id: incidentId(ruleId, key) })).deletedCount === 1;
    },
  };
}
