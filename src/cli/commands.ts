/**
 * The `biogate` command line [API-CONTRACT §4], parsed by commander: every command and
 * subcommand has --help (exit 0, never starts anything), unknown commands and flags name the
 * nearest valid one (exit 2). Handlers get typed flag readers (args.ts); `serve` and `simulate`
 * are run by main.ts, which owns signals and process exit.
 */
import { Command, CommanderError } from 'commander';
import { BioGateError } from '../errors.js';
import {
  configShow,
  locationCreate,
  locationList,
  locationSetActive,
  locationUpdate,
  tokenCreate,
  tokenList,
  tokenRevoke,
} from './admin.js';
import { flagReader, UsageError, type Flags, type FlagValues } from './args.js';
import { attendanceExport } from './attendance-export.js';
import { backupCommand, restoreCommand } from './backup.js';
import { commandSend } from './command-send.js';
import { doctorCommand } from './doctor.js';
import {
  deviceAcceptRegistration,
  deviceAssign,
  deviceDelete,
  deviceList,
  deviceResetRegistration,
  deviceUnassign,
  deviceUnassigned,
} from './devices.js';
import type { CliIo } from './io.js';
import { templatesExport, templatesImport } from './templates.js';
import { usersImportCommand } from './users-import.js';
import { webhookCreate, webhookDelete, webhookList } from './webhooks.js';
import { packageVersion } from '../version.js';
import { USAGE } from './usage.js';

export type { CliIo } from './io.js';

export { USAGE };

type Handler = (f: Flags, io: CliIo) => Promise<number>;

/** How main.ts runs the two long-lived commands; errors they throw reach main.ts unchanged. */
export interface ProcessCommands {
  readonly serve?: () => Promise<number>;
  readonly simulate?: (argv: readonly string[]) => Promise<number>;
}

interface Chosen {
  /** `location create` */
  readonly name: string;
  readonly run: () => Promise<number>;
  /** errors go to main.ts as they are (serve, simulate) */
  readonly passthrough: boolean;
}

type OptionSpec = readonly [flags: string, description: string];

const LOCATION: OptionSpec = ['--location <id>', 'location id'];
const SN: OptionSpec = ['--sn <sn>', 'device serial number'];
const JSON_FLAG: OptionSpec = ['--json', 'print JSON (a stable contract for scripts)'];

const pathOf = (cmd: Command): string => {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

function buildProgram(io: CliIo, argv: readonly string[], run: ProcessCommands, choose: (c: Chosen) => void): Command {
  const program = new Command('biogate')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s), outputError: () => {} })
    .enablePositionalOptions()
    .version(packageVersion(), '-v, --version', 'show the BioGate version')
    .helpOption('-h, --help', 'show help');
  program.helpInformation = () => `${USAGE}\n`;

  const group = (name: string, description: string) => program.command(name).description(description);
  /** A command whose flags are read by `handler`; at most `operands` positional arguments. */
  const leaf = (
    parent: Command,
    name: string,
    description: string,
    options: readonly OptionSpec[],
    handler: Handler,
    operands: readonly string[] = [],
  ) => {
    const cmd = parent.command(name).description(description).allowExcessArguments(true);
    for (const a of operands) cmd.argument(a);
    for (const [flags, desc] of options) cmd.option(flags, desc);
    cmd.action(() => {
      choose({
        name: pathOf(cmd),
        passthrough: false,
        run: () => {
          const extra = cmd.args[operands.length];
          if (extra !== undefined) throw new UsageError(`Unexpected argument '${extra}'`);
          return handler(flagReader(cmd.opts<FlagValues>(), cmd.args), io);
        },
      });
    });
    return cmd;
  };

  program
    .command('serve')
    .description('run the gateway (what "npm start" runs); settings come from BIOGATE_* variables')
    .action(() =>
      choose({ name: 'serve', passthrough: true, run: run.serve ?? (() => Promise.reject(new Error('serve runs from main.ts'))) }),
    );

  const location = group('location', 'locations (tenants) and their settings');
  leaf(
    location,
    'create',
    'create a location and print its first API token (shown once)',
    [
      ['--name <name>', 'display name'],
      ['--timezone <tz>', 'IANA time zone (default UTC)'],
      ['--require-comm-key <on|off>', 'devices need a comm key'],
      JSON_FLAG,
    ],
    locationCreate,
  );
  leaf(location, 'list', 'list locations with user and device counts', [JSON_FLAG], locationList);
  leaf(
    location,
    'update',
    'change a location',
    [
      ['--id <id>', 'location id'],
      ['--name <name>', 'display name'],
      ['--timezone <tz>', 'IANA time zone'],
      ['--require-comm-key <on|off>', 'devices need a comm key'],
      ['--attendance-debounce-s <s>', 'time cards: seconds within which a punch repeats the previous one (0–3600)'],
      ['--day-start-hour <h>', 'time cards: the local hour a working day starts at (0–23)'],
      ['--attendance-photos <on|off>', 'keep the punch photos terminals upload'],
      ['--attendance-photo-retention-days <d>', 'days a punch photo is kept (1–3650)'],
      JSON_FLAG,
    ],
    locationUpdate,
  );
  leaf(location, 'disable', 'disable a location: its tokens get 403', [['--id <id>', 'location id']], locationSetActive(false));
  leaf(location, 'enable', 'enable a disabled location', [['--id <id>', 'location id']], locationSetActive(true));

  const token = group('token', 'API tokens (the recovery when a token is lost)');
  leaf(
    token,
    'create',
    'issue a token for a location (shown once)',
    [
      LOCATION,
      ['--expires-in <days>', 'expiry, 1-3650 days (default: never)'],
      ['--scope <scope>', 'full, operator or read (default full)'],
      ['--label <text>', 'a note'],
      JSON_FLAG,
    ],
    tokenCreate,
  );
  leaf(token, 'list', 'list tokens (never their secrets)', [['--location <id>', 'only this location'], JSON_FLAG], tokenList);
  leaf(token, 'revoke', 'revoke a token at once', [['--id <n>', 'token id']], tokenRevoke);

  const device = group('device', 'terminals: list, assign, unassign, the unassigned ones');
  leaf(device, 'list', "list a location's devices", [LOCATION, JSON_FLAG], deviceList);
  leaf(
    device,
    'assign',
    'assign a device (seen or not yet) to a location',
    [LOCATION, SN, ['--name <name>', 'display name'], JSON_FLAG],
    deviceAssign,
  );
  leaf(device, 'unassign', 'unassign a device; its pending commands fail', [LOCATION, SN], deviceUnassign);
  leaf(device, 'unassigned', 'devices that contacted the gateway without being assigned', [JSON_FLAG], deviceUnassigned);
  leaf(device, 'reset-registration', 'a v3 terminal registers again (README "Security model")', [LOCATION, SN], deviceResetRegistration);
  leaf(
    device,
    'accept-registration',
    'let a terminal first seen as PUSH v2 register as v3 (like POST /api/devices/{sn}/accept-registration)',
    [LOCATION, SN, JSON_FLAG],
    deviceAcceptRegistration,
  );
  leaf(device, 'delete', 'forget an unassigned terminal (like DELETE /admin/devices/{sn})', [SN], deviceDelete);

  const command = group('command', 'device commands');
  leaf(
    command,
    'send',
    'queue a preset command (like POST /api/commands); --wait prints the final status',
    [
      LOCATION,
      SN,
      ['--params <json>', 'preset parameters, a JSON object'],
      ['--priority <n>', '0-100 (default 0)'],
      ['--wait', 'wait for the final status: exit 0 on success, 1 on failed'],
      ['--timeout <s>', 'with --wait: give up after S seconds (default 600)'],
      JSON_FLAG,
    ],
    commandSend,
    ['[preset]'],
  );

  const webhook = group('webhook', 'outbound webhooks (README "Webhooks")');
  leaf(webhook, 'list', "list a location's webhooks (never their secrets)", [LOCATION, JSON_FLAG], webhookList);
  leaf(
    webhook,
    'create',
    'subscribe a URL to events; prints the signing secret once',
    [
      LOCATION,
      ['--url <url>', 'https:// URL'],
      ['--events <list>', 'comma-separated event types'],
      ['--description <text>', 'a note'],
      ['--batch <n>', 'attendance records per delivery, 1-500 (default 1)'],
      JSON_FLAG,
    ],
    webhookCreate,
  );
  leaf(webhook, 'delete', 'delete a webhook and its pending deliveries', [LOCATION, ['--id <n>', 'webhook id']], webhookDelete);

  const attendance = group('attendance', 'attendance records');
  leaf(
    attendance,
    'export',
    'write the punches between --from and --to to stdout, newest first',
    [
      LOCATION,
      ['--from <time>', 'start, ISO 8601 date or datetime'],
      ['--to <time>', 'end, ISO 8601 date or datetime'],
      ['--format <format>', 'csv (default) or jsonl'],
    ],
    attendanceExport,
  );

  const users = group('users', 'users (people) of a location');
  users
    .command('import')
    .description('import users from a CSV file with a header row, or a JSON array')
    .argument('[file]', 'the file')
    .option(...LOCATION)
    .option('--dry-run', 'check every row, write nothing')
    .option('--encoding <enc>', 'utf-8, utf-16le, utf-16be, windows-1252 … (default: detected)')
    .option(...JSON_FLAG)
    .allowUnknownOption()
    .allowExcessArguments(true)
    .action(() => choose({ name: 'users import', passthrough: false, run: () => usersImportCommand(argv.slice(2), io) }));

  const templates = group('templates', 'biometric templates of a location, as NDJSON');
  leaf(templates, 'export', "write the location's templates to stdout, one JSON object a line", [LOCATION], templatesExport);
  leaf(
    templates,
    'import',
    'import templates from an NDJSON file (a bad line is reported with its number and skipped)',
    [LOCATION, JSON_FLAG],
    templatesImport,
    ['[file]'],
  );

  leaf(
    program,
    'backup',
    'copy the SQLite store to FILE while the server runs (MongoDB: prints the mongodump line)',
    [['--out <file>', 'the new backup file (never overwritten)'], JSON_FLAG],
    backupCommand,
  );
  leaf(
    program,
    'restore',
    'replace the SQLite store with a backup; refused while any process has the store open',
    [['--in <file>', 'the backup file'], ['--force', 'replace an existing store (it is kept as <file>.replaced-<time>)'], JSON_FLAG],
    restoreCommand,
  );

  leaf(
    program,
    'doctor',
    'check the configuration, store, ports, HTTP engine, TLS files, clock and MQTT settings; exit 1 on problems',
    [JSON_FLAG],
    doctorCommand,
  );

  // The simulator reads its own flags and prints its own help [src/simulator/cli-args.ts].
  program
    .command('simulate')
    .description('run simulated terminals against a BioGate server (see biogate simulate --help)')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments(true)
    .action(() => choose({ name: 'simulate', passthrough: true, run: () => (run.simulate ?? defaultSimulate(io))(argv.slice(1)) }));

  const configFlags: [string, string][] = [
    ['--json', 'as JSON: {"BIOGATE_PORT": {"value": 8080, "source": "default"}, …}'],
    ['--markdown', 'the README configuration table'],
  ];
  leaf(program, 'config', 'each BIOGATE_* setting, its value (secrets masked) and its source', configFlags, configShow);
  return program;
}

function defaultSimulate(io: CliIo) {
  return async (argv: readonly string[]) => {
    const { simulateCommand } = await import('../simulator/index.js');
    return simulateCommand([...argv], { stdout: io.stdout, stderr: io.stderr, isTTY: io.isTTY });
  };
}

/** The deepest command `argv` names, as far as it names commands. */
function walk(program: Command, argv: readonly string[]): Command {
  let cmd = program;
  for (const arg of argv) {
    const sub = cmd.commands.find((c) => c.name() === arg);
    if (!sub) break;
    cmd = sub;
  }
  return cmd;
}

/** commander's message as one line: `Unknown option '--colr' (did you mean --color?)`. */
function sentence(err: CommanderError): string {
  const [first = '', ...rest] = err.message.replace(/^error: /, '').split('\n');
  const hint = rest.join(' ').replace(/^\(Did you mean/, '(did you mean');
  return `${first.charAt(0).toUpperCase()}${first.slice(1)}${hint ? ` ${hint}` : ''}`;
}

function usageError(io: CliIo, program: Command, argv: readonly string[], err: CommanderError): number {
  const cmd = walk(program, argv);
  const path = pathOf(cmd);
  if (err.code === 'commander.unknownCommand') {
    const unknown = /unknown command '([^']*)'/.exec(err.message)?.[1] ?? '';
    const near = /Did you mean ([^?]+)\?/.exec(err.message)?.[1];
    const full = [path, unknown].filter(Boolean).join(' ');
    const hint = near ? ` (did you mean "${[path, near].filter(Boolean).join(' ')}"?)` : '';
    io.stderr.write(`biogate: unknown command "${full}"${hint}\n\n${USAGE}\n`);
    return 2;
  }
  const name = path === '' ? 'biogate' : `biogate ${path}`;
  // Nothing near the unknown flag: name the valid ones instead.
  const valid = cmd.options.map((o) => o.long).filter((l): l is string => l !== undefined);
  const list =
    err.code === 'commander.unknownOption' && !/Did you mean/.test(err.message) && valid.length > 0 ? ` (valid: ${valid.join(', ')})` : '';
  io.stderr.write(`${name}: ${sentence(err)}${list}\n`);
  return 2;
}

function reportFailure(io: CliIo, name: string, err: unknown): number {
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

/**
 * Runs one `biogate` command line; returns the exit code: 0 done (and every --help), 1 the
 * operation failed, 2 bad usage. `processCommands` run serve/simulate (main.ts); errors they throw propagate.
 */
export async function runCommand(argv: readonly string[], io: CliIo, processCommands: ProcessCommands = {}): Promise<number> {
  let chosen: Chosen | undefined;
  const program = buildProgram(io, argv, processCommands, (c) => (chosen = c));
  // Bare `biogate` and a bare group (`biogate location`) show their help: they never start anything.
  if (argv.length === 0) {
    io.stdout.write(program.helpInformation());
    return 0;
  }
  const named = walk(program, argv);
  if (argv.length === 1 && named !== program && named.commands.length > 0) {
    io.stdout.write(named.helpInformation());
    return 0;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help')
      return err.exitCode === 0 ? 0 : 2;
    return usageError(io, program, argv, err);
  }
  const picked = chosen as Chosen | undefined;
  if (!picked) return 2;
  if (picked.passthrough) return picked.run();
  try {
    return await picked.run();
  } catch (err) {
    return reportFailure(io, picked.name, err);
  }
}
