/**
 * Starting and releasing an emergency scenario (issue #36 item 3; what each one does: src/locations/scenario.ts).
 *
 * Start: the scenario is put in force on the location first (compare-and-set: one scenario at a time, across
 * nodes), so door settings rendered from then on already follow it; then its preset goes to every terminal as a
 * location-wide command at SCENARIO_PRIORITY, and, for a lockdown, every door with a normal-open schedule is sent
 * its settings again (without the schedule). The answer is the parent command, whose id the scenario keeps.
 * Release: the scenario ends, the release preset goes to the terminals its start was queued for, and suspended
 * schedules are sent again. Nodes hear of either through the location's change (hub, credentials, feed signal).
 */
import type { Caller } from '../auth/authenticate.js';
import { BioGateError } from '../errors.js';
import { SCENARIO_PRIORITY, SCENARIOS } from '../locations/scenario.js';
import type { LocationService } from '../locations/service.js';
import type { SyncQueue } from '../sync/queue.js';
import type { Command, Location, ScenarioName } from '../store/ports/index.js';
import { isWideResult } from '../views/command.js';
import { queueLocationWide, type FanOutDeps } from './fan-out.js';

export interface ScenarioDeps extends FanOutDeps {
  readonly sync: Pick<SyncQueue, 'queueDoor'>;
  readonly locations: Pick<LocationService, 'changed'>;
}

async function current(deps: ScenarioDeps, id: number): Promise<Location> {
  const location = await deps.store.locations.get(id);
  if (!location) throw new BioGateError('LOCATION_NOT_FOUND', `Location ${id} not found`);
  return location;
}

/** Sends the settings of every door with a normal-open schedule again (rendered as the scenario in force says). */
async function resendNormalOpenDoors(deps: ScenarioDeps, locationId: number): Promise<void> {
  for (const d of await deps.store.devices.listAssigned(locationId)) {
    for (const [door, setting] of Object.entries(d.doors)) {
      if (setting.normal_open_schedule_id !== null) await deps.sync.queueDoor(locationId, d.serial_number, Number(door));
    }
  }
}

/** @throws SCENARIO_ACTIVE (another one is in force), VALIDATION_FAILED (no terminal) */
export async function startScenario(deps: ScenarioDeps, caller: Caller, name: ScenarioName): Promise<Command> {
  const { store } = deps;
  const plan = SCENARIOS[name];
  const id = caller.location.id;
  const before = await current(deps, id);
  const activeError = (active: string) =>
    new BioGateError('SCENARIO_ACTIVE', `${active} is in force: release it first (DELETE /api/scenarios/${active})`);
  if (before.scenario) throw activeError(before.scenario.name);
  const since = deps.now().toISOString();
  const started = await store.locations.setScenario(id, null, { name, since, command_id: null }, since);
  if (!started) throw activeError((await current(deps, id)).scenario?.name ?? 'another scenario');
  deps.locations.changed(started);
  let parent: Command;
  try {
    const body = { command: plan.start, priority: SCENARIO_PRIORITY };
    parent = await queueLocationWide(deps, { ...caller, location: started }, { all: true }, body, undefined, { urgent: true });
  } catch (err) {
    const undone = await store.locations.setScenario(id, name, null, deps.now().toISOString());
    if (undone) deps.locations.changed(undone);
    throw err;
  }
  const kept = await store.locations.setScenario(id, name, { name, since, command_id: parent.id }, deps.now().toISOString());
  if (kept) deps.locations.changed(kept);
  if (plan.suspendsNormalOpen) await resendNormalOpenDoors(deps, id);
  return parent;
}

/** @throws SCENARIO_NOT_ACTIVE; the release command, or null when its start reached no terminal. */
export async function releaseScenario(deps: ScenarioDeps, caller: Caller, name: ScenarioName): Promise<Command | null> {
  const { store } = deps;
  const plan = SCENARIOS[name];
  const id = caller.location.id;
  const notActive = () => new BioGateError('SCENARIO_NOT_ACTIVE', `${name} is not in force at this location`);
  const before = await current(deps, id);
  if (before.scenario?.name !== name) throw notActive();
  const start = before.scenario.command_id === null ? undefined : await store.commands.get(id, before.scenario.command_id);
  const children = start && isWideResult(start.result) ? start.result.children : [];
  const sns = (await Promise.all(children.map((c) => store.commands.get(id, c)))).flatMap((c) => (c ? [c.sn] : []));
  const released = await store.locations.setScenario(id, name, null, deps.now().toISOString());
  if (!released) throw notActive();
  deps.locations.changed(released);
  if (plan.suspendsNormalOpen) await resendNormalOpenDoors(deps, id);
  const assigned = new Set((await store.devices.listAssigned(id)).map((d) => d.serial_number));
  // Terminals moved away since the start get nothing here.
  const still = sns.filter((sn) => assigned.has(sn));
  if (still.length === 0) return null;
  const body = { command: plan.release, priority: SCENARIO_PRIORITY };
  return queueLocationWide(deps, { ...caller, location: released }, { sns: still }, body, undefined, { urgent: true });
}
