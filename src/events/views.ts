/**
 * Bus payloads → feed payloads: the public views of src/views/ (the same functions the REST API
 * renders with), so a consumer of the feed sees exactly what GET would show. Nothing store-internal leaves:
 * no comm-key hashes, wire strings, idempotency keys, no registry code or session id of a terminal; a large command `result` is cut to null with
 * `result_truncated: true` (GET /api/commands/{id} has it in full).
 */
import { areaView } from '../views/area.js';
import { accessLevelView, scheduleView } from '../views/access.js';
import { attendanceView } from '../views/attendance.js';
import { commandView } from '../views/command.js';
import { deviceFeedView } from '../views/device.js';
import { doorEventView } from '../views/door-event.js';
import { alertEventView } from '../views/alert.js';
import { auditEntryView } from '../views/audit.js';
import type { BusEvents } from './bus.js';
import type { Store } from '../store/types.js';
import type { Command, Device, Location } from '../store/ports/index.js';
import type { CommandData, DeviceData, FeedEventType, FeedPayloads } from './types.js';

/** Larger `result` JSON is left out of command events. */
export const MAX_RESULT_BYTES = 4096;

export interface ViewContext {
  readonly store: Store;
  readonly onlineThresholdS: number;
  readonly now: () => Date;
  readonly location: (id: number) => Promise<Location | null>;
}

export function commandData(c: Command, location: Location | null): CommandData {
  const view = commandView(c, location) as CommandData;
  const size = view['result'] === null ? 0 : Buffer.byteLength(JSON.stringify(view['result']));
  return size > MAX_RESULT_BYTES ? { ...view, result: null, result_truncated: true } : view;
}

async function deviceData(ctx: ViewContext, device: Device, presence?: 'online' | 'offline', at?: string): Promise<DeviceData> {
  const location = device.location_id === null ? null : await ctx.location(device.location_id);
  // Only a terminal in an area costs the read (presence events of every terminal come through here).
  const areas =
    device.location_id === null || device.area_id === null ? new Map<number, string>() : await ctx.store.areas.names(device.location_id);
  const view = deviceFeedView(device, location, ctx.now(), ctx.onlineThresholdS, areas) as DeviceData;
  // The store's last_seen is written behind; the event knows the fresher truth.
  if (presence === 'online') return { ...view, is_active: true, last_seen: at ?? view['last_seen'] };
  if (presence === 'offline') return { ...view, is_active: false };
  return view;
}

export type FeedDraft = { [K in FeedEventType]: { type: K; location_id: number; at: string; data: FeedPayloads[K] } }[FeedEventType];

/** A session update's event names only the options it changed (GET /api/devices/{sn} has them all). */
function changedOnly(device: Device, changed: Readonly<Record<string, string>> | undefined): Device {
  return changed === undefined ? device : { ...device, options: { ...changed } };
}

/** The feed event a bus event becomes, or undefined (no location, or the record is gone). */
export async function draftOf<K extends keyof BusEvents>(ctx: ViewContext, name: K, payload: BusEvents[K]): Promise<FeedDraft | undefined> {
  const at = ctx.now().toISOString();
  switch (name) {
    case 'device.online':
    case 'device.offline': {
      const p = payload as BusEvents['device.online'];
      if (p.location_id === null) return undefined;
      const device = await ctx.store.devices.getBySerial(p.sn);
      if (!device) return undefined;
      const presence = name === 'device.online' ? 'online' : 'offline';
      return {
        type: name,
        location_id: p.location_id,
        at: p.at,
        data: { sn: p.sn, device: await deviceData(ctx, device, presence, p.at) },
      };
    }
    case 'device.updated': {
      const p = payload as BusEvents['device.updated'];
      if (p.location_id === null) return undefined;
      return {
        type: 'device.updated',
        location_id: p.location_id,
        at,
        data: { sn: p.device.serial_number, device: await deviceData(ctx, changedOnly(p.device, p.changed_options)) },
      };
    }
    case 'device.sync': {
      const p = payload as BusEvents['device.sync'];
      if (p.location_id === null) return undefined;
      return { type: 'device.sync', location_id: p.location_id, at, data: { sn: p.sn, sync: { ...p.sync } } };
    }
    case 'command.updated': {
      const p = payload as BusEvents['command.updated'];
      if (p.location_id === null) return undefined;
      return {
        type: 'command.updated',
        location_id: p.location_id,
        at,
        data: { command: commandData(p.command, await ctx.location(p.location_id)) },
      };
    }
    case 'attendance.recorded': {
      const p = payload as BusEvents['attendance.recorded'];
      return {
        type: 'attendance.recorded',
        location_id: p.location_id,
        at,
        data: { sn: p.records[0]?.source === 'manual' ? null : (p.records[0]?.sn ?? ''), records: p.records.map((r) => attendanceView(r)) },
      };
    }
    case 'attendance.voided': {
      const p = payload as BusEvents['attendance.voided'];
      return { type: 'attendance.voided', location_id: p.location_id, at, data: { record: attendanceView(p.record) } };
    }
    case 'attendance.photo': {
      const p = payload as BusEvents['attendance.photo'];
      const data = { record: attendanceView(p.record), photo_url: `/api/attendance/${p.record.id}/photo` };
      return { type: 'attendance.photo', location_id: p.location_id, at, data };
    }
    case 'door.event': {
      const p = payload as BusEvents['door.event'];
      return { type: 'door.event', location_id: p.location_id, at, data: doorEventView(p.record) };
    }
    case 'user.changed': {
      const p = payload as BusEvents['user.changed'];
      return { type: 'user.changed', location_id: p.location_id, at, data: { pins: [...p.pins], change: p.change } };
    }
    case 'schedule.changed': {
      const p = payload as BusEvents['schedule.changed'];
      return { type: 'schedule.changed', location_id: p.location_id, at, data: { schedule: scheduleView(p.schedule), change: p.change } };
    }
    case 'access_level.changed': {
      const p = payload as BusEvents['access_level.changed'];
      return { type: 'access_level.changed', location_id: p.location_id, at, data: { level: accessLevelView(p.level), change: p.change } };
    }
    case 'presence.changed': {
      const { location_id, count, users, absent } = payload as BusEvents['presence.changed'];
      return { type: 'presence.changed', location_id, at, data: { count, users: users.map((u) => ({ ...u })), absent: [...absent] } };
    }
    case 'area.changed': {
      const p = payload as BusEvents['area.changed'];
      const area = 'devices_count' in p.area ? areaView(p.area) : { id: p.area.id, name: p.area.name };
      return { type: 'area.changed', location_id: p.location_id, at, data: { area, change: p.change } };
    }
    case 'audit.recorded': {
      const p = payload as BusEvents['audit.recorded'];
      return { type: 'audit.recorded', location_id: p.location_id, at, data: { entry: auditEntryView(p.entry) } };
    }
    case 'alert.raised':
    case 'alert.cleared': {
      const p = payload as BusEvents['alert.raised' | 'alert.cleared'];
      return { type: name, location_id: p.location_id, at, data: alertEventView(p.rule, p.incident, p.cleared_at) } as FeedDraft;
    }
    default:
      return undefined;
  }
}
