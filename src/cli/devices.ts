/**
 * `biogate device …`: the location's terminals, and the ones that called in unassigned.
 * Same store writes and side effects as /api/devices (assignment queues the roster sync;
 * unassigning fails the pending commands), so the running server picks them up.
 */
import { deviceView } from '../views/device.js';
import { systemClock } from '../clock.js';
import { assignDevice, deleteUnassignedDevice, resetRegistration, unassignDevice } from '../devices/assignment.js';
import { createCommandLifecycle } from '../devices/lifecycle.js';
import { BioGateError } from '../errors.js';
import type { Store } from '../store/types.js';
import type { Device, Location } from '../store/ports/index.js';
import { createSyncQueue } from '../sync/queue.js';
import { serialFlag, UsageError, type Flags } from './args.js';
import { json, print, withStore, type CliIo } from './io.js';

const PAGE = 500;

async function locationOf(store: Store, f: Flags): Promise<Location> {
  const id = f.int('location', { required: true, min: 1 }) as number;
  const location = await store.locations.get(id);
  if (!location) throw new BioGateError('LOCATION_NOT_FOUND', `Location ${id} not found`);
  return location;
}

/** Every page of a paged store listing. */
async function all<T>(page: (window: { offset: number; limit: number }) => Promise<{ items: readonly T[]; total: number }>): Promise<T[]> {
  const out: T[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const p = await page({ offset, limit: PAGE });
    out.push(...p.items);
    if (p.items.length < PAGE || out.length >= p.total) return out;
  }
}

export async function deviceList(f: Flags, io: CliIo): Promise<number> {
  return withStore(io, async (store, config) => {
    const location = await locationOf(store, f);
    const now = systemClock.now();
    const areas = await store.areas.names(location.id);
    const views = (await all((w) => store.devices.list(location.id, {}, w))).map((d) =>
      deviceView(d, location, now, config.onlineThresholdS, 'full', areas),
    );
    if (f.flag('json')) print(io, json(views));
    else if (views.length === 0) print(io, `No devices in location ${location.id}.`);
    else
      for (const d of views)
        print(
          io,
          `${d.serial_number}\t${d.is_active ? 'online ' : 'offline'}\t${d.version ?? '-'}\t${d.last_seen ?? 'never seen'}\t${d.name}`,
        );
    return 0;
  });
}

export async function deviceAssign(f: Flags, io: CliIo): Promise<number> {
  const sn = serialFlag(f);
  const name = f.string('name') ?? null;
  if (name !== null && name.trim().length > 100) throw new UsageError('--name must be at most 100 characters');
  return withStore(io, async (store, config, { bus }) => {
    const location = await locationOf(store, f);
    const now = systemClock.now();
    const { outcome, device } = await assignDevice(
      {
        store,
        bus,
        sync: createSyncQueue(store, systemClock, bus),
        requireCommKey: config.requireCommKey === 'on',
        quotaDevices: config.quotaDevices,
      },
      location,
      sn,
      { name },
      now,
      () =>
        new BioGateError(
          'VALIDATION_FAILED',
          `Device ${sn} needs a comm key in this location: assign it through POST /api/devices with comm_key`,
        ),
    );
    if (f.flag('json'))
      print(io, json(deviceView(device, location, now, config.onlineThresholdS, 'full', await store.areas.names(location.id))));
    else
      print(
        io,
        outcome === 'assigned' ? `Assigned ${sn} to location ${location.id}.` : `${sn} already belongs to location ${location.id}.`,
      );
    return 0;
  });
}

export async function deviceUnassign(f: Flags, io: CliIo): Promise<number> {
  const sn = serialFlag(f);
  return withStore(io, async (store, _config, { bus }) => {
    const location = await locationOf(store, f);
    const lifecycle = createCommandLifecycle({ store, clock: systemClock, bus });
    const done = await unassignDevice({ store, bus, lifecycle }, location, sn, systemClock.now());
    print(io, done ? `Unassigned ${sn} from location ${location.id}.` : `${sn} was not assigned to location ${location.id}.`);
    return 0;
  });
}

const unassignedRow = (d: Device) => ({
  serial_number: d.serial_number,
  first_contact: d.created_at,
  last_contact: d.last_seen,
  address: d.last_address,
});

export async function deviceUnassigned(f: Flags, io: CliIo): Promise<number> {
  return withStore(io, async (store) => {
    const rows = (await all((w) => store.devices.listUnassigned(w))).map(unassignedRow);
    if (f.flag('json')) print(io, json(rows));
    else if (rows.length === 0) print(io, 'No unassigned devices.');
    else
      for (const r of rows)
        print(io, `${r.serial_number}\tfirst ${r.first_contact}\tlast ${r.last_contact ?? 'never'}\t${r.address ?? '-'}`);
    return 0;
  });
}

export async function deviceResetRegistration(f: Flags, io: CliIo): Promise<number> {
  const sn = serialFlag(f);
  return withStore(io, async (store, _config, { bus }) => {
    const location = await locationOf(store, f);
    const device = await resetRegistration({ store, bus }, location, sn, systemClock.now());
    if (!device) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${sn} not found in location ${location.id}`);
    print(io, `Registration of ${sn} reset: its next registry request registers it again.`);
    return 0;
  });
}

/**
 * [PUSH-v3 §3.3] `POST /api/devices/{sn}/accept-registration`: a terminal first seen as v2 (or whose
 * registry request was refused with 406) may register as v3; its next registry request registers it.
 */
export async function deviceAcceptRegistration(f: Flags, io: CliIo): Promise<number> {
  const sn = serialFlag(f);
  return withStore(io, async (store, config, { bus }) => {
    const location = await locationOf(store, f);
    const now = systemClock.now();
    const device = await resetRegistration({ store, bus }, location, sn, now);
    if (!device) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${sn} not found in location ${location.id}`);
    if (f.flag('json'))
      print(io, json(deviceView(device, location, now, config.onlineThresholdS, 'full', await store.areas.names(location.id))));
    else print(io, `Registration of ${sn} accepted: its next registry request registers it.`);
    return 0;
  });
}

/** `DELETE /admin/devices/{sn}`: forgets an unassigned terminal (exit 1 when unknown or assigned). */
export async function deviceDelete(f: Flags, io: CliIo): Promise<number> {
  const sn = serialFlag(f);
  return withStore(io, async (store) => {
    await deleteUnassignedDevice({ store }, sn);
    print(io, `Deleted the unassigned device ${sn}.`);
    return 0;
  });
}
