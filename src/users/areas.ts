/**
 * Areas (issue #33 item 1): which terminals know which people. Creating, renaming and deleting areas,
 * checking the ids a user write names, and moving a terminal between areas, with their effects: the
 * `area.changed` event, and a terminal's move queued as exactly the difference of the two rosters
 * (revocations first). The roster each terminal holds is `holdsUser` (../store/ports/areas.ts), the one
 * rule rendering (devices/render.ts), the outbox (sync/outbox.ts), the roster queue and the audit share.
 */
import { BioGateError } from '../errors.js';
import { newMarker } from '../events/outbox.js';
import { MAX_AREAS, type CountedArea, type Device, type Location } from '../store/ports/index.js';
import { announceRule, type RuleDeps } from './effects.js';
import type { SyncCounts, SyncQueue } from '../sync/queue.js';

export type AreasDeps = RuleDeps<Pick<SyncQueue, 'queueAreaMove'>>;

const notFound = (id: number) => new BioGateError('AREA_NOT_FOUND', `Area ${id} not found`);

const announce = (
  deps: AreasDeps,
  locationId: number,
  area: CountedArea | { id: number; name: string },
  change: 'created' | 'updated' | 'deleted',
) => announceRule(deps, 'area.changed', { location_id: locationId, area, change }, area.id);

export async function createArea(deps: AreasDeps, location: Location, name: string): Promise<CountedArea> {
  if ((await deps.store.areas.list(location.id, { offset: 0, limit: 0 })).total >= MAX_AREAS)
    throw new BioGateError('VALIDATION_FAILED', [
      { loc: ['body', 'name'], msg: `a location holds at most ${MAX_AREAS} areas`, type: 'value_error' },
    ]);
  const area = await deps.store.areas.create(location.id, name.trim(), deps.clock.now().toISOString());
  await announce(deps, location.id, area, 'created');
  return area;
}

export async function getArea(deps: Pick<AreasDeps, 'store'>, location: Location, id: number): Promise<CountedArea> {
  const area = await deps.store.areas.get(location.id, id);
  if (!area) throw notFound(id);
  return area;
}

export async function renameArea(deps: AreasDeps, location: Location, id: number, name: string): Promise<CountedArea> {
  const area = await deps.store.areas.rename(location.id, id, name.trim(), deps.clock.now().toISOString());
  if (!area) throw notFound(id);
  await announce(deps, location.id, area, 'updated');
  return area;
}

/** @throws AREA_NOT_FOUND, AREA_IN_USE (terminals are in it) */
export async function deleteArea(deps: AreasDeps, location: Location, id: number): Promise<void> {
  const before = await deps.store.areas.get(location.id, id);
  const outcome = await deps.store.areas.delete(location.id, id);
  if (outcome === 'missing' || !before) throw notFound(id);
  if (outcome === 'in_use')
    throw new BioGateError('AREA_IN_USE', `Area ${id} still has terminals: move them to another area (or none) first`);
  await announce(deps, location.id, { id, name: before.name }, 'deleted');
}

/**
 * An operator's patch of a terminal (name, area). A new area must be the location's (422 otherwise);
 * the terminal's move is queued as the difference of the two rosters. An area deleted while the
 * terminal was put in it (two requests at once) is caught after the write: the terminal leaves it
 * again and the request fails, so no terminal stays in an area that is gone.
 */
export async function patchDevice(
  deps: AreasDeps,
  location: Location,
  sn: string,
  patch: { readonly name?: string; readonly area_id?: number | null },
): Promise<Device> {
  const missing = () =>
    new BioGateError('VALIDATION_FAILED', [
      { loc: ['body', 'area_id'], msg: `no area ${String(patch.area_id)} in this location`, type: 'value_error' },
    ]);
  if (typeof patch.area_id === 'number' && (await deps.store.areas.existing(location.id, [patch.area_id])).length === 0) throw missing();
  const marker = newMarker();
  const now = deps.clock.now().toISOString();
  const r = await deps.store.devices.update(location.id, sn, patch, now, marker);
  if (!r) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${sn} not found`);
  deps.bus.emit('device.updated', { location_id: location.id, device: r.after, feed_event: marker });
  if (typeof patch.area_id === 'number' && (await deps.store.areas.existing(location.id, [patch.area_id])).length === 0) {
    const back = newMarker();
    const undone = await deps.store.devices.update(location.id, sn, { area_id: r.before.area_id }, now, back);
    if (undone) deps.bus.emit('device.updated', { location_id: location.id, device: undone.after, feed_event: back });
    throw missing();
  }
  await moveTerminal(deps, location.id, sn, r.before.area_id, r.after.area_id);
  return r.after;
}

/** A terminal moved between areas (or into or out of one): the difference of the rosters, logged. */
export async function moveTerminal(
  deps: AreasDeps,
  locationId: number,
  sn: string,
  from: number | null,
  to: number | null,
): Promise<SyncCounts> {
  if (from === to) return { devices: 1, commands: 0 };
  const counts = await deps.sync.queueAreaMove(locationId, sn, from, to);
  deps.log?.info({ sn, location_id: locationId, from, to, ops: counts.commands }, 'terminal moved between areas');
  return counts;
}
