/** Each terminal's last exchanges (ExchangesPort in ../ports/exchanges.ts), one document per exchange or run. */
import type { AnyBulkWriteOperation } from 'mongodb';
import type { DeviceExchange, ExchangesPort } from '../ports/index.js';
import type { Collections, ExchangeDoc } from './schema.js';

const toExchange = ({ _id, ...rest }: ExchangeDoc): DeviceExchange => ({ key: _id, ...rest });

export function mongoExchanges(c: Collections): ExchangesPort {
  return {
    async write(entries, trimmed, keep) {
      if (entries.length > 0) {
        const ops = entries.map(({ key, at, repeat, ...fields }): AnyBulkWriteOperation<ExchangeDoc> => ({
          updateOne: { filter: { _id: key }, update: { $set: { at, repeat }, $setOnInsert: fields }, upsert: true },
        }));
        await c.exchanges.bulkWrite(ops, { ordered: false });
      }
      for (const { location_id, sn } of trimmed) {
        const [edge] = await c.exchanges
          .find({ location_id, sn }, { projection: { at: 1 } })
          .sort({ at: -1, _id: -1 })
          .skip(keep)
          .limit(1)
          .toArray();
        if (!edge) continue;
        await c.exchanges.deleteMany({ location_id, sn, $or: [{ at: { $lt: edge.at } }, { at: edge.at, _id: { $lte: edge._id } }] });
      }
    },
    async list(locationId, sn, limit) {
      const docs = await c.exchanges.find({ location_id: locationId, sn }).sort({ at: -1, _id: -1 }).limit(limit).toArray();
      return docs.map(toExchange);
    },
  };
}
