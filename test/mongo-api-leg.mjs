// The MongoDB leg of the REST API end-to-end tests (issue #7): runs test/api, test/cli (and EXTRA) once
// more, after the main `tap` run, with every startApp() store on the MongoDB-compatible server of
// BIOGATE_TEST_MONGO_URL (BIOGATE_TEST_API_STORE=mongodb, see test/helpers/app.ts). Without
// coverage, so the report test/coverage-check.mjs reads stays the main run's.
//
//   node test/mongo-api-leg.mjs                          # both folders
//   node test/mongo-api-leg.mjs test/api/users.test.ts   # just these files
//
// Without BIOGATE_TEST_MONGO_URL it prints why it skipped and succeeds, like the contract suite's
// MongoDB leg.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const FOLDERS = ['test/api', 'test/cli'];
/**
 * In those folders but independent of the store (help texts, the OpenAPI document and the client
 * generated from it, the docs page, CORS headers): run once, in the main run (issue #20: CI time).
 */
const SKIP = new Set([
  'test/cli/help.test.ts',
  'test/api/openapi-lint.test.ts',
  'test/api/openapi-client.test.ts',
  'test/api/openapi-names.test.ts',
  'test/api/docs.test.ts',
  'test/api/cors.test.ts',
]);
/**
 * Files elsewhere whose behaviour depends on the adapter (command lifecycle ports, sync outbox,
 * MongoDB-only id allocation, store outage answers): cheap enough to run twice.
 */
const EXTRA = [
  'test/devices/command-truth.test.ts',
  'test/devices/soak.test.ts',
  'test/sync/id-collision.test.ts',
  'test/sync/outbox-crash.test.ts',
  'test/sync/device-move.test.ts',
  'test/sync/time-sync.test.ts',
  'test/sync/access-window-mark.test.ts',
  'test/events/feed.test.ts',
  'test/events/command-order.test.ts',
  'test/convergence/audit.test.ts',
  'test/convergence/audit-cap.test.ts',
  'test/convergence/moved-terminal.test.ts',
  'test/convergence/render-after-mailbox.test.ts',
  'test/areas/areas.test.ts',
  'test/attendance/presence-feed.test.ts',
  'test/api/attendance-hourly.test.ts',
  'test/areas/access.test.ts',
  'test/areas/access-audit.test.ts',
  'test/areas/scenarios.test.ts',
  'test/audit/audit-log.test.ts',
  'test/alerts/alerts.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/webhooks/crash.test.ts',
  'test/webhooks/punches.test.ts',
  'test/webhooks/poke-cache.test.ts',
  'test/webhooks/cli.test.ts',
  'test/webhooks/formats.test.ts',
  'test/devices/poll-snapshot.test.ts',
  'test/perf/users-list-plan.test.ts',
  'test/hardening/event-outbox.test.ts',
  'test/hardening/command-outbox.test.ts',
  'test/hardening/device-outbox.test.ts',
  'test/hardening/user-event-outbox.test.ts',
  'test/hardening/sync-state-outbox.test.ts',
  'test/biotime/records.test.ts',
  'test/biotime/incremental.test.ts',
  'test/biotime/pybiotime.test.ts',
  'test/biotime/documented.test.ts',
];

const url = process.env.BIOGATE_TEST_MONGO_URL;
if (!url) {
  console.log(
    '# SKIP MongoDB API leg: BIOGATE_TEST_MONGO_URL is not set; start a server with `eval "$(deploy/test-mongo/start.sh)"` to run test/api and test/cli against MongoDB',
  );
  process.exit(0);
}

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

const shown = url.replace(/\/\/[^@/]*@/, '//***@');
console.log(
  `# MongoDB API leg: ${files.length} test file${files.length === 1 ? '' : 's'} against ${shown} (BIOGATE_TEST_API_STORE=mongodb, no coverage)`,
);
const started = Date.now();
const tap = spawn(fileURLToPath(new URL('../node_modules/.bin/tap', import.meta.url)), ['--disable-coverage', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, BIOGATE_TEST_API_STORE: 'mongodb' },
});
tap.on('error', (e) => {
  console.error(`MongoDB API leg: could not start tap: ${e.message}`);
  process.exit(1);
});
tap.on('exit', (code, signal) => {
  const took = ((Date.now() - started) / 1000).toFixed(1);
  const outcome = code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`;
  console.log(`# MongoDB API leg ${outcome} in ${took} s`);
  process.exit(code ?? 1);
});
