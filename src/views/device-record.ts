/** Records of tables BioGate keeps without parsing → their public view (the record as the device sent it). */
import { Type } from 'typebox';
import type { DeviceRecord } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const DeviceRecordView = Type.Object(
  {
    id: Type.Integer(),
    sn: Type.String(),
    table: Type.String({ description: 'Table name as the device sent it' }),
    source: Type.Union([Type.Literal('upload'), Type.Literal('query')], {
      description: 'Pushed by the device, or the answer to a command',
    }),
    cmd_id: Nullable(Type.String({ description: 'The command answered (query), else null' })),
    record: Type.String({ description: 'The record as received (one line)' }),
    received_at: IsoDateTime,
  },
  { title: 'DeviceRecord' },
);

export const deviceRecordView = ({ location_id: _l, ...r }: DeviceRecord) => r;
