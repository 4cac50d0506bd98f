/**
 * A location-wide command (issue #36 item 3): POST /api/commands with `target` `{all: true}` or `{area_id}`
 * instead of `sn`. The parent is a composite record (sn LOCATION_WIDE_SN, shown as null) whose group holds one
 * child per matching terminal that supports the preset, each queued as POST /api/commands would queue it
 * alone (same checks, mailbox bound, rendering). The parent's result carries `targets` and `children`
 * (src/devices/wide-result.ts); it is `success` only when every child succeeded.
 *
 * While children are being queued the parent is marked `fanning`, so a child that fails at once (a preset
 * the terminal's dialect cannot express) does not end the parent early; the fan-out settles it when done.
 */
import type { Static } from 'typebox';
import type { CommandQueue } from '../devices/command-queue.js';
import type { CommandLifecycle } from '../devices/lifecycle.js';
import type { WideResult } from '../devices/wide-result.js';
import { BioGateError, invalid } from '../errors.js';
import type { Store } from '../store/types.js';
import { LOCATION_WIDE_SN, type Command, type Device } from '../store/ports/index.js';
import type { CommandCaller } from './queue.js';
import type { CommandBody, CommandTarget } from './schemas.js';

export interface FanOutDeps {
  readonly store: Store;
  readonly queue: CommandQueue;
  readonly lifecycle: CommandLifecycle;
  readonly now: () => Date;
}

/** A target of the API, or (a scenario's release) the terminals given its start. */
export type FanOutTarget = CommandTarget | { readonly sns: readonly string[] };

/** How a fan-out queues besides the body: an emergency scenario's commands pass the mailbox bound. */
export interface FanOutOptions {
  readonly urgent?: boolean;
}

/** The terminals a target names; 422 for an area the location does not have. */
async function targetsOf(store: Store, locationId: number, target: FanOutTarget): Promise<readonly Device[]> {
  const all = await store.devices.listAssigned(locationId);
  if ('all' in target) return all;
  if ('sns' in target) {
    const named = new Set(target.sns);
    return all.filter((d) => named.has(d.serial_number));
  }
  if (!(await store.areas.get(locationId, target.area_id))) {
    throw invalid(['body', 'target', 'area_id'], `no area ${target.area_id} in this location`, 'value_error');
  }
  return all.filter((d) => d.area_id === target.area_id);
}

export async function queueLocationWide(
  deps: FanOutDeps,
  caller: CommandCaller,
  target: FanOutTarget,
  body: Static<typeof CommandBody>,
  idempotencyKey?: string,
  options: FanOutOptions = {},
): Promise<Command> {
  const { store, queue, lifecycle } = deps;
  const locationId = caller.location.id;
  const base = {
    location: caller.location,
    token: caller.token,
    command: body.command,
    priority: body.priority ?? 0,
    params: body.params ?? null,
    expires_in: body.expires_in,
    root: ['body'],
    urgent: options.urgent,
  };
  const { command, params } = await queue.check({ ...base, sn: LOCATION_WIDE_SN });
  if (command === 'sync-users') throw invalid(['body', 'command'], 'sync-users goes to one terminal at a time (sn)', 'value_error');
  if (idempotencyKey !== undefined) {
    const prior = await store.commands.findByIdempotencyKey(locationId, caller.token?.id ?? null, idempotencyKey);
    if (prior) {
      if (prior.sn !== LOCATION_WIDE_SN || prior.command !== command) {
        throw new BioGateError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request');
      }
      return prior;
    }
  }
  const terminals = await targetsOf(store, locationId, target);
  if (terminals.length === 0) throw invalid(['body', 'target'], 'no terminal of this location matches the target', 'value_error');

  const at = deps.now().toISOString();
  const fanning: WideResult = { targets: { queued: 0, success: 0, failed: 0, unsupported: 0 }, children: [], refused: [], fanning: true };
  const parent = await lifecycle.create(
    {
      location_id: locationId,
      sn: LOCATION_WIDE_SN,
      command,
      params,
      priority: base.priority,
      origin: 'api',
      expires_at: null,
      created_by_token_id: caller.token?.id ?? null,
      idempotency_key: idempotencyKey ?? null,
      composite: true,
    },
    at,
  );
  await store.commands.progress(parent.id, { result: fanning }, at);

  const children: number[] = [];
  const refused: { sn: string; reason: string }[] = [];
  let unsupported = 0;
  for (const d of terminals) {
    try {
      const { command: child } = await queue.queue({ ...base, sn: d.serial_number, groupId: parent.id });
      children.push(child.id);
    } catch (err) {
      if (err instanceof BioGateError && err.code === 'COMMAND_NOT_SUPPORTED') unsupported++;
      else if (err instanceof BioGateError && err.code === 'MAILBOX_FULL') refused.push({ sn: d.serial_number, reason: err.message });
      else throw err;
    }
  }
  const result: WideResult = { targets: { queued: children.length, success: 0, failed: refused.length, unsupported }, children, refused };
  const written = (await store.commands.progress(parent.id, { result }, deps.now().toISOString())) ?? parent;
  await lifecycle.settleGroup(parent.id, true);
  return (await store.commands.get(locationId, parent.id)) ?? written;
}
