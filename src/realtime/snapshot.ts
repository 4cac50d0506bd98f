/**
 * The retained topics of a location, as a late subscriber gets them first (MQTT retain semantics):
 * availability, state and roster sync state of every device assigned to the location, and who is in (`presence`,
 * `presence/<pin>`, read as GET /api/presence reads it), rendered with the same view as
 * GET /api/devices/{sn} (src/views/device.ts), so the snapshot and the live events that follow
 * cannot disagree on shape.
 */
import { deviceFeedView } from '../views/device.js';
import { isOnline } from '../views/device-status.js';
import { presenceOf } from '../attendance/days.js';
import { BioGateError } from '../errors.js';
import {
  availabilityTopic,
  PRESENCE_TOPIC,
  presenceMessages,
  presenceTopic,
  stateTopic,
  syncTopic,
  topicMatches,
  type TopicMessage,
} from '../events/topics.js';
import type { Store } from '../store/types.js';
import type { Device, Location } from '../store/ports/index.js';

export interface SnapshotDeps {
  readonly store: Store;
  readonly now: () => Date;
  readonly onlineThresholdS: number;
  /** This node's fresher last_seen of a device it serves (the store's is written behind). */
  readonly liveLastSeen?: ((sn: string) => string | undefined) | undefined;
  /** Online on another node, as the cluster announced it (devices/presence.ts): the store's last_seen lags. */
  readonly onlineElsewhere?: ((sn: string) => boolean) | undefined;
  /** Roster sync state of devices (DeviceResponse.sync, src/sync/terminal-state.ts): the retained `devices/<sn>/sync`. */
  readonly syncStates?: ((devices: readonly Device[]) => Promise<ReadonlyMap<string, unknown>>) | undefined;
}

/**
 * The retained messages `filters` select. The location's devices are read only when a filter can
 * match a device topic: reading and rendering 10,000 terminals holds the event loop some 450 ms, which
 * a client of `commands/#` must not cost, since it would receive none of them.
 */
export async function retainedMessages(deps: SnapshotDeps, location: Location, filters: readonly string[]): Promise<TopicMessage[]> {
  const present = filters.some(mayMatchPresenceTopics) ? await presenceMessagesOf(deps, location, filters) : [];
  if (!filters.some(mayMatchDeviceTopics)) return present;
  const devices = await deps.store.devices.listAssigned(location.id);
  const now = deps.now();
  const out: TopicMessage[] = [];
  const wantsSync = deps.syncStates !== undefined && devices.some((d) => filters.some((f) => topicMatches(f, syncTopic(d.serial_number))));
  const syncOf = wantsSync && deps.syncStates ? await deps.syncStates(devices) : undefined;
  const areas = await deps.store.areas.names(location.id);
  for (const stored of [...devices].sort((a, b) => a.serial_number.localeCompare(b.serial_number))) {
    const device = fresh(deps, stored);
    const online = isOnline(device.last_seen, now, deps.onlineThresholdS) || deps.onlineElsewhere?.(device.serial_number) === true;
    const availability = availabilityTopic(device.serial_number);
    const state = stateTopic(device.serial_number);
    if (filters.some((f) => topicMatches(f, availability)))
      out.push({ topic: availability, payload: online ? 'online' : 'offline', retain: true });
    if (filters.some((f) => topicMatches(f, state)))
      out.push({
        topic: state,
        payload: { ...deviceFeedView(device, location, now, deps.onlineThresholdS, areas), is_active: online },
        retain: true,
      });
    const sync = syncTopic(device.serial_number);
    const syncState = syncOf?.get(device.serial_number);
    if (syncState !== undefined && filters.some((f) => topicMatches(f, sync))) out.push({ topic: sync, payload: syncState, retain: true });
  }
  return [...out, ...present];
}

/** Whether a topic filter can match `presence` or `presence/<pin>` for some PIN. */
export function mayMatchPresenceTopics(filter: string): boolean {
  const level = filter.split('/')[1];
  const pin = level === undefined || level === '+' || level === '#' ? '1' : level;
  return topicMatches(filter, PRESENCE_TOPIC) || topicMatches(filter, presenceTopic(pin));
}

/**
 * Who is in (a read of the working day's punches, as GET /api/presence), the messages `filters` select; none for a
 * day beyond MAX_PUNCHES (the live events still come).
 */
async function presenceMessagesOf(deps: SnapshotDeps, location: Location, filters: readonly string[]): Promise<TopicMessage[]> {
  try {
    const { count, data } = await presenceOf(deps.store, { now: deps.now }, location, undefined);
    return presenceMessages(count, data).filter((m) => filters.some((f) => topicMatches(f, m.topic)));
  } catch (err) {
    if (err instanceof BioGateError && err.code === 'VALIDATION_FAILED') return [];
    throw err;
  }
}

/** Whether a topic filter can match `devices/<sn>/availability`, `/state` or `/sync` for some serial. */
export function mayMatchDeviceTopics(filter: string): boolean {
  // The serial's level: a name there selects that serial only; a wildcard (or no level) any serial.
  const level = filter.split('/')[1];
  const sn = level === undefined || level === '+' || level === '#' ? 'SN' : level;
  return topicMatches(filter, availabilityTopic(sn)) || topicMatches(filter, stateTopic(sn)) || topicMatches(filter, syncTopic(sn));
}

function fresh(deps: SnapshotDeps, d: Device): Device {
  const live = deps.liveLastSeen?.(d.serial_number);
  return live && (!d.last_seen || live > d.last_seen) ? { ...d, last_seen: live } : d;
}
