// The benchmark harness cannot rot: `npm run bench -- --smoke --json FILE` in a child
// process, tiny sizes, and every default scenario must produce its figures. Nothing here is timed:
// the figures only have to exist and be positive (benchmarks never become timed assertions).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import t from 'tap';
import type { BenchReport } from './run.js';

const RUN_JS = join(process.cwd(), 'dist', 'test', 'bench', 'run.js');

/** Scenarios of a plain `npm run bench` and the figures each must report. */
const EXPECTED: Record<string, RegExp[]> = {
  poll: [/idle getrequest/],
  ingest: [/ATTLOG records stored/, /records in the store/],
  api: [/GET \/api\/me/, /GET \/api\/users/],
  roundtrip: [/p50 POST→success/, /p90 POST→success/, /p99 POST→success/],
  devices: [/terminals online/, /RSS per terminal/, /terminals online/, /RSS per terminal/],
  fanout: [/held by all/],
  'fanout-areas': [/over 4 areas held by all/],
  revocation: [/p50 DELETE→confirmed by all/, /p99 DELETE→confirmed by all/],
  chaos: [/terminals in_sync, each holding exactly the roster/],
  webhooks: [/events delivered/, /p50 punch→receiver/, /p99 punch→receiver/],
  mqtt: [/messages delivered/, /p50 punch→subscriber/, /p99 punch→subscriber/],
  codec: [/ATTLOG upload/, /BIODATA upload/],
  export: [/GET \/healthz p99 during an export/, /CSV export of/],
};

/** Runs the harness with `args`; its exit code and everything it printed. */
async function bench(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  let output = '';
  const code = await new Promise<number | null>((resolve) => {
    const p = spawn(process.execPath, [RUN_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    p.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    p.once('exit', resolve);
  });
  return { code, output };
}

t.test('npm run bench -- --smoke --json: every scenario reports its figures', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'biogate-bench-smoke-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'bench.json');
  const { code, output } = await bench(['--smoke', '--json', file]);
  t.equal(code, 0, `the harness exits 0\n${output}`);
  const report = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
  t.equal(report.smoke, true);
  t.ok(['wrk', 'autocannon'].includes(report.generator), `generator named (${report.generator})`);
  t.ok(report.machine.cores > 0 && report.machine.cpu.length > 0 && report.machine.node.startsWith('v'), 'machine info');
  t.same(report.scenarios.map((s) => s.name).sort(), Object.keys(EXPECTED).sort(), 'every default scenario ran');
  for (const s of report.scenarios) t.equal(s.error, null, `${s.name} succeeded`);
  for (const [scenario, wanted] of Object.entries(EXPECTED)) {
    const got = report.figures.filter((f) => f.scenario === scenario);
    t.equal(got.length, wanted.length, `${scenario}: ${wanted.length} figures`);
    for (const re of wanted)
      t.ok(
        got.some((f) => re.test(f.figure)),
        `${scenario}: a figure matching ${re}`,
      );
  }
  for (const f of report.figures) {
    t.ok(Number.isFinite(f.value) && f.value > 0, `${f.scenario} / ${f.figure}: ${f.value} ${f.unit} > 0`);
    if (f.baseline !== null) t.ok(f.baseline > 0 && f.ratio !== null && f.ratio > 0, `${f.scenario} / ${f.figure}: baseline and ratio > 0`);
  }
  // Counts that must match: every smoke terminal online, every ingested record in the store (the
  // harness itself fails the scenario when the store's count and the acknowledged uploads disagree).
  const online = report.figures.filter((f) => f.scenario === 'devices' && /terminals online/.test(f.figure)).map((f) => f.value);
  t.same(online, [10, 20], 'every smoke terminal online at each level (10, then 20)');
  const stored = report.figures.find((f) => f.scenario === 'ingest' && /records in the store/.test(f.figure));
  t.ok(stored && stored.value > 0 && stored.value % 100 === 0, 'whole batches of records stored');
  t.match(readFileSync(file, 'utf8'), /"figures"/);
});

const mongoUrl = process.env['BIOGATE_TEST_MONGO_URL'];
t.test(
  '--store mongodb://: a scenario runs on MongoDB and leaves no database of its gateways behind',
  { skip: mongoUrl ? false : 'BIOGATE_TEST_MONGO_URL is not set (deploy/test-mongo/start.sh)' },
  async (t) => {
    const url = mongoUrl as string;
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
    t.teardown(() => client.close());
    const benchDatabases = async () =>
      (await client.db().admin().listDatabases()).databases.map((d) => d.name).filter((n) => n.startsWith('biogate_bench_'));
    const before = new Set(await benchDatabases());
    const { code, output } = await bench(['--smoke', '--scenario', 'poll,webhooks', '--store', url]);
    t.equal(code, 0, `the harness exits 0\n${output}`);
    t.match(output, /store mongodb/, 'the run says which store it measured');
    t.same(
      (await benchDatabases()).filter((n) => !before.has(n)),
      [],
      "each gateway's database is dropped when it stops",
    );
  },
);
