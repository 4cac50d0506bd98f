// The node:http engine leg of `npm test` (issue #19, "Runtime beyond Node 20"): the main `tap` run
// serves everything on the default engine (uWebSockets.js where it loads); this re-runs the files
// that exercise the HTTP layer with BIOGATE_HTTP_ENGINE=node, which test/helpers/app.ts passes to
// every startApp() and to the tests that build the HTTP layer alone (spawned processes inherit it).
// Without coverage, so the report test/coverage-check.mjs reads stays the main run's.
//
//   node test/node-engine-leg.mjs                          # the folders and files below
//   node test/node-engine-leg.mjs test/http/tls.test.ts    # just these files
//
// Chosen to stay under about 5 minutes on 2 cores: the HTTP layer itself, the REST API, the push
// compatibility transcripts, the WebSocket stream and MQTT over WebSocket, and the device files
// that hold long polls, cut them at shutdown and restart the process.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const FOLDERS = ['test/http', 'test/api', 'test/push', 'test/realtime'];
/**
 * In those folders but independent of the engine: they check documents (the OpenAPI lint; the client
 * generated from the document, whose few calls the other API files make too): run once, in the main run.
 */
const SKIP = new Set(['test/api/openapi-lint.test.ts', 'test/api/openapi-client.test.ts', 'test/api/openapi-names.test.ts']);
const EXTRA = [
  'test/bridge/mqtt-websocket.test.ts',
  'test/devices/commands-e2e.test.ts',
  'test/devices/runtime.test.ts',
  'test/devices/runtime-lifecycle.test.ts',
  'test/hardening/slow-upload.test.ts',
  'test/hardening/a-big-upload.test.ts',
  'test/cli/bootstrap.test.ts',
  'test/doctor/doctor.test.ts',
  'test/ops.test.ts',
];

const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : FOLDERS.flatMap((dir) =>
        readdirSync(new URL(`../${dir}/`, import.meta.url))
          .filter((name) => name.endsWith('.test.ts'))
          .sort()
          .map((name) => `${dir}/${name}`)
          .filter((file) => !SKIP.has(file)),
      ).concat(EXTRA);

console.log(
  `# node:http engine leg: ${files.length} test file${files.length === 1 ? '' : 's'} with BIOGATE_HTTP_ENGINE=node (no coverage)`,
);
const started = Date.now();
const tap = spawn(fileURLToPath(new URL('../node_modules/.bin/tap', import.meta.url)), ['--disable-coverage', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, BIOGATE_HTTP_ENGINE: 'node' },
});
tap.on('error', (e) => {
  console.error(`node:http engine leg: could not start tap: ${e.message}`);
  process.exit(1);
});
tap.on('exit', (code, signal) => {
  const took = ((Date.now() - started) / 1000).toFixed(1);
  const outcome = code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`;
  console.log(`# node:http engine leg ${outcome} in ${took} s`);
  process.exit(code ?? 1);
});
