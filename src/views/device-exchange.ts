/** A terminal's exchange (or run of identical ones) → its public view (issue #36 item 2). */
import { Type } from 'typebox';
import type { DeviceExchange } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const DeviceExchangeView = Type.Object(
  {
    at: IsoDateTime,
    first_at: Type.String({ format: 'date-time', description: 'The first of a run of identical exchanges (`at` when `repeat` is 1)' }),
    repeat: Type.Integer({ minimum: 1, description: 'Identical consecutive exchanges this entry stands for (idle polls, say)' }),
    method: Type.String(),
    endpoint: Type.String({ description: 'Protocol endpoint: cdata, getrequest, devicecmd, registry, push, querydata …' }),
    table: Nullable(Type.String({ description: 'The uploaded table as the terminal named it (ATTLOG, rtlog, user …)' })),
    records: Nullable(Type.Integer({ description: 'Lines in the request body; null without one' })),
    status: Type.Integer({ description: 'HTTP status of the answer' }),
    answer_bytes: Type.Integer({ description: 'Length of the answer body' }),
    error: Nullable(Type.String({ description: 'A refusal, lines that did not decode, commands the terminal refused' })),
  },
  { title: 'DeviceExchange' },
);

export const deviceExchangeView = ({ key: _k, location_id: _l, sn: _s, ...e }: DeviceExchange) => e;
