/**
 * /api/areas (issue #33 item 1): which terminals know which people. A terminal belongs to at most one
 * area (PATCH /api/devices/{sn} `area_id`); a user lists its areas (`areas`). Scoped to the caller's
 * location; the service is src/users/areas.ts.
 */
import { Type } from 'typebox';
import { AreaView, areaView, AREA_NAME } from '../views/area.js';
import { createArea, deleteArea, getArea, renameArea, type AreasDeps } from '../users/areas.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { EmptyObject, PageQuery, pageOf, pageWrapper } from './schemas.js';

const IdParam = Type.Object({ area_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const NameBody = Type.Object({ name: AREA_NAME }, { additionalProperties: false });

export function areaRoutes(deps: AreasDeps): ApiRoute[] {
  const tags = ['areas'];
  return [
    defineRoute({
      method: 'GET',
      path: '/api/areas',
      auth: 'location',
      query: Type.Object(PageQuery),
      doc: { summary: "The location's areas, with their terminal and user counts", tags, responses: { 200: pageOf(AreaView) } },
      handler: async ({ caller, query }) => {
        const page = await deps.store.areas.list(caller.location.id, { offset: (query.page - 1) * query.limit, limit: query.limit });
        return json(200, pageWrapper(page.items.map(areaView), page.total, query.page, query.limit));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/areas',
      auth: 'location',
      body: NameBody,
      doc: {
        summary: 'Create an area',
        description:
          'A terminal put in the area (PATCH /api/devices/{sn} `area_id`) holds only the users listing it (`areas` of POST /api/users); a terminal without an area holds every active user. At most 1,000 areas per location.',
        tags,
        responses: { 201: AreaView },
        errors: ['VALIDATION_FAILED'],
      },
      handler: async ({ caller, body }) => json(201, areaView(await createArea(deps, caller.location, body.name))),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/areas/{area_id}',
      auth: 'location',
      params: IdParam,
      doc: { summary: 'One area', tags, responses: { 200: AreaView }, errors: ['AREA_NOT_FOUND'] },
      handler: async ({ caller, params }) => json(200, areaView(await getArea(deps, caller.location, params.area_id))),
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/areas/{area_id}',
      auth: 'location',
      params: IdParam,
      body: NameBody,
      doc: { summary: 'Rename an area', tags, responses: { 200: AreaView }, errors: ['AREA_NOT_FOUND', 'VALIDATION_FAILED'] },
      handler: async ({ caller, params, body }) => json(200, areaView(await renameArea(deps, caller.location, params.area_id, body.name))),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/areas/{area_id}',
      auth: 'location',
      params: IdParam,
      doc: {
        summary: 'Delete an area without terminals; the users listing it lose it from their `areas`',
        tags,
        responses: { 200: EmptyObject },
        errors: ['AREA_NOT_FOUND', 'AREA_IN_USE'],
      },
      handler: async ({ caller, params }) => {
        await deleteArea(deps, caller.location, params.area_id);
        return json(200, {});
      },
    }),
  ];
}
