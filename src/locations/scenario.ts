/**
 * Emergency scenarios (issue #36 item 3): what each one sends and suspends. Starting and releasing one is
 * src/commands/scenarios.ts; this is what the renderer and the access audit need to agree on while one is in force.
 *
 * - `lockdown`: every door locked (`door-lock` [COMMANDS §4.7]: no verification opens it); the doors' normal-open
 *   schedules are suspended (sent as no schedule). Released with `door-unlock` (on Security PUSH: the end of the
 *   lock-down, not a pulse [COMMANDS §4.8]) and the schedules sent again.
 * - `evacuate`: every door open (`emergency-on`, dual-open [COMMANDS §4.12]). Released with `door-close`
 *   [COMMANDS §4.6]; the protocol documents no command that ends emergency mode (§4.12 emergency-off), so a
 *   terminal that stays in it needs a restart.
 *
 * Both are sent at SCENARIO_PRIORITY, above any priority the API accepts (0–100), past the mailbox bound.
 */
import type { DoorSetting, Location, ScenarioName } from '../store/ports/index.js';

export interface ScenarioPlan {
  /** The preset sent to every terminal when it starts. */
  readonly start: string;
  /** The preset sent, when it is released, to the terminals that were given `start`. */
  readonly release: string;
  /** Normal-open schedules are suspended while it is in force. */
  readonly suspendsNormalOpen: boolean;
}

export const SCENARIOS: Readonly<Record<ScenarioName, ScenarioPlan>> = {
  lockdown: { start: 'door-lock', release: 'door-unlock', suspendsNormalOpen: true },
  evacuate: { start: 'emergency-on', release: 'door-close', suspendsNormalOpen: false },
};

/** Ahead of anything queued: the API's priorities go to 100. */
export const SCENARIO_PRIORITY = 1000;

/** The normal-open schedule a door is given now: its own, or none while a scenario suspends them (0: none). */
export function keepOpenScheduleOf(location: Pick<Location, 'scenario'>, setting: DoorSetting): number {
  const suspended = location.scenario !== null && SCENARIOS[location.scenario.name].suspendsNormalOpen;
  return suspended ? 0 : (setting.normal_open_schedule_id ?? 0);
}
