/** Location records → their public view (SERVICE-SPEC LocationResponse; GET /api/me, /admin/locations). */
import { Type } from 'typebox';
import type { Store } from '../store/types.js';
import type { Location } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const LocationView = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    is_active: Type.Boolean(),
    users_count: Type.Integer(),
    devices_count: Type.Integer(),
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
    timezone: Type.String({ description: 'IANA time zone of the location (BioGate extension)' }),
    require_comm_key: Type.Boolean({ description: 'Devices may be assigned only with a comm key (BioGate extension)' }),
    attendance_debounce_s: Type.Integer({
      description:
        'Time cards: a punch within this many seconds of the same user’s previous one is a repeat and ignored (BioGate extension)',
    }),
    day_start_hour: Type.Integer({
      description:
        'Time cards: the local hour (0–23) a working day starts at; punches before it count for the day before (BioGate extension)',
    }),
    attendance_photos: Type.Boolean({
      description: 'The punch photos terminals upload are kept, at GET /api/attendance/{id}/photo (BioGate extension)',
    }),
    attendance_photo_retention_days: Type.Integer({ description: 'Days a punch photo is kept (BioGate extension)' }),
    scenario: Nullable(
      Type.Object(
        {
          name: Type.Union([Type.Literal('lockdown'), Type.Literal('evacuate')]),
          since: IsoDateTime,
          command_id: Nullable(Type.Integer({ description: 'The location-wide command that started it' })),
        },
        { title: 'Scenario', description: 'The emergency scenario in force (POST /api/scenarios/{name}); null: none (BioGate extension)' },
      ),
    ),
  },
  { title: 'Location' },
);

/**
 * GET /api/me also says which token is calling: the console hides the presets an `operator` token
 * may not queue, and shows when the token expires. Never the token text.
 */
export const MeView = Type.Object(
  {
    ...LocationView.properties,
    token: Type.Object(
      {
        id: Type.Integer(),
        scope: Type.Union([Type.Literal('full'), Type.Literal('operator'), Type.Literal('read')]),
        expires_at: Nullable(IsoDateTime),
      },
      { description: 'The calling token (BioGate extension): its id, scope and expiry' },
    ),
    device_connection: Type.Object(
      {
        port: Nullable(Type.Integer({ minimum: 1, maximum: 65535 }), {
          description: "The port BioGate listens on for terminals when it is not the API's (BIOGATE_DEVICE_PORT); null: the API's own",
        }),
        comm_key_required: Type.Boolean({
          description: "Terminals are assigned only with a comm key (the location's require_comm_key, or BIOGATE_REQUIRE_COMM_KEY=on)",
        }),
      },
      { title: 'DeviceConnection', description: 'What to enter on a terminal to point it here (BioGate extension)' },
    ),
  },
  { title: 'Me' },
);

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
    attendance_debounce_s: location.attendance_debounce_s,
    day_start_hour: location.day_start_hour,
    attendance_photos: location.attendance_photos,
    attendance_photo_retention_days: location.attendance_photo_retention_days,
    scenario: location.scenario,
  };
}
