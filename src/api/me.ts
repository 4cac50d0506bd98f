/** GET /api/me: the authenticated location with its counts. */
import type { Store, Location } from '../store/types.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { LocationSchema } from './schemas.js';

export async function locationView(store: Store, location: Location) {
  const [users_count, devices_count] = await Promise.all([store.users.count(location.id), store.devices.count(location.id)]);
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
      doc: { summary: 'Profile and counts of the authenticated location', tags: ['location'], responses: { 200: LocationSchema } },
      handler: async ({ caller }) => json(200, await locationView(store, caller.location)),
    }),
  ];
}
