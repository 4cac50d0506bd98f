/**
 * Assigning a terminal to a location: one path for `POST /api/devices`, the admin's
 * `POST /admin/devices/{sn}/assign` and `biogate device assign`, so each gets the same checks
 * (another location's device, the comm-key rule) and the same effects (the roster queued on a
 * first assignment, `device.updated` on the bus, the operator's log line). Unassigning and
 * resetting a registration likewise serve the API and the CLI alike. Each writes the device with the
 * outbox marker of its `device.updated` (src/events/outbox.ts): a crash or an outage before the event
 * is stored leaves it owed to the feed's sweep.
 */
import { BioGateError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { Device, Location, ProtocolVersion } from '../store/ports/index.js';
import type { EventBus } from '../events/bus.js';
import { newMarker } from '../events/outbox.js';
import type { CommandLifecycle } from './lifecycle.js';
import { checkDeviceQuota, DEFAULT_QUOTAS } from '../locations/quotas.js';

export interface AssignmentDeps {
  readonly store: Store;
  /** Queues the location's roster for a device just assigned (the sync queue's queueAssignment). */
  readonly sync: {
    queueAssignment(locationId: number, sn: string): Promise<unknown>;
    /** The terminal's area changed [issue #33]: the difference of the two rosters (src/sync/queue.ts). */
    queueAreaMove(locationId: number, sn: string, from: number | null, to: number | null): Promise<unknown>;
  };
  readonly bus: EventBus;
  readonly log?: Logger | undefined;
  /** BIOGATE_REQUIRE_COMM_KEY: every location refuses devices without a comm key. */
  readonly requireCommKey: boolean;
  /**
   * BIOGATE_DEVICE_CLAIM as it applies to this caller: `admin` for a location token when the setting is
   * `admin` (only serials once assigned to the location); `open` (the default) for the admin and the CLI.
   */
  readonly claim?: 'open' | 'admin';
  /** BIOGATE_QUOTA_DEVICES (default DEFAULT_QUOTAS.devices): most devices assigned to one location. */
  readonly quotaDevices?: number;
}

/** What the assignment may set; absent fields keep their stored value. */
export interface AssignmentInput {
  readonly name: string | null;
  readonly version_override?: ProtocolVersion | null;
  readonly comm_key_hash?: string | null;
  readonly allowed_networks?: readonly string[] | null;
  /** An area of the location (the caller checked it); absent keeps the stored one. */
  readonly area_id?: number | null;
}

export interface Assignment {
  /** `assigned`: newly (201 in the API); `already`: it was, the input was applied (200). */
  readonly outcome: 'assigned' | 'already';
  readonly device: Device;
}

/**
 * Assigns `sn` to `location`. Throws DEVICE_OTHER_LOCATION for another location's device (checked
 * first, whatever the input); DEVICE_CLAIM_ADMIN when `deps.claim` is `admin` and the serial was never
 * assigned to the location; `missingKey(rule)` when the comm-key rule applies and the device would have
 * no key after the call (the key in `input`, else the stored one); QUOTA_EXCEEDED when a device new to
 * the location would pass BIOGATE_QUOTA_DEVICES.
 */
export async function assignDevice(
  deps: AssignmentDeps,
  location: Location,
  sn: string,
  input: AssignmentInput,
  now: Date,
  missingKey: (rule: string) => BioGateError,
): Promise<Assignment> {
  const otherLocation = () => new BioGateError('DEVICE_OTHER_LOCATION', `Device ${sn} is assigned to another location`);
  const existing = await deps.store.devices.getBySerial(sn);
  const ours = existing?.location_id === location.id ? existing : undefined;
  if (existing && existing.location_id !== null && !ours) throw otherLocation();
  if (deps.claim === 'admin' && !ours && !(await deps.store.devices.seenIn(location.id, sn)))
    throw new BioGateError(
      'DEVICE_CLAIM_ADMIN',
      `BIOGATE_DEVICE_CLAIM=admin: ${sn} was never assigned to this location; the admin assigns it (POST /admin/devices/${sn}/assign)`,
    );
  if (deps.requireCommKey || location.require_comm_key) {
    const keyed = input.comm_key_hash !== undefined ? input.comm_key_hash !== null : Boolean(ours?.comm_key_hash);
    if (!keyed) throw missingKey(deps.requireCommKey ? 'BIOGATE_REQUIRE_COMM_KEY is on' : 'this location has require_comm_key');
  }
  if (!ours) await checkDeviceQuota(deps.store, location.id, deps.quotaDevices ?? DEFAULT_QUOTAS.devices);
  // The store's assignment stays the atomic check: two locations racing for one serial cannot both win.
  // The feed outbox (src/events/outbox.ts): the write carries the marker of its device.updated.
  const marker = newMarker();
  const { outcome, device } = await deps.store.devices.assign(location.id, sn, input, now.toISOString(), marker);
  if (outcome === 'other-location') throw otherLocation();
  if (outcome === 'assigned') {
    await deps.sync.queueAssignment(location.id, sn);
    deps.log?.info({ sn, location_id: location.id }, 'device assigned');
  } else if (ours && ours.area_id !== device.area_id) await deps.sync.queueAreaMove(location.id, sn, ours.area_id, device.area_id);
  deps.bus.emit('device.updated', { location_id: location.id, device, feed_event: marker });
  return { outcome, device };
}

/**
 * Unassigns `sn` from `location` (idempotent: false when it was not assigned there). Its pending
 * commands fail with "device unassigned", and `device.updated` tells the gateways (its poll answers
 * unassigned at once) and the feed's consumers.
 */
export async function unassignDevice(
  deps: Pick<AssignmentDeps, 'store' | 'bus' | 'log'> & { readonly lifecycle: Pick<CommandLifecycle, 'failPendingFor'> },
  location: Location,
  sn: string,
  now: Date,
): Promise<boolean> {
  const marker = newMarker();
  const before = await deps.store.devices.unassign(location.id, sn, now.toISOString(), marker);
  if (!before) return false;
  await deps.lifecycle.failPendingFor(sn, 'device unassigned');
  deps.log?.info({ sn, location_id: location.id }, 'device unassigned');
  const after = await deps.store.devices.getBySerial(sn);
  if (after) deps.bus.emit('device.updated', { location_id: location.id, device: after, feed_event: marker });
  return true;
}

/** [PUSH-v3 §5] A replaced terminal registers again: undefined when `sn` is not `location`'s. */
export async function resetRegistration(
  deps: Pick<AssignmentDeps, 'store' | 'bus'>,
  location: Location,
  sn: string,
  now: Date,
): Promise<Device | undefined> {
  const marker = newMarker();
  const device = await deps.store.devices.resetRegistration(location.id, sn, now.toISOString(), marker);
  if (device) deps.bus.emit('device.updated', { location_id: location.id, device, feed_event: marker });
  return device;
}

/** Unassigned terminals not heard from for this long are evicted (issue #32). */
export const UNASSIGNED_EVICT_MS = 30 * 86_400_000;
const EVICT_BATCH = 1_000;

/**
 * The admin deletes a terminal nobody assigned (`DELETE /admin/devices/{sn}`, `biogate device delete`).
 * A terminal that still calls is recorded again on its next request, as any unknown serial.
 * @throws DEVICE_NOT_FOUND (unknown serial), DEVICE_ASSIGNED (a location holds it: unassign it first)
 */
export async function deleteUnassignedDevice(deps: Pick<AssignmentDeps, 'store' | 'log'>, sn: string): Promise<void> {
  const outcome = await deps.store.devices.deleteUnassigned(sn);
  if (outcome === 'missing') throw new BioGateError('DEVICE_NOT_FOUND', `No device ${sn}`);
  if (outcome === 'assigned') throw new BioGateError('DEVICE_ASSIGNED', `Device ${sn} is assigned to a location: unassign it first`);
  deps.log?.info({ sn }, 'unassigned device deleted');
}

/**
 * The periodic sweep: unassigned terminals whose last contact (or first, never seen since) is older
 * than UNASSIGNED_EVICT_MS are deleted, in bounded batches. Idempotent: nodes sweeping at once each
 * delete what is left, a device once. Returns how many went.
 */
export async function evictUnassigned(deps: Pick<AssignmentDeps, 'store' | 'log'>, now: Date): Promise<number> {
  const before = new Date(now.getTime() - UNASSIGNED_EVICT_MS).toISOString();
  let total = 0;
  for (let n = EVICT_BATCH; n === EVICT_BATCH; total += n) n = await deps.store.devices.evictUnassigned(before, EVICT_BATCH);
  if (total > 0) deps.log?.info({ evicted: total, before }, 'unassigned devices not seen for 30 days evicted');
  return total;
}
