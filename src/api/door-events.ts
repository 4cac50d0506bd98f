/**
 * GET /api/events: door and alarm events the location's terminals reported (v3 rtlog /
 * rtstate), newest first, so a dashboard that connects late can show the recent history before
 * the live stream (`events/<sn>` over WebSocket or MQTT) takes over.
 */
import { Type } from 'typebox';
import type { Store } from '../store/types.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { DoorEventTypeSchema, DoorEventView, doorEventView } from '../views/door-event.js';
import { DateOrDateTime, PageQuery, pageOf, pageWrapper, queryInstant } from './schemas.js';

const Instant = DateOrDateTime;

export function doorEventRoutes(store: Store): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/events',
      auth: 'location',
      query: Type.Object({
        ...PageQuery,
        sn: Type.Optional(Type.String({ maxLength: 64 })),
        type: Type.Optional(DoorEventTypeSchema),
        from: Type.Optional(Instant),
        to: Type.Optional(Instant),
      }),
      doc: {
        summary: "Door and alarm events from the location's terminals, newest first",
        description:
          'v3 rtlog and rtstate reports, kept as long as attendance (BIOGATE_RETENTION_DAYS). Live ones arrive on the `events/<sn>` topic of /api/stream and MQTT.',
        tags: ['events'],
        responses: { 200: pageOf(DoorEventView) },
      },
      handler: async ({ caller, query }) => {
        const filter = {
          ...(query.from ? { from: queryInstant(query.from, false, 'from') } : {}),
          ...(query.to ? { to: queryInstant(query.to, true, 'to') } : {}),
          ...(query.sn ? { sn: query.sn } : {}),
          ...(query.type ? { type: query.type } : {}),
        };
        const page = await store.doorEvents.list(caller.location.id, filter, {
          offset: (query.page - 1) * query.limit,
          limit: query.limit,
        });
        return json(200, pageWrapper(page.items.map(doorEventView), page.total, query.page, query.limit));
      },
    }),
  ];
}
