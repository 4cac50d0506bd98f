/**
 * The retained topics of a location, as a late subscriber gets them first (MQTT retain semantics,
 * issue #15): availability and state of every device assigned to the location, rendered with the
 * same views as GET /api/devices/{sn} (src/api/device-views.ts), so the snapshot and the live
 * events that follow cannot disagree on shape.
 */
import { deviceView, isOnline } from '../api/device-views.js';
import { availabilityTopic, stateTopic, type TopicMessage } from '../events/topics.js';
import type { Device, Location, Store } from '../store/types.js';

export interface SnapshotDeps {
  readonly store: Store;
  readonly now: () => Date;
  readonly onlineThresholdS: number;
  /** This node's fresher last_seen of a device it serves (the store's is written behind). */
  readonly liveLastSeen?: ((sn: string) => string | undefined) | undefined;
}

export async function retainedMessages(deps: SnapshotDeps, location: Location): Promise<TopicMessage[]> {
  const devices = await deps.store.devices.listAssigned(location.id);
  const now = deps.now();
  const out: TopicMessage[] = [];
  for (const stored of [...devices].sort((a, b) => a.serial_number.localeCompare(b.serial_number))) {
    const device = fresh(deps, stored);
    const online = isOnline(device.last_seen, now, deps.onlineThresholdS);
    out.push({ topic: availabilityTopic(device.serial_number), payload: online ? 'online' : 'offline', retain: true });
    out.push({ topic: stateTopic(device.serial_number), payload: deviceView(device, location, now, deps.onlineThresholdS), retain: true });
  }
  return out;
}

function fresh(deps: SnapshotDeps, d: Device): Device {
  const live = deps.liveLastSeen?.(d.serial_number);
  return live && (!d.last_seen || live > d.last_seen) ? { ...d, last_seen: live } : d;
}
