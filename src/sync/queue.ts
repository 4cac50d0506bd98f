/**
 * Turns user changes into per-device sync ops, in batches and coalesced
 * (DESIGN.md "Sync"). An op names what to do, not the wire text: the device
 * runtime renders it at dispatch time from the user's current data.
 */
import type { Clock } from '../clock.js';
import type { EventBus } from '../devices/event-bus.js';
import type { NewCommand, Store } from '../store/types.js';
import { SYNC_EXPIRY_S, SYNC_PRIORITY, type SyncOp } from './lanes.js';

export interface SyncQueue {
  /** Queues `op` for each pin on every assigned device of the location; returns the counts. */
  queueUsers(locationId: number, pins: readonly number[], op: 'user.upsert' | 'user.delete', options?: { exceptSn?: string }): Promise<SyncCounts>;
  /** Queues the location's whole active roster for one device (assignment, sync-users). */
  queueRoster(locationId: number, sn: string): Promise<SyncCounts>;
}

export interface SyncCounts {
  readonly devices: number;
  /** Ops created or refreshed (a coalesced op counts once). */
  readonly commands: number;
}

const BATCH = 2_000;

const priorityOf = (op: SyncOp) => (op === 'user.delete' ? SYNC_PRIORITY.delete : op === 'user.upsert' ? SYNC_PRIORITY.upsert : SYNC_PRIORITY.template);

export function createSyncQueue(store: Store, clock: Clock, bus: EventBus): SyncQueue {
  const opFor = (locationId: number, sn: string, pin: number, op: SyncOp, expires_at: string): NewCommand => ({
    location_id: locationId,
    sn,
    command: 'sync-users',
    params: { op, pin },
    priority: priorityOf(op),
    origin: 'sync',
    expires_at,
    // One pending op per (device, user): a newer change replaces an older one.
    sync_key: `user:${pin}`,
  });

  async function enqueue(ops: NewCommand[]): Promise<number> {
    let total = 0;
    const now = clock.now().toISOString();
    for (let i = 0; i < ops.length; i += BATCH) {
      const { created, replaced } = await store.commands.enqueueSync(ops.slice(i, i + BATCH), now);
      total += created + replaced;
    }
    return total;
  }

  const expiry = () => new Date(clock.now().getTime() + SYNC_EXPIRY_S * 1000).toISOString();
  const wake = (locationId: number, sns: readonly string[]) => {
    for (const sn of sns) bus.emit('mailbox.changed', { location_id: locationId, sn });
  };

  return {
    async queueUsers(locationId, pins, op, options = {}) {
      const devices = (await store.devices.listAssigned(locationId)).filter((d) => d.serial_number !== options.exceptSn);
      if (devices.length === 0 || pins.length === 0) return { devices: devices.length, commands: 0 };
      const expires = expiry();
      const ops: NewCommand[] = [];
      for (const d of devices) for (const pin of pins) ops.push(opFor(locationId, d.serial_number, pin, op, expires));
      const commands = await enqueue(ops);
      wake(locationId, devices.map((d) => d.serial_number));
      return { devices: devices.length, commands };
    },
    async queueRoster(locationId, sn) {
      const pins = await store.users.activePins(locationId);
      const expires = expiry();
      const commands = await enqueue(pins.map((pin) => opFor(locationId, sn, pin, 'user.upsert', expires)));
      if (commands > 0) wake(locationId, [sn]);
      return { devices: 1, commands };
    },
  };
}
