/** Cancelling a command: only one the API still shows as pending, and only if no poll claims it meanwhile. */
import type { CommandLifecycle } from '../devices/lifecycle.js';
import { BioGateError } from '../errors.js';
import type { Store } from '../store/types.js';
import type { Command, Location } from '../store/ports/index.js';
import { publicStatus } from '../views/command.js';

/** @throws COMMAND_NOT_FOUND, COMMAND_ALREADY_SENT */
export async function cancelCommand(store: Store, lifecycle: CommandLifecycle, location: Location, id: number): Promise<Command> {
  const c = await store.commands.get(location.id, id);
  if (!c) throw new BioGateError('COMMAND_NOT_FOUND', `Command ${id} not found`);
  const status = publicStatus(c);
  if (status !== 'pending') throw new BioGateError('COMMAND_ALREADY_SENT', `Command ${c.id} is ${status} and can no longer be cancelled`);
  // Atomic against a poll claiming it at the same moment: only a still-pending command is cancelled.
  const done = await lifecycle.cancel(c);
  if (!done) throw new BioGateError('COMMAND_ALREADY_SENT', `Command ${c.id} left the queue meanwhile`);
  return done;
}
