/** GET /api/me: the authenticated location with its counts. */
import type { Store, Location } from '../store/types.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { Type } from 'typebox';
import { IsoDateTime, LocationSchema, Nullable } from './schemas.js';

/**
 * GET /api/me also says which token is calling (issue #17): the console hides the presets an
 * `operator` token may not queue, and shows when the token expires. Never the token text.
 */
export const MeSchema = Type.Object({
  ...LocationSchema.properties,
  token: Type.Object(
    {
      id: Type.Integer(),
      scope: Type.Union([Type.Literal('full'), Type.Literal('operator'), Type.Literal('read')]),
      expires_at: Nullable(IsoDateTime),
    },
    { description: 'The calling token (BioGate extension): its id, scope and expiry' },
  ),
});

export async function locationView(store: Store, location: Location) {
  const { users: users_count, devices: devices_count } = await store.locations.counts(location.id);
  return {
    id: location.id,
    name: location.name,
    is_active: location.is_active,
    users_count,
    devices_count,
    created_at: location.created_at,
    updated_at: location.updated_at,
    timezone: location.timezone,
    require_comm_key: location.require_comm_key,
  };
}

export function meRoutes(store: Store): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/me',
      auth: 'location',
      doc: { summary: 'Profile and counts of the authenticated location', tags: ['location'], responses: { 200: MeSchema } },
      handler: async ({ caller }) => json(200, {
        ...(await locationView(store, caller.location)),
        token: { id: caller.token.id, scope: caller.token.scope, expires_at: caller.token.expires_at },
      }),
    }),
  ];
}
