/** Whether a device is online, and its status view (SERVICE-SPEC DeviceStatusResponse). */
import { Type } from 'typebox';
import type { Device } from '../store/ports/index.js';
import { IsoDateTime, Nullable } from './common.js';

export const DeviceStatusView = Type.Object(
  {
    device_id: Type.Integer(),
    serial_number: Type.String(),
    is_online: Type.Boolean(),
    last_seen: Nullable(IsoDateTime),
    status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
  },
  { title: 'DeviceStatus' },
);

/** Online: a request within `thresholdS` (BIOGATE_ONLINE_THRESHOLD_S) before `now`. */
export function isOnline(lastSeen: string | null, now: Date, thresholdS: number): boolean {
  return lastSeen !== null && now.getTime() - Date.parse(lastSeen) <= thresholdS * 1000;
}

export function deviceStatusView(d: Device, now: Date, thresholdS: number) {
  const online = isOnline(d.last_seen, now, thresholdS);
  return {
    device_id: d.id,
    serial_number: d.serial_number,
    is_online: online,
    last_seen: d.last_seen,
    status: online ? 'online' : 'offline',
  };
}
