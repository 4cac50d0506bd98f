// /metrics exports process and Node runtime metrics (issue #19: event-loop lag, heap, GC, open
// handles) from prom-client's collectors, with the node label like every other sample, and the
// whole text passes `promtool check metrics`; the example alert rules pass `promtool check rules`.
// promtool comes from the Prometheus distribution (Debian: the `prometheus` package); point
// BIOGATE_TEST_PROMTOOL at it when it is not on PATH. Without it those two checks skip, visibly.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { bearer, startApp } from './helpers/app.js';

const promtool = process.env['BIOGATE_TEST_PROMTOOL'] ?? 'promtool';
const noPromtool =
  spawnSync(promtool, ['--version'], { stdio: 'ignore' }).status === 0
    ? false
    : `${promtool} not found (apt-get install prometheus, or set BIOGATE_TEST_PROMTOOL)`;

t.test("runtime metrics beside BioGate's own, every sample labelled with the node", async (t) => {
  const app = await startApp(t, { config: { nodeId: 'rt-1' } });
  await fetch(`${app.url}/api/me`, { headers: bearer(app.token) });
  const text = await (await fetch(`${app.url}/metrics`)).text();
  for (const [name, type] of [
    ['nodejs_eventloop_lag_seconds', 'gauge'],
    ['nodejs_eventloop_lag_p99_seconds', 'gauge'],
    ['nodejs_heap_size_used_bytes', 'gauge'],
    ['nodejs_gc_duration_seconds', 'histogram'],
    ['nodejs_active_handles', 'gauge'],
    ['process_open_fds', 'gauge'],
    ['process_cpu_seconds_total', 'counter'],
    ['biogate_http_requests_total', 'counter'],
  ] as const) {
    t.ok(text.includes(`\n# TYPE ${name} ${type}\n`), `${name} (${type})`);
  }
  t.match(text, /^nodejs_active_handles\{type="[A-Za-z]+",node="rt-1"\} \d+$/m, 'open handles by type');
  t.match(text, /^nodejs_heap_size_used_bytes\{node="rt-1"\} \d+$/m);
  const samples = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  t.same(
    samples.filter((l) => !/[{,]node="rt-1"[,}]/.test(l)),
    [],
    'every sample carries node="rt-1"',
  );
  t.notMatch(text, /^# TYPE \S+_total gauge$/m, 'no gauge named like a counter');
});

t.test('promtool check metrics: clean', { skip: noPromtool }, async (t) => {
  const app = await startApp(t);
  // Some traffic first, so labelled series (routes, GC kinds) are present.
  await fetch(`${app.url}/api/me`, { headers: bearer(app.token) });
  await fetch(`${app.url}/iclock/cdata?SN=PROM0001&options=all`);
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const r = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  t.equal(r.status, 0, `promtool: ${r.stdout}${r.stderr}`);
});

t.test('promtool check rules: the example alerts are valid', { skip: noPromtool }, async (t) => {
  const r = spawnSync(promtool, ['check', 'rules', join(process.cwd(), 'deploy', 'prometheus', 'alerts.yml')], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stdout + r.stderr);
  t.match(r.stdout, /SUCCESS: \d+ rules found/);
});
