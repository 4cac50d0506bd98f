/** Device records → their public views (SERVICE-SPEC DeviceResponse; the admin's unassigned terminals). */
import { Type } from 'typebox';
import { codecOfDevice, lockCount, protocolVersionSchema } from '../../protocols/index.js';
import type { Device, Location } from '../store/ports/index.js';
import { IsoDateTime, LocationBasic, locationBasic, Nullable } from './common.js';
import { isOnline } from './device-status.js';
import { SyncView } from './device-sync.js';
import { AreaBasic } from './area.js';

/** The registration binding of a v3 terminal, shown to every scope in place of its secrets. */
export const RegistrationView = Type.Object(
  {
    bound: Type.Boolean({
      description: 'The terminal presented its registration token: every request must carry it (Security PUSH registration)',
    }),
    bound_at: Nullable(IsoDateTime),
    bound_address: Nullable(Type.String({ description: 'Client address the token was first presented from (trusted proxies applied)' })),
    accepted_at: Nullable(IsoDateTime),
  },
  {
    title: 'DeviceRegistration',
    description:
      'accepted_at: when registration was allowed (first contact over PUSH v3, or POST /api/devices/{sn}/accept-registration); null = a registry request is refused with 406',
  },
);

export const DeviceView = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    serial_number: Type.String(),
    location_id: Nullable(Type.Integer()),
    location: Nullable(LocationBasic),
    registry_code: Nullable(
      Type.String({
        description:
          'PUSH v3 registry code: with session_id, what a terminal logs in with (Security PUSH registration). Null unless the token has the full scope',
      }),
    ),
    session_id: Nullable(
      Type.String({ description: 'PUSH v3 session id (Security PUSH Communication Protocol). Null unless the token has the full scope' }),
    ),
    registration: RegistrationView,
    registered_at: Nullable(IsoDateTime),
    options: Nullable(Type.Record(Type.String(), Type.String())),
    version: Nullable(protocolVersionSchema()),
    last_seen: Nullable(IsoDateTime),
    is_active: Type.Boolean({ description: 'Online: a request within BIOGATE_ONLINE_THRESHOLD_S' }),
    created_at: IsoDateTime,
    updated_at: Nullable(IsoDateTime),
    version_override: Nullable(protocolVersionSchema()),
    auth: Type.Union([Type.Literal('registration'), Type.Literal('comm_key'), Type.Literal('serial_only')], {
      description:
        'How requests for this serial are authenticated: registration (v3 token bound), comm_key, or serial_only (anyone who knows the serial can act for it)',
    }),
    allowed_networks: Nullable(Type.Array(Type.String(), { description: 'CIDRs the device must connect from; null = any address' })),
    access_control: Type.Object(
      {
        schedules: Type.Boolean({
          description:
            'Whether the terminal holds schedules and access levels (v3 access tables); false: a schedule-restricted user is delivered unrestricted',
        }),
        doors: Type.Integer({ description: 'Doors (locks) the terminal reports (LockCount), 1 when it reports none' }),
      },
      { description: 'What of the access rules (issue #33) this terminal can enforce' },
    ),
    area: Nullable(AreaBasic, {
      description: 'The area the terminal is in: it holds only the users of that area. null = no area: every active user',
    }),
    // Roster sync state: on GET /api/devices and GET /api/devices/{sn} (the detail is GET /api/devices/{sn}/sync).
    sync: Type.Optional(SyncView),
  },
  { title: 'DeviceResponse' },
);

/** A terminal that contacted the gateway but belongs to no location yet (assign it with POST /admin/devices/{sn}/assign or POST /api/devices). */
export const UnassignedDeviceView = Type.Object(
  {
    serial_number: Type.String(),
    first_seen: IsoDateTime,
    last_seen: Nullable(IsoDateTime),
    last_address: Nullable(Type.String({ description: 'Client address of its last request (trusted proxies applied)' })),
    version: Nullable(protocolVersionSchema(), { description: 'Protocol version detected' }),
    options: Nullable(Type.Record(Type.String(), Type.String(), { description: 'Options it reported (model, firmware, …)' })),
  },
  { title: 'UnassignedDevice' },
);

/** How a device is authenticated, as GET /api/devices shows it (derived, never stored). */
export type DeviceAuth = 'registration' | 'comm_key' | 'serial_only';

/** A registration token binds the device once it was presented; it is the stronger of the two secrets. */
export function authOf(d: Device): DeviceAuth {
  if (registrationBound(d)) return 'registration';
  return d.comm_key_hash ? 'comm_key' : 'serial_only';
}

const registrationBound = (d: Device): d is Device & { registry_code: string; session_id: string } =>
  d.token_bound_at !== null && d.registry_code !== null && d.session_id !== null;

/**
 * Who sees a device: `full` (a full-scope token, the admin, the local CLI) sees the registry code and
 * session id, which are all it takes to log in as the terminal [PUSH-v3 §5]; `masked` (read, operator)
 * sees null in their place.
 */
export type DeviceAudience = 'full' | 'masked';

/** Area names by id, of the device's location (areaNames in ../store/ports/areas.ts reads them). */
export type AreaNames = ReadonlyMap<number, string>;

export function deviceView(
  d: Device,
  location: Location | null,
  now: Date,
  thresholdS: number,
  audience: DeviceAudience,
  areas: AreaNames,
) {
  const secrets = audience === 'full';
  const areaName = d.area_id === null ? undefined : areas.get(d.area_id);
  return {
    id: d.id,
    name: d.name,
    serial_number: d.serial_number,
    location_id: d.location_id,
    location: location ? locationBasic(location) : null,
    registry_code: secrets ? d.registry_code : null,
    session_id: secrets ? d.session_id : null,
    registration: {
      bound: registrationBound(d),
      bound_at: d.token_bound_at,
      bound_address: d.token_bound_address,
      accepted_at: d.registration_accepted_at,
    },
    registered_at: d.registered_at,
    options: d.options,
    version: d.version,
    last_seen: d.last_seen,
    is_active: isOnline(d.last_seen, now, thresholdS),
    created_at: d.created_at,
    updated_at: d.updated_at,
    version_override: d.version_override,
    auth: authOf(d),
    allowed_networks: d.allowed_networks,
    access_control: {
      schedules: codecOfDevice(d).storesAccessTables,
      doors: lockCount({ version: codecOfDevice(d).version, options: d.options ?? {} }) ?? 1,
    },
    area: d.area_id === null || areaName === undefined ? null : { id: d.area_id, name: areaName },
  };
}

/**
 * The device as the event feed, MQTT, the stream and webhooks carry it: the view without `registry_code`
 * and `session_id` (not even null), since those copies reach every subscriber and are stored.
 */
export function deviceFeedView(d: Device, location: Location | null, now: Date, thresholdS: number, areas: AreaNames) {
  const { registry_code: _code, session_id: _session, ...rest } = deviceView(d, location, now, thresholdS, 'masked', areas);
  return rest;
}

export function unassignedDeviceView(d: Device) {
  return {
    serial_number: d.serial_number,
    first_seen: d.created_at,
    last_seen: d.last_seen,
    last_address: d.last_address,
    version: d.version,
    options: d.options,
  };
}
