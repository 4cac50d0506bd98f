/**
 * `biogate backup --out FILE` and `biogate restore --in FILE [--force]`: the store named
 * by BIOGATE_STORE, through src/store/maintenance.ts. A backup is taken while the server runs; a
 * restore refuses a store that any process has open. MongoDB: the commands print the mongodump /
 * mongorestore line to use and exit 2.
 */
import { resolve } from 'node:path';
import { systemClock } from '../clock.js';
import { loadConfig } from '../config/load.js';
import { backupStore, restoreStore, UseExternalToolError } from '../store/maintenance.js';
import { UsageError, type Flags } from './args.js';
import { json, print, type CliIo } from './io.js';

/** MongoDB: not ours to copy. Exit 2 (the command cannot do this here) with the line that can. */
function externalTool(io: CliIo, name: string, err: UseExternalToolError): number {
  io.stderr.write(`biogate ${name}: ${err.message}:\n  ${err.hint}\n`);
  return 2;
}

export async function backupCommand(f: Flags, io: CliIo): Promise<number> {
  const out = f.string('out', true) as string;
  const config = loadConfig({ env: io.env, overrides: { bootstrap: 'off' } });
  try {
    const r = await backupStore(config.store, resolve(out));
    if (f.flag('json'))
      print(io, json({ path: r.path, bytes: r.bytes, pages: r.pages, photos: r.photos, schema_version: r.schemaVersion, integrity: 'ok' }));
    else
      print(
        io,
        `Backup written to ${r.path} (${r.bytes} bytes, ${r.photos} photo files beside it, schema version ${r.schemaVersion}, integrity check ok).`,
      );
    return 0;
  } catch (err) {
    if (err instanceof UseExternalToolError) return externalTool(io, 'backup', err);
    throw err;
  }
}

export async function restoreCommand(f: Flags, io: CliIo): Promise<number> {
  const from = f.string('in', true) as string;
  const config = loadConfig({ env: io.env, overrides: { bootstrap: 'off' } });
  if (resolve(from) === resolve(config.store.replace(/^sqlite:/, ''))) throw new UsageError('--in names the store itself');
  try {
    const r = await restoreStore(config.store, resolve(from), { force: f.flag('force'), now: systemClock.now() });
    if (f.flag('json')) print(io, json({ path: r.path, schema_version: r.schemaVersion, previous: r.previous ?? null }));
    else {
      print(io, `Restored ${resolve(from)} to ${r.path} (schema version ${r.schemaVersion}).`);
      if (r.previous) print(io, `The store it replaced was kept as ${r.previous}.`);
      print(io, 'Start BioGate to use it (it applies any newer migrations at start).');
    }
    return 0;
  } catch (err) {
    if (err instanceof UseExternalToolError) return externalTool(io, 'restore', err);
    throw err;
  }
}
