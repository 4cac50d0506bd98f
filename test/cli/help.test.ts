/**
 * Issue #19, CLI: every command and subcommand explains itself with --help (exit 0, never
 * starting anything), --version prints the package version, unknown commands and flags name
 * the nearest valid one (exit 2). Run in-process through runCommand, and the built executable.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { MIN_NODE, sqliteUnsupportedNode, unsupportedNode } from '../../src/node-version.js';
import { cli } from '../helpers/cli.js';

const COMMANDS = [
  'serve',
  'location',
  'location create',
  'location list',
  'location update',
  'location disable',
  'location enable',
  'token',
  'token create',
  'token list',
  'token revoke',
  'device',
  'device list',
  'device assign',
  'device unassign',
  'device unassigned',
  'device reset-registration',
  'device accept-registration',
  'device delete',
  'command',
  'command send',
  'attendance',
  'attendance export',
  'users',
  'users import',
  'config',
];
const VERSION = (JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { version: string }).version;

t.test('bare biogate, --help, -h and help print the overview and exit 0', async (t) => {
  for (const argv of [[], ['--help'], ['-h'], ['help']]) {
    const r = await cli(argv, {});
    t.equal(r.code, 0, `${argv.join(' ') || '(bare)'}: exit 0`);
    t.equal(r.stderr, '');
    t.match(r.stdout, /^Usage: biogate <command> \[flags\]\n/);
    for (const cmd of ['device unassigned', 'command send', 'attendance export', 'simulate'])
      t.ok(r.stdout.includes(`  ${cmd}`), `lists ${cmd}`);
  }
});

t.test('every command and subcommand has --help: exit 0, its own usage, nothing started', async (t) => {
  for (const cmd of COMMANDS) {
    for (const flag of ['--help', '-h']) {
      const r = await cli([...cmd.split(' '), flag], {});
      t.equal(r.code, 0, `${cmd} ${flag}: exit 0`);
      t.equal(r.stderr, '', `${cmd} ${flag}: nothing on stderr`);
      t.match(r.stdout, new RegExp(`^Usage: biogate ${cmd} `), `${cmd} ${flag}: its usage`);
    }
  }
  const sim = await cli(['simulate', '--help'], {});
  t.equal(sim.code, 0);
  t.match(sim.stdout, /^Usage: biogate simulate --devices N/);
  const group = await cli(['device'], {});
  t.equal(group.code, 0, 'a bare group shows its help');
  t.match(group.stdout, /^Usage: biogate device .*\n[\s\S]*unassigned/);
  const flagHelp = await cli(['command', 'send', '--help'], {});
  for (const flag of ['--location', '--sn', '--params', '--wait'])
    t.ok(flagHelp.stdout.includes(flag), `command send --help names ${flag}`);
});

t.test('--version prints the package version', async (t) => {
  for (const flag of ['--version', '-v']) {
    const r = await cli([flag], {});
    t.same(r, { code: 0, stdout: `${VERSION}\n`, stderr: '' });
  }
});

t.test('unknown commands and flags: the nearest valid one, exit 2, nothing on stdout', async (t) => {
  const cases: [argv: string[], stderr: string | RegExp][] = [
    [['locaton', 'list'], /^biogate: unknown command "locaton" \(did you mean "location"\?\)\n\nUsage: biogate <command>/],
    [['location', 'lst'], /^biogate: unknown command "location lst" \(did you mean "location list"\?\)\n\nUsage: biogate <command>/],
    [['device', 'unasigned'], /^biogate: unknown command "device unasigned" \(did you mean "device unassigned"\?\)\n/],
    [['frobnicate'], /^biogate: unknown command "frobnicate"\n\nUsage: biogate <command>/],
    [['location', 'create', '--nme', 'X'], "biogate location create: Unknown option '--nme' (did you mean --name?)\n"],
    [['token', 'list', '--jsn'], "biogate token list: Unknown option '--jsn' (did you mean --json?)\n"],
    [['token', 'revoke', '--colour', 'red'], "biogate token revoke: Unknown option '--colour' (valid: --id)\n"],
    [['--verison'], /^biogate: Unknown option '--verison' \(did you mean --version\?\)\n/],
    [['location', 'create', '--name'], "biogate location create: Option '--name <name>' argument missing\n"],
    [['device', 'list', 'extra', '--location', '1'], "biogate device list: Unexpected argument 'extra'\n"],
  ];
  for (const [argv, stderr] of cases) {
    const r = await cli(argv, {});
    const label = argv.join(' ');
    t.equal(r.code, 2, `${label}: exit 2`);
    t.equal(r.stdout, '', `${label}: nothing on stdout`);
    if (typeof stderr === 'string') t.equal(r.stderr, stderr, `${label}: stderr`);
    else t.match(r.stderr, stderr, `${label}: stderr`);
  }
});

const CLI_JS = join(process.cwd(), 'dist', 'src', 'cli.js');
const noDist = existsSync(CLI_JS) ? false : `${CLI_JS} is missing: run "npx tsc -p tsconfig.json" first`;

t.test('the executable: bare, --help and serve --help exit 0 at once without binding a port', { skip: noDist }, async (t) => {
  // A port that is certainly unusable: starting the server would fail with exit 1.
  const env = { ...process.env, BIOGATE_PORT: '1', BIOGATE_HOST: '203.0.113.1', BIOGATE_STORE: 'sqlite::memory:' };
  for (const argv of [[], ['--help'], ['serve', '--help'], ['location', '--help'], ['--version']]) {
    const r = spawnSync(process.execPath, [CLI_JS, ...argv], { env, encoding: 'utf8', timeout: 20_000 });
    t.equal(r.status, 0, `biogate ${argv.join(' ')}: exit 0`);
    t.equal(r.stderr, '');
    t.notMatch(r.stdout, /listening|bootstrap/);
  }
  const bad = spawnSync(process.execPath, [CLI_JS, 'sevre'], { env, encoding: 'utf8', timeout: 20_000 });
  t.equal(bad.status, 2);
  t.match(bad.stderr, /^biogate: unknown command "sevre" \(did you mean "serve"\?\)/);
});

t.test(
  'an unsupported Node is refused with one line before anything loads; the minimum is package.json\'s "engines"',
  { skip: noDist },
  async (t) => {
    const engines = (JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    t.equal(engines, `>=${MIN_NODE.major}.${MIN_NODE.minor}`, 'src/node-version.ts and package.json agree');
    const dir = mkdtempSync(join(tmpdir(), 'biogate-node-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const pretend = (version: string) => {
      const preload = join(dir, `node-${version}.mjs`);
      writeFileSync(preload, `Object.defineProperty(process.versions, 'node', { value: ${JSON.stringify(version)} });\n`);
      return spawnSync(process.execPath, ['--import', pathToFileURL(preload).href, CLI_JS, 'serve'], {
        env: { PATH: process.env['PATH'] ?? '', BIOGATE_PORT: '1', BIOGATE_STORE: 'sqlite::memory:' },
        encoding: 'utf8',
        timeout: 20_000,
      });
    };
    for (const version of ['18.19.0', '20.18.3']) {
      const r = pretend(version);
      t.equal(r.status, 1, `Node ${version}: exit 1`);
      t.equal(r.stdout, '', 'nothing started');
      t.match(
        r.stderr,
        new RegExp(
          `^biogate: Node ${version.replace(/\./g, '\\.')} is not supported: BioGate needs Node 20\\.19 or newer \\(this is .+\\)\\n$`,
        ),
      );
    }
    t.equal(unsupportedNode('20.19.0'), null);
    t.equal(unsupportedNode('22.12.0'), null);
    t.equal(unsupportedNode('24.1.0'), null);
  },
);

t.test('the SQLite store refuses Node 24 and later with the reason and what to do (better-sqlite3 12 aborts there)', async (t) => {
  t.equal(sqliteUnsupportedNode('20.19.0'), null);
  t.equal(sqliteUnsupportedNode('22.23.3'), null);
  for (const v of ['24.0.0', '24.21.0', '26.1.0'])
    t.match(
      sqliteUnsupportedNode(v),
      new RegExp(`^the SQLite store cannot run on Node ${v.replaceAll('.', '\\.')}: .*Node 20 or 22.*mongodb://`),
    );
});
