/**
 * deploy/grafana/biogate.json (issue #38 item 3): every series a panel queries is one a running BioGate exports
 * (scraped from a real gateway after real traffic), every figure the issue names has its panel, and every query
 * follows the dashboard's node selection. compose's monitoring profile loads it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { bearer, startApp } from '../helpers/app.js';

const root = new URL('../../', import.meta.url).pathname;
const read = (rel: string) => readFileSync(join(root, rel), 'utf8');

interface Panel {
  readonly title: string;
  readonly type: string;
  readonly gridPos: { x: number; y: number; w: number; h: number };
  readonly targets: readonly { expr: string; refId: string }[];
}
const dashboard = JSON.parse(read('deploy/grafana/biogate.json')) as {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string }[] };
};

t.test('the dashboard queries only series BioGate exports', async (t) => {
  const { url, token } = await startApp(t);
  // Traffic, so that every labelled series exists: an API request, a terminal poll and upload, a punch.
  await fetch(`${url}/api/me`, { headers: bearer(token) });
  await fetch(`${url}/api/devices`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ sn: 'GRAFANA01' }),
  });
  await fetch(`${url}/iclock/cdata?SN=GRAFANA01&options=all`);
  await fetch(`${url}/iclock/cdata?SN=GRAFANA01&table=ATTLOG&Stamp=1`, { method: 'POST', body: '1\t2026-03-01 08:00:00\t0\t1\t0\t0\t0\n' });
  const text = await (await fetch(`${url}/metrics`)).text();
  const exported = new Set([
    ...[...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name = '', type]) =>
      type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name],
    ),
    ...[...text.matchAll(/^([a-z_]+)[{ ]/gm)].map((m) => m[1] ?? ''),
  ]);
  const queried = new Set(
    dashboard.panels.flatMap((p) =>
      p.targets.flatMap((q) => [...q.expr.matchAll(/\b((?:biogate|nodejs|process)_[a-z0-9_]+)\b/g)].map((m) => m[1] ?? '')),
    ),
  );
  t.ok(queried.size >= 10, `${queried.size} series queried`);
  for (const name of queried) t.ok(exported.has(name), `${name} is exported by /metrics`);
  t.match(text, /^biogate_attendance_stored_total\{source="device",node="[^"]+"\} 1$/m, 'the punch was counted');
});

t.test('every figure of the issue has a panel, every query follows the node selection, the layout does not overlap', async (t) => {
  t.equal(dashboard.uid, 'biogate');
  t.same(
    dashboard.templating.list.map((v) => v.name),
    ['datasource', 'node'],
  );
  const titles = dashboard.panels.map((p) => p.title);
  for (const wanted of [
    'Terminals online',
    'Device requests per second',
    'Punches stored per second',
    'Command latency',
    'Sync lines owed',
    'Sync drift',
    'Webhook lag',
    'Event-loop delay',
  ])
    t.ok(titles.includes(wanted), `panel "${wanted}"`);
  for (const p of dashboard.panels)
    for (const q of p.targets) t.match(q.expr, /node=~"\$node"/, `${p.title} ${q.refId}: filtered by $node`);
  t.equal(new Set(dashboard.panels.map((p) => p.title)).size, dashboard.panels.length, 'titles are unique');
  const cells = new Set<string>();
  for (const p of dashboard.panels)
    for (let x = p.gridPos.x; x < p.gridPos.x + p.gridPos.w; x++)
      for (let y = p.gridPos.y; y < p.gridPos.y + p.gridPos.h; y++) {
        if (cells.has(`${x},${y}`)) t.fail(`${p.title} overlaps another panel at ${x},${y}`);
        cells.add(`${x},${y}`);
      }
  t.ok(
    dashboard.panels.every((p) => p.gridPos.x + p.gridPos.w <= 24),
    'every panel fits the 24-column grid',
  );
});

t.test("compose's monitoring profile provisions the dashboard and Prometheus scrapes with the metrics token", async (t) => {
  const compose = read('deploy/compose.yaml');
  t.match(compose, /- \.\/grafana\/biogate\.json:\/var\/lib\/grafana\/dashboards\/biogate\.json:ro/);
  t.match(compose, /- \.\/grafana\/provisioning:\/etc\/grafana\/provisioning:ro/);
  t.match(read('deploy/grafana/provisioning/dashboards/biogate.yaml'), /path: \/var\/lib\/grafana\/dashboards/);
  t.match(read('deploy/grafana/provisioning/datasources/prometheus.yaml'), /uid: prometheus[\s\S]*url: http:\/\/prometheus:9090/);
  const prom = read('deploy/prometheus/prometheus.yml');
  t.match(prom, /credentials_file: \/etc\/prometheus\/metrics-token/);
  t.match(compose, /BIOGATE_METRICS_TOKEN: \$\{BIOGATE_METRICS_TOKEN:-\}/);
  t.notMatch(compose, /NOT built yet/, 'no stale word about scale-out');
});
