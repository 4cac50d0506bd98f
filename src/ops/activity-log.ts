/**
 * The info lines an operator reads to follow the terminals: a device
 * going online or offline, and each command reaching its final status. They come from the in-process
 * bus, so each line is written by the node where the fact happened, once for the cluster (presence is a
 * compare-and-set, a command finishes once). Device polls are not logged (volume): they are counted in
 * metrics. Assignment, first contact and import summaries are logged where they happen (devices/assignment.ts,
 * devices/actor.ts, users/import.ts), since the bus does not tell those apart from other updates.
 */
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../log.js';

/**
 * How much of a command's error message a log line carries. The device's raw answer (`response`) is
 * never logged: a query's answer may carry user data and template bytes.
 */
const ERROR_CHARS = 200;

export function logActivity(bus: EventBus, log: Logger): void {
  bus.on('device.online', ({ sn, location_id }) => log.info({ sn, location_id }, 'device online'));
  bus.on('device.offline', ({ sn, location_id }) => log.info({ sn, location_id }, 'device offline'));
  bus.on('command.updated', ({ command: c }) => {
    // Child lines of a multi-line command finish with their parent; sync ops are the roster's
    // bookkeeping (thousands per import): the operator follows them through sync-users and metrics.
    if (c.parent_id !== null || c.origin === 'sync') return;
    if (c.status !== 'success' && c.status !== 'failed') return;
    const fields = {
      id: c.id,
      sn: c.sn,
      location_id: c.location_id,
      command: c.command,
      status: c.status,
      origin: c.origin,
      ...(c.error_message !== null ? { error: c.error_message.slice(0, ERROR_CHARS) } : {}),
    };
    if (c.status === 'success') log.info(fields, 'command succeeded');
    else log.info(fields, 'command failed');
  });
}
