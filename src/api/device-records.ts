/**
 * What a terminal sent, as it sent it. Location-scoped: a device of another location is not found.
 *
 * - GET /api/devices/{sn}/records: records of tables BioGate keeps without parsing (v3 `userauthorize`,
 *   `timezone`, `holiday`, `identitycard`, `workcode`…, v2 `IDCARD`), newest first.
 * - GET /api/devices/{sn}/exchanges: its last exchanges with BioGate, newest first (devices/exchange-log.ts);
 *   this node's waiting entries of that terminal are written first, another node's may be late (exchange-log.ts).
 */
import { Type } from 'typebox';
import { BioGateError } from '../errors.js';
import type { Store } from '../store/types.js';
import { Serial } from './devices.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { DeviceRecordView, deviceRecordView } from '../views/device-record.js';
import { DeviceExchangeView, deviceExchangeView } from '../views/device-exchange.js';
import { EXCHANGES_KEPT } from '../devices/exchange-log.js';
import { PageQuery, pageOf, pageWrapper } from './schemas.js';

export interface DeviceRecordDeps {
  readonly store: Store;
  /** Writes this node's waiting exchange log entries of a terminal (Hub.exchanges.flush). */
  readonly flushExchanges: (sn: string) => Promise<void>;
}

export function deviceRecordRoutes({ store, flushExchanges }: DeviceRecordDeps): ApiRoute[] {
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
    defineRoute({
      method: 'GET',
      path: '/api/devices/{device_serial}/exchanges',
      auth: 'location',
      params: Type.Object({ device_serial: Serial }),
      query: Type.Object({
        limit: Type.Integer({ minimum: 1, maximum: EXCHANGES_KEPT, default: EXCHANGES_KEPT, description: 'At most this many' }),
      }),
      doc: {
        summary: "The terminal's last exchanges (no bodies), newest first",
        tags: ['devices'],
        responses: { 200: Type.Object({ count: Type.Integer(), data: Type.Array(DeviceExchangeView) }, { title: 'DeviceExchangeList' }) },
        errors: ['DEVICE_NOT_FOUND'],
      },
      handler: async ({ caller, params, query }) => {
        const device = await store.devices.get(caller.location.id, params.device_serial);
        if (!device) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${params.device_serial} not found`);
        await flushExchanges(device.serial_number);
        const data = (await store.exchanges.list(caller.location.id, device.serial_number, query.limit)).map(deviceExchangeView);
        return json(200, { count: data.length, data });
      },
    }),
  ];
}
