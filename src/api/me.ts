/** GET /api/me: the authenticated location with its counts. */
import type { Store } from '../store/types.js';
import { locationView, MeView } from '../views/location.js';
import { defineRoute, json, type ApiRoute } from './route.js';

/** How terminals reach this gateway, from its configuration (the same for every location but for the comm key rule). */
export interface DeviceConnectionSettings {
  readonly devicePort: number | null;
  readonly requireCommKey: boolean;
}

export function meRoutes(store: Store, devices: DeviceConnectionSettings): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/me',
      auth: 'location',
      doc: { summary: 'Profile and counts of the authenticated location', tags: ['location'], responses: { 200: MeView } },
      handler: async ({ caller }) =>
        json(200, {
          ...(await locationView(store, caller.location)),
          token: { id: caller.token.id, scope: caller.token.scope, expires_at: caller.token.expires_at },
          device_connection: {
            port: devices.devicePort,
            comm_key_required: devices.requireCommKey || caller.location.require_comm_key,
          },
        }),
    }),
  ];
}
