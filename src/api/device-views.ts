/** Device and command records → API views (SERVICE-SPEC DeviceResponse, CommandResponse). */
import { Type } from 'typebox';
import type { Command, Device, Location } from '../store/types.js';
import { publicStatus } from '../devices/lifecycle.js';
import { authOf } from '../devices/trust.js';
import { IsoDateTime, LocationBasic, Nullable } from './schemas.js';

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
  version: Nullable(Type.Union([Type.Literal('2.0.0'), Type.Literal('3.0.0')])),
  last_seen: Nullable(IsoDateTime),
  is_active: Type.Boolean({ description: 'Online: a request within BIOGATE_ONLINE_THRESHOLD_S' }),
  created_at: IsoDateTime,
  updated_at: Nullable(IsoDateTime),
  version_override: Nullable(Type.Union([Type.Literal('2.0.0'), Type.Literal('3.0.0')])),
  auth: Type.Union([Type.Literal('registration'), Type.Literal('comm_key'), Type.Literal('serial_only')], {
    description: 'How requests for this serial are authenticated: registration (v3 token bound), comm_key, or serial_only (anyone who knows the serial can act for it)',
  }),
  allowed_networks: Nullable(Type.Array(Type.String(), { description: 'CIDRs the device must connect from; null = any address' })),
});

export const DeviceStatusView = Type.Object({
  device_id: Type.Integer(),
  serial_number: Type.String(),
  is_online: Type.Boolean(),
  last_seen: Nullable(IsoDateTime),
  status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
});

export const CommandView = Type.Object({
  id: Type.Integer(),
  command: Type.String({ description: 'Preset identifier' }),
  priority: Type.Integer(),
  location_id: Nullable(Type.Integer()),
  location: Nullable(LocationBasic),
  sn: Nullable(Type.String()),
  status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('success'), Type.Literal('failed')]),
  response: Nullable(Type.String()),
  error_message: Nullable(Type.String()),
  sent_at: Nullable(IsoDateTime),
  acknowledged_at: Nullable(IsoDateTime),
  is_active: Type.Boolean({ description: 'True while the command is pending or sent' }),
  created_at: IsoDateTime,
  updated_at: Nullable(IsoDateTime),
  params: Nullable(Type.Record(Type.String(), Type.Unknown())),
  result: Type.Unknown({ description: 'Data a finished command returned (info: options; load-users: users; check-attendance: counts); else null' }),
  expires_at: Nullable(IsoDateTime),
  created_by_token_id: Nullable(Type.Integer()),
});

export function isOnline(lastSeen: string | null, now: Date, thresholdS: number): boolean {
  return lastSeen !== null && now.getTime() - Date.parse(lastSeen) <= thresholdS * 1000;
}

export function deviceView(d: Device, location: Location | null, now: Date, thresholdS: number) {
  return {
    id: d.id, name: d.name, serial_number: d.serial_number, location_id: d.location_id,
    location: location ? { id: location.id, name: location.name } : null,
    registry_code: d.registry_code, session_id: d.session_id, registered_at: d.registered_at, options: d.options,
    version: d.version, last_seen: d.last_seen, is_active: isOnline(d.last_seen, now, thresholdS),
    created_at: d.created_at, updated_at: d.updated_at, version_override: d.version_override,
    auth: authOf(d), allowed_networks: d.allowed_networks,
  };
}

export function deviceStatusView(d: Device, now: Date, thresholdS: number) {
  const online = isOnline(d.last_seen, now, thresholdS);
  return { device_id: d.id, serial_number: d.serial_number, is_online: online, last_seen: d.last_seen, status: online ? 'online' : 'offline' };
}

export function commandView(c: Command, location: Location | null) {
  return {
    id: c.id, command: c.command, priority: Math.max(0, c.priority), location_id: c.location_id,
    location: location ? { id: location.id, name: location.name } : null, sn: c.sn, status: publicStatus(c), response: c.response,
    error_message: c.error_message, sent_at: c.sent_at, acknowledged_at: c.acknowledged_at,
    is_active: c.status === 'pending' || c.status === 'sent', created_at: c.created_at, updated_at: c.updated_at,
    params: c.params, result: c.result ?? null, expires_at: c.expires_at, created_by_token_id: c.created_by_token_id,
  };
}
