/** Device records → their public views (SERVICE-SPEC DeviceResponse; the admin's unassigned terminals). */
import { Type } from 'typebox';
import { protocolVersionSchema } from '../../protocols/index.js';
import type { Device, Location } from '../store/ports/index.js';
import { IsoDateTime, LocationBasic, locationBasic, Nullable } from './common.js';
import { isOnline } from './device-status.js';

export const DeviceView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  serial_number: Type.String(),
  location_id: Nullable(Type.Integer()),
  location: Nullable(LocationBasic),
  registry_code: Nullable(Type.String()),
  session_id: Nullable(Type.String()),
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
});

/** A terminal that contacted the gateway but belongs to no location yet (assign it with POST /admin/devices/{sn}/assign or POST /api/devices). */
export const UnassignedDeviceView = Type.Object({
  serial_number: Type.String(),
  first_seen: IsoDateTime,
  last_seen: Nullable(IsoDateTime),
  last_address: Nullable(Type.String({ description: 'Client address of its last request (trusted proxies applied)' })),
  version: Nullable(protocolVersionSchema({ description: 'Protocol version detected' })),
  options: Nullable(Type.Record(Type.String(), Type.String(), { description: 'Options it reported (model, firmware, …)' })),
});

/** How a device is authenticated, as GET /api/devices shows it (derived, never stored). */
export type DeviceAuth = 'registration' | 'comm_key' | 'serial_only';

/** A registration token binds the device once it was presented; it is the stronger of the two secrets. */
export function authOf(d: Device): DeviceAuth {
  if (registrationBound(d)) return 'registration';
  return d.comm_key_hash ? 'comm_key' : 'serial_only';
}

const registrationBound = (d: Device): d is Device & { registry_code: string; session_id: string } =>
  d.token_bound_at !== null && d.registry_code !== null && d.session_id !== null;

export function deviceView(d: Device, location: Location | null, now: Date, thresholdS: number) {
  return {
    id: d.id,
    name: d.name,
    serial_number: d.serial_number,
    location_id: d.location_id,
    location: location ? locationBasic(location) : null,
    registry_code: d.registry_code,
    session_id: d.session_id,
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
  };
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
