/**
 * `biogate command send --location ID --sn SN PRESET [--params JSON] [--wait]`: queues through the
 * same command queue as POST /api/commands (validation, presets, mailbox limit) [COMMANDS §2].
 * The server delivers it on the terminal's next poll; with --wait this process polls the store
 * until the status is final and prints it: exit 0 on success, 1 on failed (or --timeout).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { commandView } from '../views/command.js';
import { systemClock } from '../clock.js';
import { createCommandQueue } from '../devices/command-queue.js';
import { createCommandLifecycle } from '../devices/lifecycle.js';
import { BioGateError } from '../errors.js';
import type { Command } from '../store/ports/index.js';
import { createSyncQueue } from '../sync/queue.js';
import { serialFlag, UsageError, type Flags } from './args.js';
import { json, print, withStore, type CliIo } from './io.js';

const POLL_MS = 250;

function paramsFlag(f: Flags): Record<string, unknown> | null {
  const raw = f.string('params');
  if (raw === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new UsageError(`--params must be a JSON object, got ${JSON.stringify(raw)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError('--params must be a JSON object');
  return value as Record<string, unknown>;
}

const describe = (c: ReturnType<typeof commandView>) =>
  `Command ${c.id} (${c.command} on ${c.sn}): ${c.status}${c.error_message ? ` (${c.error_message})` : ''}${c.response ? `\n${c.response}` : ''}`;

export async function commandSend(f: Flags, io: CliIo): Promise<number> {
  const location_id = f.int('location', { required: true, min: 1 }) as number;
  const sn = serialFlag(f);
  const preset = f.positionals[0];
  if (preset === undefined || preset === '') throw new UsageError('give the command (a preset such as reboot or info)');
  const params = paramsFlag(f);
  const priority = f.int('priority', { min: 0, max: 100 }) ?? 0;
  const timeoutS = f.int('timeout', { min: 1, max: 86_400 }) ?? 600;
  const wait = f.flag('wait');
  return withStore(io, async (store, config, { bus }) => {
    const location = await store.locations.get(location_id);
    if (!location) throw new BioGateError('LOCATION_NOT_FOUND', `Location ${location_id} not found`);
    const lifecycle = createCommandLifecycle({ store, clock: systemClock, bus });
    const sync = createSyncQueue(store, systemClock, bus);
    const queue = createCommandQueue({
      store,
      clock: systemClock,
      bus,
      lifecycle,
      mailboxLimit: config.mailboxLimit,
      firmwareAllowPrivate: config.firmwareAllowPrivate === 'on',
      queueRoster: sync.queueRoster,
    });
    let { command } = await queue.queue({ location, token: null, sn, command: preset, priority, params, root: [] });
    const finalStatus = (c: Command) => c.status === 'success' || c.status === 'failed';
    const deadline = Date.now() + timeoutS * 1000;
    while (wait && !finalStatus(command) && Date.now() < deadline) {
      await sleep(POLL_MS);
      command = (await store.commands.get(location.id, command.id)) ?? command;
    }
    const view = commandView(command, location);
    print(
      io,
      f.flag('json')
        ? json(view)
        : wait || finalStatus(command)
          ? describe(view)
          : `Queued command ${view.id} (${view.command} on ${view.sn}).`,
    );
    if (wait && !finalStatus(command)) {
      io.stderr.write(`biogate command send: still ${view.status} after ${timeoutS} s\n`);
      return 1;
    }
    return command.status === 'failed' ? 1 : 0;
  });
}
