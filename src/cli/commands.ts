/**
 * The `biogate` administrative commands [API-CONTRACT §4]. They open the store
 * named by BIOGATE_STORE directly, so they work while the server runs, and the
 * server sees their changes at once (it reads tokens and locations per request).
 */
import { loadConfig } from '../config/load.js';
import { configTableMarkdown } from '../config/readme-table.js';
import { systemClock } from '../clock.js';
import { BioGateError } from '../errors.js';
import { createLocationService, publicToken, TOKEN_SCOPES } from '../locations/service.js';
import { openStore } from '../store/open.js';
import type { Location, Store, TokenScope } from '../store/types.js';
import { parseFlags, UsageError } from './args.js';
import { usersImportCommand } from './users-import.js';

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
  readonly isTTY: boolean;
}

export const USAGE = `Usage: biogate <command> [flags]

  serve                                         run the gateway (what "npm start" runs)
  location create --name NAME [--timezone TZ] [--require-comm-key on|off] [--json]
  location list [--json]
  location update --id ID [--name NAME] [--timezone TZ] [--require-comm-key on|off]
  location disable --id ID
  location enable --id ID
  token create --location ID [--expires-in DAYS] [--scope full|operator|read] [--json]
  token list [--location ID] [--json]
  token revoke --id N
  device reset-registration --location ID --sn SN   a v3 terminal registers again (README "Security model")
  users import --location ID FILE [--json]      CSV with a header row, or a JSON array
  simulate --devices N --protocol v2|v3|mixed --url URL --sn-prefix PREFIX
  config [--markdown]                           show the effective configuration

Configuration comes from BIOGATE_* environment variables (see README).`;

const print = (io: CliIo, text: string) => io.stdout.write(text.endsWith('\n') ? text : text + '\n');
const json = (value: unknown) => JSON.stringify(value, null, 2);

async function withStore<T>(io: CliIo, fn: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig({ env: io.env, overrides: { bootstrap: 'off' } });
  const store = await openStore(config.store);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function locationJson(store: Store, l: Location) {
  return { ...l, users_count: await store.users.count(l.id), devices_count: await store.devices.count(l.id) };
}

type Handler = (argv: readonly string[], io: CliIo) => Promise<number>;

const commands: Record<string, Handler> = {
  'location create': async (argv, io) => {
    const f = parseFlags(argv, { name: { type: 'string' }, timezone: { type: 'string' }, 'require-comm-key': { type: 'string' }, json: { type: 'boolean' } });
    const name = f.string('name', true) as string;
    const timezone = f.string('timezone');
    const requireCommKey = f.onOff('require-comm-key');
    return withStore(io, async (store) => {
      const { location, token } = await createLocationService(store, systemClock).create({
        name, ...(timezone !== undefined ? { timezone } : {}), ...(requireCommKey !== undefined ? { require_comm_key: requireCommKey } : {}),
      });
      if (f.flag('json')) print(io, json({ location: await locationJson(store, location), token: token.token }));
      else print(io, `Created location ${location.id} "${location.name}" (${location.timezone}).\nToken (shown once): ${token.token}`);
      return 0;
    });
  },
  'location list': async (argv, io) => {
    const f = parseFlags(argv, { json: { type: 'boolean' } });
    return withStore(io, async (store) => {
      const all = await Promise.all((await store.locations.list()).map((l) => locationJson(store, l)));
      if (f.flag('json')) print(io, json(all));
      else if (all.length === 0) print(io, 'No locations.');
      else for (const l of all) print(io, `${l.id}\t${l.is_active ? 'active  ' : 'disabled'}\t${l.timezone}\t${l.users_count} users\t${l.devices_count} devices\t${l.name}`);
      return 0;
    });
  },
  'location update': async (argv, io) => {
    const f = parseFlags(argv, { id: { type: 'string' }, name: { type: 'string' }, timezone: { type: 'string' }, 'require-comm-key': { type: 'string' }, json: { type: 'boolean' } });
    const id = f.int('id', { required: true, min: 1 }) as number;
    const patch: { name?: string; timezone?: string; require_comm_key?: boolean } = {};
    const name = f.string('name');
    const timezone = f.string('timezone');
    const requireCommKey = f.onOff('require-comm-key');
    if (name !== undefined) patch.name = name;
    if (timezone !== undefined) patch.timezone = timezone;
    if (requireCommKey !== undefined) patch.require_comm_key = requireCommKey;
    if (Object.keys(patch).length === 0) throw new UsageError('give --name, --timezone and/or --require-comm-key');
    return withStore(io, async (store) => {
      const l = await createLocationService(store, systemClock).update(id, patch);
      print(io, f.flag('json') ? json(await locationJson(store, l)) : `Updated location ${l.id} "${l.name}" (${l.timezone}).`);
      return 0;
    });
  },
  'location disable': (argv, io) => setActive(argv, io, false),
  'location enable': (argv, io) => setActive(argv, io, true),
  'token create': async (argv, io) => {
    const f = parseFlags(argv, { location: { type: 'string' }, 'expires-in': { type: 'string' }, scope: { type: 'string' }, label: { type: 'string' }, json: { type: 'boolean' } });
    const location_id = f.int('location', { required: true, min: 1 }) as number;
    const days = f.int('expires-in', { min: 1, max: 3650 }) ?? null;
    const scope = (f.string('scope') ?? 'full') as TokenScope;
    if (!TOKEN_SCOPES.includes(scope)) throw new UsageError(`--scope must be one of ${TOKEN_SCOPES.join(', ')}`);
    return withStore(io, async (store) => {
      const t = await createLocationService(store, systemClock).issueToken({ location_id, scope, expires_in_days: days, label: f.string('label') ?? null });
      if (f.flag('json')) print(io, json({ id: t.id, token: t.token, location_id: t.location_id, scope: t.scope, expires_at: t.expires_at }));
      else print(io, `Token ${t.id} for location ${t.location_id} (${t.scope}${t.expires_at ? `, expires ${t.expires_at}` : ''}), shown once:\n${t.token}`);
      return 0;
    });
  },
  'token list': async (argv, io) => {
    const f = parseFlags(argv, { location: { type: 'string' }, json: { type: 'boolean' } });
    const location = f.int('location', { min: 1 });
    return withStore(io, async (store) => {
      const tokens = (await createLocationService(store, systemClock).listTokens(location)).map(publicToken);
      if (f.flag('json')) print(io, json(tokens));
      else for (const t of tokens) print(io, `${t.id}\tlocation ${t.location_id}\t${t.scope}\t${t.revoked_at ? 'revoked' : t.expires_at ? `expires ${t.expires_at}` : 'active'}\t${t.label ?? ''}`);
      return 0;
    });
  },
  'token revoke': async (argv, io) => {
    const f = parseFlags(argv, { id: { type: 'string' } });
    const id = f.int('id', { required: true, min: 1 }) as number;
    return withStore(io, async (store) => {
      const t = await createLocationService(store, systemClock).revokeToken(id);
      print(io, `Token ${t.id} revoked at ${t.revoked_at ?? ''}.`);
      return 0;
    });
  },
  'device reset-registration': async (argv, io) => {
    const f = parseFlags(argv, { location: { type: 'string' }, sn: { type: 'string' } });
    const location = f.int('location', { required: true, min: 1 }) as number;
    const sn = f.string('sn', true) as string;
    if (!/^[\x21-\x7e]{1,64}$/.test(sn) || /[/<%]/.test(sn)) throw new UsageError('--sn must be 1-64 printable ASCII characters without space, /, < or %');
    return withStore(io, async (store) => {
      const device = await store.devices.resetRegistration(location, sn, systemClock.now().toISOString());
      if (!device) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${sn} not found in location ${location}`);
      print(io, `Registration of ${sn} reset: its next registry request registers it again.`);
      return 0;
    });
  },
  config: async (argv, io) => {
    const f = parseFlags(argv, { markdown: { type: 'boolean' } });
    if (f.flag('markdown')) {
      print(io, configTableMarkdown());
      return 0;
    }
    const { describeConfig } = await import('../config/load.js');
    print(io, json(describeConfig(loadConfig({ env: io.env }))));
    return 0;
  },
};

async function setActive(argv: readonly string[], io: CliIo, active: boolean): Promise<number> {
  const f = parseFlags(argv, { id: { type: 'string' } });
  const id = f.int('id', { required: true, min: 1 }) as number;
  return withStore(io, async (store) => {
    const l = await createLocationService(store, systemClock).update(id, { is_active: active });
    print(io, `Location ${l.id} "${l.name}" ${active ? 'enabled' : 'disabled'}.`);
    return 0;
  });
}

commands['users import'] = (argv, io) => usersImportCommand(argv, io);

/** Registers a command implemented elsewhere. */
export function registerCommand(name: string, handler: Handler): void {
  commands[name] = handler;
}

/** Runs one administrative command; returns the exit code. `serve` is handled by main.ts. */
export async function runCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const two = argv.slice(0, 2).join(' ');
  const [name, rest] = commands[two] ? [two, argv.slice(2)] : [argv[0] ?? '', argv.slice(1)];
  const handler = commands[name];
  if (!handler || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    const known = !handler && argv.length > 0 && !['help', '--help', '-h'].includes(argv[0] ?? '');
    (known ? io.stderr : io.stdout).write(`${known ? `biogate: unknown command "${argv.join(' ')}"\n\n` : ''}${USAGE}\n`);
    return known ? 2 : 0;
  }
  try {
    return await handler(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`biogate ${name}: ${err.message}\n`);
      return 2;
    }
    if (err instanceof BioGateError) {
      // A value the service rejects (an unknown --timezone, an over-long --name) is a bad flag: exit 2, named as the flag.
      if (err.code === 'VALIDATION_FAILED' && typeof err.detail !== 'string') {
        const problems = err.detail.map((i) => `--${String(i.loc.at(-1) ?? '').replaceAll('_', '-')}: ${i.msg}`).join('; ');
        io.stderr.write(`biogate ${name}: ${problems}\n`);
        return 2;
      }
      const detail = typeof err.detail === 'string' ? err.detail : err.detail.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; ');
      io.stderr.write(`biogate ${name}: ${detail} (${err.code})\n`);
      return 1;
    }
    io.stderr.write(`biogate ${name}: ${(err as Error).message}\n`);
    return 1;
  }
}
