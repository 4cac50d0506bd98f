/** GET /api/attendance: punches received from the location's devices, newest first. */
import { Type } from 'typebox';
import { invalid } from '../errors.js';
import type { Store } from '../store/types.js';
import { instantOf } from './input.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { IsoDateTime, Nullable, PageQuery, pageOf, pageWrapper } from './schemas.js';

const Instant = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2}))?$', description: 'ISO datetime, or a date (UTC midnight)' });

export const AttendanceView = Type.Object({
  id: Type.Integer(),
  sn: Type.String(),
  pin: Type.String({ description: 'PIN as the device reported it' }),
  user_id: Nullable(Type.Integer()),
  timestamp: IsoDateTime,
  local_time: Type.String({ description: 'YYYY-MM-DD HH:MM:SS as the device reported it' }),
  status: Type.Integer(),
  verify: Type.Integer(),
  work_code: Nullable(Type.String()),
  created_at: IsoDateTime,
});

function toInstant(v: string, end: boolean, name: string): string {
  const d = instantOf(v.length === 10 ? `${v}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : v);
  if (!d) throw invalid(['query', name], 'must be a real date or datetime', 'format');
  return d.toISOString();
}

export function attendanceRoutes(store: Store): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/attendance', auth: 'location',
      query: Type.Object({ ...PageQuery, from: Type.Optional(Instant), to: Type.Optional(Instant), pin: Type.Optional(Type.String({ maxLength: 24 })), sn: Type.Optional(Type.String({ maxLength: 64 })) }),
      doc: { summary: 'Attendance records from the location\'s devices, newest first', tags: ['attendance'], responses: { 200: pageOf(AttendanceView) } },
      handler: async ({ caller, query }) => {
        const filter = {
          ...(query.from ? { from: toInstant(query.from, false, 'from') } : {}),
          ...(query.to ? { to: toInstant(query.to, true, 'to') } : {}),
          ...(query.pin ? { pin: query.pin } : {}),
          ...(query.sn ? { sn: query.sn } : {}),
        };
        const page = await store.attendance.list(caller.location.id, filter, { offset: (query.page - 1) * query.limit, limit: query.limit });
        const data = page.items.map(({ location_id: _l, ...a }) => a);
        return json(200, pageWrapper(data, page.total, query.page, query.limit));
      },
    }),
  ];
}
