/**
 * Issue #12 "Nothing grows without bound": random serial numbers do not create actors without
 * limit (BIOGATE_MAX_ACTORS, least recently active idle actor dropped), and metric label values
 * a client chooses (table names, HTTP methods) are bounded. Real app, raw device requests.
 */
import { connect } from 'node:net';
import t from 'tap';
import { Counter, Histogram, MetricsRegistry } from '../../src/ops/metrics.js';
import { bearer, fetchJson, jsonBody, startApp } from '../helpers/app.js';

t.test('BIOGATE_MAX_ACTORS caps the actors; a known device keeps working', async (t) => {
  const s = await startApp(t, { config: { maxActors: 10 } });
  t.equal((await fetchJson(`${s.url}/api/devices`, jsonBody('POST', { sn: 'KEEP0001' }, bearer(s.token)))).res.status, 201);
  const poll = async (sn: string) => (await fetch(`${s.url}/iclock/getrequest?SN=${sn}`)).status;
  t.equal(await poll('KEEP0001'), 200);
  for (let i = 0; i < 60; i++) {
    t.equal(await poll(`RND${String(i).padStart(5, '0')}`), 200, `random serial ${i} answered`);
    t.ok(s.app.hub.size <= 10, `at most 10 actors (${s.app.hub.size})`);
  }
  const attlog = await fetch(`${s.url}/iclock/cdata?SN=KEEP0001&table=ATTLOG`, { method: 'POST', body: '7\t2026-03-01 08:00:00\t0\t1\n' });
  t.match(await attlog.text(), /^OK: ?1$/, 'the evicted device is served by a new actor from the store');
  const metrics = await (await fetch(`${s.url}/metrics`)).text();
  t.match(metrics, /biogate_device_actors\{node="[^"]+"\} 10\b/);
});

t.test('metric label values chosen by clients are bounded', async (t) => {
  // Counters and histograms keep at most maxSeries label sets; the rest share one "other" series.
  const registry = new MetricsRegistry();
  const tables = registry.register(new Counter('t_unknown_tables_total', 'help', { maxSeries: 50 }));
  const latency = registry.register(new Histogram('t_latency_seconds', 'help', [0.1, 1], { maxSeries: 5 }));
  for (let i = 0; i < 80; i++) tables.inc({ table: `T${i}` });
  tables.inc({ table: 'T3' });
  for (let i = 0; i < 20; i++) latency.observe({ route: `/r${i}` }, 0.05);
  const text = await registry.render();
  const series = text.split('\n').filter((l) => l.startsWith('t_unknown_tables_total{'));
  t.equal(series.length, 51, '50 named series and "other"');
  t.ok(series.includes('t_unknown_tables_total{table="other"} 30'), 'the rest counted as "other"');
  t.ok(series.includes('t_unknown_tables_total{table="T3"} 2'), 'a known series keeps counting');
  t.equal(
    series.reduce((n, l) => n + Number(l.split(' ').at(-1)), 0),
    81,
    'every increment counted',
  );
  t.match(text, /t_latency_seconds_count\{route="other"\} 15/, 'histograms too');

  // One label set is one series whatever order its names come in; values that look like separators do not merge sets.
  const requests = registry.register(new Counter('t_requests_total', 'help'));
  requests.inc({ route: '/a', status: '200' });
  requests.inc({ status: '200', route: '/a' });
  requests.inc({ route: '/a', status: '2000' });
  requests.inc({ route: '/a",status="2', status: '00' });
  const lines = (await registry.render()).split('\n').filter((l) => l.startsWith('t_requests_total{'));
  t.equal(lines.length, 3, 'three label sets');
  t.ok(lines.includes('t_requests_total{route="/a",status="200"} 2'), 'the same set in another order counts once');

  // Through the real app: a made-up HTTP method is not a label value of its own.
  const s = await startApp(t);
  for (const m of ['FOO', 'BAR', 'BAZ']) {
    await new Promise<void>((resolve) => {
      const sock = connect(s.port, '127.0.0.1', () => sock.write(`${m} /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      sock.on('data', () => undefined);
      sock.on('close', () => resolve());
      sock.on('error', () => resolve());
    });
  }
  const metrics = await (await fetch(`${s.url}/metrics`)).text();
  t.notMatch(metrics, /method="(FOO|BAR|BAZ)"/, 'made-up methods are not label values');
});
