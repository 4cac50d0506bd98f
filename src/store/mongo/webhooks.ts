/**
 * Webhook subscriptions and deliveries on MongoDB (WebhooksPort in ../ports/webhooks.ts).
 *
 * Both collections shard on location_id; the delivery key (location_id, subscription_id, event_id)
 * is unique, so a delivery job that stores the same events twice (it crashed before moving the
 * subscription's cursor) adds nothing: `addDeliveries` upserts with `$setOnInsert`. Indexes are
 * created here, at startup, like cluster.ts does for the feed.
 */
import type { Collection, Db } from 'mongodb';
import { STANDARD_SHAPE, type WebhookDelivery, type WebhookPatch, type WebhookSubscription, type WebhooksPort } from '../ports/index.js';
import type { Ids } from './ids.js';
import { pageOf } from './util.js';

type SubscriptionDoc = Omit<WebhookSubscription, 'id' | 'events'> & { _id: number; events: string[] };
type DeliveryDoc = Omit<WebhookDelivery, 'id'> & { _id: number };

// Fields added later (issues #32, #36) are absent from older documents: null, or the standard shape.
const toSubscription = ({ _id, ...rest }: SubscriptionDoc): WebhookSubscription => ({
  id: _id,
  ...rest,
  paused_until: rest.paused_until ?? null,
  last_error: rest.last_error ?? null,
  filter: rest.filter ?? null,
  format: rest.format ?? STANDARD_SHAPE.format,
  format_options: rest.format_options ?? null,
  headers: rest.headers ?? {},
});
const toDelivery = ({ _id, ...rest }: DeliveryDoc): WebhookDelivery => ({ id: _id, ...rest, requeued_at: rest.requeued_at ?? null });

export async function mongoWebhooks(db: Db, ids: Ids): Promise<WebhooksPort> {
  const subs: Collection<SubscriptionDoc> = db.collection('webhooks');
  const deliveries: Collection<DeliveryDoc> = db.collection('webhook_deliveries');
  await subs.createIndexes([
    { name: 'location_id', key: { location_id: 1, _id: 1 } },
    { name: 'enabled', key: { enabled: 1 } },
  ]);
  await deliveries.createIndexes([
    { name: 'event_unique', key: { location_id: 1, subscription_id: 1, event_id: 1 }, unique: true },
    { name: 'queue', key: { location_id: 1, subscription_id: 1, status: 1, event_seq: 1, _id: 1 } },
    { name: 'list', key: { location_id: 1, subscription_id: 1, _id: -1 } },
    { name: 'pending', key: { status: 1, created_at: 1 } },
  ]);

  return {
    async create(input, now) {
      const doc: SubscriptionDoc = {
        _id: await ids('webhooks'),
        location_id: input.location_id,
        url: input.url,
        events: [...input.events],
        description: input.description,
        secret: input.secret,
        previous_secret: null,
        previous_valid_until: null,
        attendance_batch: input.attendance_batch,
        enabled: true,
        disabled_reason: null,
        cursor: input.cursor,
        failing_since: null,
        paused_until: null,
        last_error: null,
        created_at: now,
        updated_at: null,
        filter: input.filter ?? null,
        format: input.format ?? STANDARD_SHAPE.format,
        format_options: input.format_options ?? null,
        headers: input.headers ?? {},
      };
      await subs.insertOne(doc);
      return toSubscription(doc);
    },
    async get(locationId, id) {
      const d = await subs.findOne({ _id: id, location_id: locationId });
      return d ? toSubscription(d) : undefined;
    },
    async list(locationId) {
      return (await subs.find({ location_id: locationId }).sort({ _id: 1 }).toArray()).map(toSubscription);
    },
    async count(locationId) {
      return subs.countDocuments({ location_id: locationId });
    },
    async listEnabled() {
      return (await subs.find({ enabled: true }).sort({ _id: 1 }).toArray()).map(toSubscription);
    },
    async update(locationId, id, patch, now) {
      const set: Partial<SubscriptionDoc> = { updated_at: now };
      for (const [k, v] of Object.entries(patch) as [keyof WebhookPatch, unknown][]) {
        if (v !== undefined) (set as Record<string, unknown>)[k] = k === 'events' ? [...(v as string[])] : v;
      }
      const d = await subs.findOneAndUpdate({ _id: id, location_id: locationId }, { $set: set }, { returnDocument: 'after' });
      return d ? toSubscription(d) : undefined;
    },
    async delete(locationId, id) {
      // The subscription first: deliveries left behind by a crash in between belong to nothing and
      // are never sent (the job walks subscriptions); the next delete of the same id is a no-op.
      const { deletedCount } = await subs.deleteOne({ _id: id, location_id: locationId });
      await deliveries.deleteMany({ location_id: locationId, subscription_id: id });
      return deletedCount === 1;
    },
    async advanceCursor(locationId, id, from, to) {
      const r = await subs.updateOne({ _id: id, location_id: locationId, cursor: from }, { $set: { cursor: to } });
      return r.modifiedCount === 1;
    },
    async addDeliveries(list) {
      if (list.length === 0) return 0;
      const first = await ids('webhook_deliveries', list.length);
      const r = await deliveries.bulkWrite(
        list.map((d, i) => ({
          updateOne: {
            filter: { location_id: d.location_id, subscription_id: d.subscription_id, event_id: d.event_id },
            update: {
              $setOnInsert: {
                _id: first + i,
                event_seq: d.event_seq,
                type: d.type,
                payload: d.payload,
                status: 'pending' as const,
                attempts: 0,
                next_attempt_at: d.created_at,
                last_status_code: null,
                last_error: null,
                duration_ms: null,
                created_at: d.created_at,
                delivered_at: null,
                requeued_at: null,
              },
            },
            upsert: true,
          },
        })),
        { ordered: false },
      );
      return r.upsertedCount;
    },
    async due(locationId, subscriptionId, now, limit) {
      const docs = await deliveries
        .find({ location_id: locationId, subscription_id: subscriptionId, status: 'pending', next_attempt_at: { $lte: now } })
        .sort({ event_seq: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toDelivery);
    },
    async firstPending(locationId, subscriptionId, type) {
      const [d] = await deliveries
        .find({ location_id: locationId, subscription_id: subscriptionId, status: 'pending', type })
        .sort({ event_seq: 1, _id: 1 })
        .limit(1)
        .toArray();
      return d ? toDelivery(d) : undefined;
    },
    async recordAttempts(locationId, outcomes) {
      if (outcomes.length === 0) return;
      await deliveries.bulkWrite(
        outcomes.map(({ id, ...a }) => ({
          updateOne: { filter: { _id: id, location_id: locationId, status: 'pending' }, update: { $set: a } },
        })),
        { ordered: false },
      );
    },
    async deliveries(locationId, subscriptionId, window) {
      const query = { location_id: locationId, subscription_id: subscriptionId };
      const page = pageOf(window);
      const [total, docs] = await Promise.all([
        deliveries.countDocuments(query),
        page ? deliveries.find(query).sort({ _id: -1 }).skip(page.skip).limit(page.limit).toArray() : [],
      ]);
      return { items: docs.map(toDelivery), total };
    },
    async pendingStats() {
      const [count, oldest] = await Promise.all([
        deliveries.countDocuments({ status: 'pending' }),
        deliveries
          .find({ status: 'pending' }, { projection: { created_at: 1 } })
          .sort({ created_at: 1 })
          .limit(1)
          .toArray(),
      ]);
      return { count, oldest: oldest[0]?.created_at ?? null };
    },
    async requeueFailed(locationId, subscriptionId, since, until, now, limit) {
      const created = until === null ? { $gte: since } : { $gte: since, $lt: until };
      const failed = await deliveries
        .find(
          { location_id: locationId, subscription_id: subscriptionId, status: 'failed', created_at: created },
          { projection: { _id: 1 } },
        )
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      if (failed.length === 0) return 0;
      const r = await deliveries.updateMany(
        { location_id: locationId, _id: { $in: failed.map((d) => d._id) }, status: 'failed' },
        { $set: { status: 'pending', next_attempt_at: now, requeued_at: now } },
      );
      return r.modifiedCount;
    },
    async pruneDeliveries(before, limit) {
      const old = await deliveries
        .find({ status: { $ne: 'pending' }, created_at: { $lt: before } }, { projection: { _id: 1 } })
        .limit(limit)
        .toArray();
      if (old.length === 0) return 0;
      const { deletedCount } = await deliveries.deleteMany({ _id: { $in: old.map((d) => d._id) } });
      return deletedCount;
    },
  };
}
