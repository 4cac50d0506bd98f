/** Records of tables BioGate keeps without parsing, one document each (DeviceRecordsPort in ../ports/device-records.ts). */
import type { Filter } from 'mongodb';
import type { DeviceRecord, DeviceRecordsPort } from '../ports/index.js';
import type { Ids } from './ids.js';
import type { Collections, DeviceRecordDoc } from './schema.js';
import { pageOf, trimLocation } from './util.js';

const toRecord = ({ _id, table_key: _key, ...rest }: DeviceRecordDoc): DeviceRecord => ({ id: _id, ...rest });

export function mongoDeviceRecords(c: Collections, ids: Ids): DeviceRecordsPort {
  return {
    async append(batch, now) {
      const n = batch.records.length;
      if (n === 0) return 0;
      // Ids first: a crash after taking them leaves a gap, never a reuse (ids.ts).
      const first = await ids('device_records', n);
      const base = {
        location_id: batch.location_id,
        sn: batch.sn,
        table: batch.table,
        table_key: batch.table.toLowerCase(),
        source: batch.source,
        cmd_id: batch.cmd_id,
        received_at: now,
      };
      await c.deviceRecords.insertMany(
        batch.records.map((record, i): DeviceRecordDoc => ({ _id: first + i, ...base, record })),
        { ordered: true },
      );
      return n;
    },
    async list(locationId, filter, window) {
      const query: Filter<DeviceRecordDoc> = { location_id: locationId, sn: filter.sn };
      if (filter.table !== undefined) query.table_key = filter.table.toLowerCase();
      const page = pageOf(window);
      const [total, docs] = await Promise.all([
        c.deviceRecords.countDocuments(query),
        page ? c.deviceRecords.find(query).sort({ received_at: -1, _id: -1 }).skip(page.skip).limit(page.limit).toArray() : [],
      ]);
      return { items: docs.map(toRecord), total };
    },
    trim: (locationId, keep, limit) => trimLocation(c.deviceRecords, locationId, keep, limit),
    async prune(before, limit) {
      const old = await c.deviceRecords
        .find({ received_at: { $lt: before } }, { projection: { _id: 1 } })
        .limit(limit)
        .toArray();
      if (old.length === 0) return 0;
      const { deletedCount } = await c.deviceRecords.deleteMany({ _id: { $in: old.map((d) => d._id) } });
      return deletedCount;
    },
  };
}
