/**
 * Queueing a validated command body for a caller: the one path behind POST /api/commands,
 * POST /api/devices/{sn}/command and the MQTT request topic. The checks (device of the location,
 * preset supported, scope, mailbox bound, idempotency) are the command queue's (devices/command-queue.ts).
 */
import type { Static } from 'typebox';
import type { Caller } from '../auth/authenticate.js';
import type { CommandQueue } from '../devices/command-queue.js';
import type { Command } from '../store/ports/index.js';
import type { CommandBody } from './schemas.js';

/** Who queues: a location's token, or (`token` null) the admin, who acts for any location. */
export type CommandCaller = Pick<Caller, 'location'> & { readonly token: Caller['token'] | null };

export async function queueCommand(
  queue: CommandQueue,
  caller: CommandCaller,
  sn: string,
  body: Static<typeof CommandBody>,
  idempotencyKey?: string,
): Promise<Command> {
  const { command } = await queue.queue({
    location: caller.location,
    token: caller.token,
    sn,
    command: body.command,
    priority: body.priority ?? 0,
    params: body.params ?? null,
    expires_in: body.expires_in,
    idempotencyKey,
    root: ['body'],
  });
  return command;
}
