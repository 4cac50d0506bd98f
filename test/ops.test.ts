/** /healthz, /readyz and /metrics as an operator's probes and scraper see them. */
import t from 'tap';
import { hostname } from 'node:os';
import { resolveNodeId } from '../src/node-id.js';
import { createSimulatedDevice } from '../src/simulator/index.js';
import { ADMIN_TOKEN, bearer, fetchJson, startApp } from './helpers/app.js';

t.test('/healthz: 200 while the process runs', async (t) => {
  const { url } = await startApp(t);
  const { res, body } = await fetchJson(`${url}/healthz`);
  t.equal(res.status, 200);
  t.strictSame(body, { status: 'ok' });
});

t.test('/readyz: 200 while the store answers, 503 once it is closed', async (t) => {
  const { url, app } = await startApp(t);
  const ready = await fetchJson(`${url}/readyz`);
  t.equal(ready.res.status, 200);
  t.strictSame(ready.body, { status: 'ready', store: 'sqlite' });

  await app.store.close();
  const down = await fetchJson(`${url}/readyz`);
  t.equal(down.res.status, 503);
  t.strictSame(down.body, { status: 'store unreachable', store: 'sqlite' });
  const health = await fetchJson(`${url}/healthz`);
  t.equal(health.res.status, 200, '/healthz does not depend on the store');
});

t.test('/metrics without an admin token: open, Prometheus text', async (t) => {
  const { url, token } = await startApp(t, { config: { nodeId: 'node-a' } });
  t.equal((await fetch(`${url}/api/me`, { headers: bearer(token) })).status, 200);
  t.equal((await fetch(`${url}/api/me`)).status, 401);
  t.equal((await fetch(`${url}/no/such/path`)).status, 404);

  const res = await fetch(`${url}/metrics`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const text = await res.text();
  const lines = text.split('\n');
  t.ok(lines.includes('biogate_http_requests_total{route="/api/me",method="GET",status="200",node="node-a"} 1'), 'one 200 on /api/me');
  t.ok(lines.includes('biogate_http_requests_total{route="/api/me",method="GET",status="401",node="node-a"} 1'), 'one 401 on /api/me');
  t.ok(
    lines.includes('biogate_http_requests_total{route="(unmatched)",method="GET",status="404",node="node-a"} 1'),
    'unknown paths share one label',
  );
  t.ok(lines.includes('# TYPE biogate_http_requests_total counter'));
  t.ok(lines.includes('# TYPE biogate_http_request_duration_seconds histogram'));
  t.ok(lines.includes('biogate_http_request_duration_seconds_count{route="/api/me",node="node-a"} 2'));
  t.ok(lines.includes('biogate_http_request_duration_seconds_bucket{route="/api/me",node="node-a",le="+Inf"} 2'));
  t.ok(lines.includes('# TYPE biogate_commands gauge'));
  t.notOk(text.includes(token), 'no token text in metrics');
  t.ok(text.endsWith('\n'));
});

t.test('/metrics with an admin token configured: 401 without it, 200 with it', async (t) => {
  const { url, token } = await startApp(t, { config: { adminToken: ADMIN_TOKEN } });
  await fetch(`${url}/api/me`, { headers: bearer(token) });

  const none = await fetchJson(`${url}/metrics`);
  t.equal(none.res.status, 401);
  t.equal(none.res.headers.get('www-authenticate'), 'Bearer realm="biogate-metrics"');
  t.strictSame(none.body, { detail: 'Metrics token (BIOGATE_METRICS_TOKEN) or admin token required', code: 'UNAUTHORIZED' });
  t.equal((await fetch(`${url}/metrics`, { headers: bearer(token) })).status, 401, 'a location token is not enough');
  t.equal((await fetch(`${url}/metrics`, { headers: bearer(ADMIN_TOKEN + 'x') })).status, 401);

  const ok = await fetch(`${url}/metrics`, { headers: bearer(ADMIN_TOKEN) });
  t.equal(ok.status, 200);
  const node = resolveNodeId({ nodeId: null });
  t.ok((await ok.text()).split('\n').includes(`biogate_http_requests_total{route="/api/me",method="GET",status="200",node="${node}"} 1`));
});

t.test('/metrics: every sample carries the node label, so sums across nodes are true (issue #14)', async (t) => {
  const a = await startApp(t, { config: { nodeId: 'gw-1.eu_a' } });
  await fetch(`${a.url}/api/me`, { headers: bearer(a.token) });
  await fetch(`${a.url}/iclock/cdata?SN=NODELBL1&options=all`);
  const lines = (await (await fetch(`${a.url}/metrics`)).text()).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  t.ok(lines.length > 20, `${lines.length} samples`);
  t.same(
    lines.filter((l) => !/[{,]node="gw-1\.eu_a"[,}]/.test(l)),
    [],
    'no sample without node="gw-1.eu_a"',
  );
  t.ok(
    lines.some((l) => l.startsWith('biogate_commands{')),
    'the store-wide gauge too (per-node view of a shared figure: max, not sum)',
  );
  t.ok(
    lines.some((l) => l.startsWith('biogate_http_request_duration_seconds_bucket{') && /node="gw-1\.eu_a",le="/.test(l)),
    'le stays the last label of a bucket',
  );

  // Unset: <hostname>-<pid>, the same id everywhere in the process.
  const b = await startApp(t, { storeUrl: a.storeUrl });
  const node = resolveNodeId(b.config);
  t.ok(
    node.endsWith(`-${process.pid}`) &&
      `${hostname().replace(/[^A-Za-z0-9._-]/g, '-')}-`.startsWith(node.slice(0, -`-${process.pid}`.length)),
    `${node} is <hostname>-<pid>`,
  );
  t.match(node, /^[A-Za-z0-9._-]{1,64}$/, 'a valid BIOGATE_NODE_ID itself');
  const text = await (await fetch(`${b.url}/metrics`)).text();
  t.match(text, new RegExp(`biogate_device_actors\\{node="${node.replace(/[.]/g, '\\.')}"\\} 0`));
});

const METRICS_TOKEN = 'metrics-scrape-token-0123456789';

t.test('BIOGATE_METRICS_TOKEN: a read-only token for Prometheus, /metrics and nothing else', async (t) => {
  const { url, token } = await startApp(t, { config: { adminToken: ADMIN_TOKEN, metricsToken: METRICS_TOKEN } });
  t.equal((await fetch(`${url}/metrics`, { headers: bearer(METRICS_TOKEN) })).status, 200, 'the metrics token scrapes');
  t.equal((await fetch(`${url}/metrics`, { headers: bearer(ADMIN_TOKEN) })).status, 200, 'so does the admin token');
  t.equal((await fetch(`${url}/metrics`, { headers: bearer(token) })).status, 401, 'a location token does not');
  t.equal((await fetch(`${url}/metrics`, { headers: bearer(METRICS_TOKEN + 'x') })).status, 401, 'a wrong token does not');
  t.equal(
    (await fetch(`${url}/admin/locations`, { headers: bearer(METRICS_TOKEN) })).status,
    401,
    'the metrics token opens no admin route',
  );
  t.equal((await fetch(`${url}/api/me`, { headers: bearer(METRICS_TOKEN) })).status, 401, 'nor the location API');

  // Alone, without an admin token: /metrics is closed to everyone else, and the admin API stays off.
  const alone = await startApp(t, { config: { metricsToken: METRICS_TOKEN } });
  t.equal((await fetch(`${alone.url}/metrics`)).status, 401, 'no token: 401');
  t.equal((await fetch(`${alone.url}/metrics`, { headers: bearer(METRICS_TOKEN) })).status, 200);
  t.equal((await fetch(`${alone.url}/admin/locations`, { headers: bearer(METRICS_TOKEN) })).status, 404, 'admin API off');
  const text = await (await fetch(`${alone.url}/metrics`, { headers: bearer(METRICS_TOKEN) })).text();
  t.notOk(text.includes(METRICS_TOKEN), 'the token is not in the metrics');
});

t.test('biogate_attendance_stored_total counts punches stored, by source; a re-sent duplicate is not counted', async (t) => {
  const { url, token } = await startApp(t, { config: { nodeId: 'node-p' } });
  const stored = async (source: string): Promise<number> => {
    const lines = (await (await fetch(`${url}/metrics`)).text()).split('\n');
    const line = lines.find((l) => l.startsWith(`biogate_attendance_stored_total{source="${source}",node="node-p"} `));
    return Number(line?.split(' ')[1] ?? NaN);
  };
  t.equal(await stored('device'), 0, 'device: 0 before any punch');
  t.equal(await stored('manual'), 0, 'manual: 0 before any punch');
  const assign = await fetch(`${url}/api/devices`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ sn: 'PUNCHCNT1' }),
  });
  t.equal(assign.status, 201);
  const upload = (body: string) =>
    fetch(`${url}/iclock/cdata?SN=PUNCHCNT1&table=ATTLOG&Stamp=1`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
  const punches = '1\t2026-03-01 08:00:00\t0\t1\t0\t0\t0\n2\t2026-03-01 08:01:00\t0\t1\t0\t0\t0\n3\t2026-03-01 08:02:00\t0\t1\t0\t0\t0\n';
  t.equal((await upload(punches)).status, 200);
  t.equal((await upload(punches)).status, 200, 'the same upload again (a terminal that lost the answer)');
  const user = await fetch(`${url}/api/users`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ pin: 1, first_name: 'Ana' }),
  });
  t.equal(user.status, 201);
  const manual = await fetch(`${url}/api/attendance`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ pin: 1, timestamp: '2026-03-01 17:00:00', reason: 'forgot to punch out' }),
  });
  t.equal(manual.status, 201);
  t.equal(await stored('device'), 3, 'device: the three punches, once');
  t.equal(await stored('manual'), 1, 'manual: one');
});

t.test('biogate_command_seconds: a command queued through the API and answered by the terminal is observed once, by origin', async (t) => {
  const { url, token } = await startApp(t, { config: { nodeId: 'node-c', longpollS: 0 } });
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { ...bearer(token), 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  t.equal((await api('POST', '/api/devices', { sn: 'LATENCY01' })).status, 201);
  const sim = createSimulatedDevice({ url, sn: 'LATENCY01', protocol: 'v2', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  const queued = (await (await api('POST', '/api/commands', { sn: 'LATENCY01', command: 'info' })).json()) as { id: number };
  let status = '';
  for (let i = 0; i < 20 && status !== 'success'; i++) {
    await sim.pollOnce();
    status = ((await (await api('GET', `/api/commands/${queued.id}`)).json()) as { status: string }).status;
  }
  t.equal(status, 'success', 'the terminal answered');
  const text = await (await fetch(`${url}/metrics`)).text();
  t.match(text, /^biogate_command_seconds_count\{origin="api",node="node-c"\} 1$/m, 'one API command observed');
  t.match(text, /^biogate_command_seconds_bucket\{origin="api",node="node-c",le="\+Inf"\} 1$/m);
});
