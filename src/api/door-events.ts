/**
 * GET /api/events (issue #15): door and alarm events the location's terminals reported (v3 rtlog /
 * rtstate), newest first, so a dashboard that connects late can show the recent history before
 * the live stream (`events/<sn>` over WebSocket or MQTT) takes over.
 */
import { Type } from 'typebox';
import { DOOR_EVENT_TYPES, doorEventMeaning } from '../devices/door-events.js';
import { invalid } from '../errors.js';
import type { DoorEventType, Store, StoredDoorEvent } from '../store/types.js';
import { instantOf } from './input.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { IsoDateTime, Nullable, PageQuery, pageOf, pageWrapper } from './schemas.js';

const Instant = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2}))?$', description: 'ISO datetime, or a date (UTC midnight)' });
const TYPES = Object.keys(DOOR_EVENT_TYPES) as DoorEventType[];
const EventType = Type.Union(TYPES.map((t) => Type.Literal(t)), {
  description: Object.entries(DOOR_EVENT_TYPES).map(([k, v]) => `\`${k}\`: ${v}`).join('; '),
});

export const DoorEventView = Type.Object({
  id: Type.Integer(),
  sn: Type.String(),
  type: EventType,
  event: Nullable(Type.Integer({ description: 'rtlog event code [PUSH-v3 §7.7]; null for a state report' })),
  meaning: Nullable(Type.String({ description: 'What the code means, where the protocol reference names it' })),
  door: Nullable(Type.Integer({ description: 'Door number (rtlog eventaddr, rtstate door)' })),
  pin: Nullable(Type.String({ description: 'The user verified; null when none' })),
  card_no: Nullable(Type.String()),
  verify_type: Nullable(Type.String({ description: 'Verification mode code, or a NewVFStyles bit string [PUSH-v3 §7.8]' })),
  in_out: Nullable(Type.Integer({ description: '0 in, 1 out' })),
  device_index: Nullable(Type.Integer({ description: "The terminal's record number" })),
  timestamp: IsoDateTime,
  local_time: Type.String({ description: 'YYYY-MM-DD HH:MM:SS as the terminal reported it' }),
  state: Nullable(Type.Object({
    sensor: Type.String({ description: 'hex, 2 bits per door: 00 no sensor, 01 closed, 10 open' }),
    relay: Type.String({ description: 'hex, 1 bit per door: 0 connected, 1 disconnected' }),
    alarm: Type.String({ description: 'hex, 1 byte per door: accidental open, tamper, duress password, duress fingerprint, door-open timeout, mains failure, battery failure, reader tamper' }),
  }, { description: 'rtstate bit fields as sent [PUSH-v3 §7.3]; null for rtlog events' })),
  extra: Nullable(Type.Record(Type.String(), Type.String(), { description: 'Keys the protocol reference does not name (sitecode, temperature, …)' })),
  created_at: IsoDateTime,
});

/** The API view: the stored record without its location, with the code's meaning. */
export function doorEventView(e: StoredDoorEvent) {
  const { location_id: _l, ...rest } = e;
  return { ...rest, meaning: doorEventMeaning(e.event) };
}

// Same date rules as GET /api/attendance: a bare date is UTC midnight (or the end of that day for `to`).
function toInstant(v: string, end: boolean, name: string): string {
  const d = instantOf(v.length === 10 ? `${v}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : v);
  if (!d) throw invalid(['query', name], 'must be a real date or datetime', 'format');
  return d.toISOString();
}

export function doorEventRoutes(store: Store): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/events', auth: 'location',
      query: Type.Object({ ...PageQuery, sn: Type.Optional(Type.String({ maxLength: 64 })), type: Type.Optional(EventType), from: Type.Optional(Instant), to: Type.Optional(Instant) }),
      doc: {
        summary: "Door and alarm events from the location's terminals, newest first",
        description: 'v3 rtlog and rtstate reports, kept as long as attendance (BIOGATE_RETENTION_DAYS). Live ones arrive on the `events/<sn>` topic of /api/stream and MQTT.',
        tags: ['events'], responses: { 200: pageOf(DoorEventView) },
      },
      handler: async ({ caller, query }) => {
        const filter = {
          ...(query.from ? { from: toInstant(query.from, false, 'from') } : {}),
          ...(query.to ? { to: toInstant(query.to, true, 'to') } : {}),
          ...(query.sn ? { sn: query.sn } : {}),
          ...(query.type ? { type: query.type } : {}),
        };
        const page = await store.doorEvents.list(caller.location.id, filter, { offset: (query.page - 1) * query.limit, limit: query.limit });
        return json(200, pageWrapper(page.items.map(doorEventView), page.total, query.page, query.limit));
      },
    }),
  ];
}
