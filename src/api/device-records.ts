/**
 * GET /api/devices/{sn}/records: records of tables BioGate keeps without parsing (v3 `userauthorize`,
 * `timezone`, `holiday`, `identitycard`, `workcode`…, v2 `IDCARD`), as the device sent them, newest
 * first. Location-scoped: a device of another location is not found.
 */
import { Type } from 'typebox';
import { BioGateError } from '../errors.js';
import type { Store } from '../store/types.js';
import { Serial } from './devices.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { DeviceRecordView, deviceRecordView } from '../views/device-record.js';
import { PageQuery, pageOf, pageWrapper } from './schemas.js';

export function deviceRecordRoutes(store: Store): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/devices/{device_serial}/records',
      auth: 'location',
      params: Type.Object({ device_serial: Serial }),
      query: Type.Object({
        ...PageQuery,
        table: Type.Optional(
          Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\x21-\\x7e]+$', description: 'Only this table (any case)' }),
        ),
      }),
      doc: {
        summary: 'Records of tables kept raw, newest first',
        tags: ['devices'],
        responses: { 200: pageOf(DeviceRecordView) },
        errors: ['DEVICE_NOT_FOUND'],
      },
      handler: async ({ caller, params, query }) => {
        const device = await store.devices.get(caller.location.id, params.device_serial);
        if (!device) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${params.device_serial} not found`);
        const filter = { sn: device.serial_number, ...(query.table === undefined ? {} : { table: query.table }) };
        const page = await store.deviceRecords.list(caller.location.id, filter, {
          offset: (query.page - 1) * query.limit,
          limit: query.limit,
        });
        const data = page.items.map(deviceRecordView);
        return json(200, pageWrapper(data, page.total, query.page, query.limit));
      },
    }),
  ];
}
