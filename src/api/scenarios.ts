/**
 * /api/scenarios (issue #36 item 3): lockdown and evacuation for every door of the location at once, and their
 * release. A `full` token only. What each sends and suspends: src/locations/scenario.ts; how:
 * src/commands/scenarios.ts. The scenario in force is `scenario` in GET /api/me.
 */
import { Type } from 'typebox';
import type { Caller } from '../auth/authenticate.js';
import { releaseScenario, startScenario, type ScenarioDeps } from '../commands/scenarios.js';
import { BioGateError } from '../errors.js';
import { SCENARIO_NAMES } from '../store/ports/index.js';
import { commandView, CommandView } from '../views/command.js';
import { Nullable } from '../views/common.js';
import { defineRoute, json, type ApiRoute } from './route.js';

const NameParam = Type.Object({
  name: Type.Union(
    SCENARIO_NAMES.map((n) => Type.Literal(n)),
    { description: 'lockdown: every door locked, normal-open schedules suspended; evacuate: every door open' },
  ),
});

function requireFull(caller: Caller): void {
  if (caller.token.scope !== 'full') throw new BioGateError('SCOPE_DENIED', 'Scenarios need a token with the full scope');
}

export function scenarioRoutes(deps: ScenarioDeps): ApiRoute[] {
  const tags = ['commands'];
  return [
    defineRoute({
      method: 'POST',
      path: '/api/scenarios/{name}',
      auth: 'location',
      params: NameParam,
      doc: {
        summary: 'Put a scenario in force: lockdown (door-lock, normal-open schedules suspended) or evacuate (emergency-on)',
        description:
          'Sent to every terminal of the location as a location-wide command ahead of anything queued (priority 1000, past the mailbox bound); the answer is that parent command. One scenario at a time: 409 while another is in force.',
        tags,
        responses: { 201: CommandView },
        errors: ['SCOPE_DENIED', 'SCENARIO_ACTIVE'],
      },
      handler: async ({ caller, params }) => {
        requireFull(caller);
        const parent = await startScenario(deps, caller, params.name);
        return json(201, commandView(parent, caller.location));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/scenarios/{name}',
      auth: 'location',
      params: NameParam,
      doc: {
        summary: 'Release a scenario: door-unlock (lockdown) or door-close (evacuate) to the terminals it reached; schedules sent again',
        description:
          'A terminal left in emergency mode by evacuate needs a restart: the protocol documents no command that ends it. `command` is null when the scenario reached no terminal.',
        tags,
        responses: { 200: Type.Object({ released: Type.String(), command: Nullable(CommandView) }) },
        errors: ['SCOPE_DENIED', 'SCENARIO_NOT_ACTIVE'],
      },
      handler: async ({ caller, params }) => {
        requireFull(caller);
        const command = await releaseScenario(deps, caller, params.name);
        return json(200, { released: params.name, command: command ? commandView(command, caller.location) : null });
      },
    }),
  ];
}
