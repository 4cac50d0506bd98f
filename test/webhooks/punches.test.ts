// Issue #16 "Verified by": 1,000 punches uploaded by simulated terminals arrive at a real receiver
// exactly once each (de-duplicated by webhook-id on the receiver, as the README tells integrators),
// signed, and in each terminal's order.
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fetchJson, jsonBody, startApp, waitFor } from '../helpers/app.js';
import { startReceiver, verifySignature } from './receiver.js';

const TERMINALS = 4;
const PER_TERMINAL = 250;

t.test('1,000 punches from simulated terminals: each arrives exactly once', async (t) => {
  const app = await startApp(t, { config: { webhookAllowPrivate: 'on', webhookAllowHttp: 'on', longpollS: 0 } });
  const api = (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  const rx = await startReceiver(t);
  const created = await api('POST', '/api/webhooks', { url: rx.url, events: ['attendance.recorded'] });
  t.equal(created.res.status, 201);
  const { id: hookId, secret } = created.body as { id: number; secret: string };

  const sims: ReturnType<typeof createSimulatedDevice>[] = [];
  for (let d = 0; d < TERMINALS; d++) {
    const sn = `WHPUNCH${d}`;
    t.equal((await api('POST', '/api/devices', { sn })).res.status, 201);
    const sim = createSimulatedDevice({ url: app.url, sn, protocol: 'v2', pollDelayMs: 20 });
    t.teardown(() => sim.stop());
    sim.start();
    sims.push(sim);
  }
  await waitFor(() => sims.every((s) => s.stats.online), 15_000, 'terminals online');
  const base = Date.UTC(2026, 2, 1, 6, 0, 0);
  const stamp = (i: number) => new Date(base + i * 60_000).toISOString().slice(0, 19).replace('T', ' ');
  await Promise.all(
    sims.map(async (sim, d) => {
      for (let i = 0; i < PER_TERMINAL; i++) await sim.punch(String(1000 + d), stamp(i));
    }),
  );

  // The receiver: keeps the first copy of each webhook-id, counts the records in them.
  const seen = new Map<string, { body: string; ok: boolean }>();
  const records = () => {
    for (const r of rx.received) {
      const id = String(r.headers['webhook-id']);
      if (!seen.has(id)) seen.set(id, { body: r.body, ok: verifySignature(secret, r.headers, r.body) });
    }
    return [...seen.values()].reduce((n, v) => n + (JSON.parse(v.body) as { data: { records: unknown[] } }).data.records.length, 0);
  };
  await waitFor(() => records() >= TERMINALS * PER_TERMINAL, 120_000, '1,000 records at the receiver');
  await app.app.webhooks.runOnce();
  t.equal(records(), TERMINALS * PER_TERMINAL, 'exactly 1,000 records in the unique deliveries');
  t.ok(
    [...seen.values()].every((v) => v.ok),
    'every delivery verifies',
  );
  const all = [...seen.values()].flatMap(
    (v) => (JSON.parse(v.body) as { data: { records: { sn: string; pin: string; local_time: string }[] } }).data.records,
  );
  const keys = all.map((r) => `${r.sn}/${r.local_time}`);
  t.equal(new Set(keys).size, TERMINALS * PER_TERMINAL, 'each punch once (no punch in two deliveries)');
  for (let d = 0; d < TERMINALS; d++) {
    const times = all.filter((r) => r.sn === `WHPUNCH${d}`).map((r) => r.local_time);
    t.same(
      times,
      Array.from({ length: PER_TERMINAL }, (_, i) => stamp(i)),
      `WHPUNCH${d}: all ${PER_TERMINAL}, in the order punched`,
    );
  }
  t.equal(rx.received.length, seen.size, 'and no copies were needed on a healthy receiver');
  const list = (await api('GET', `/api/webhooks/${hookId}/deliveries?limit=1`)).body as { total: number; data: { status: string }[] };
  t.equal(list.total, seen.size, 'one stored delivery per POST');
  t.match(await app.app.metrics.render(), /biogate_webhook_queue_depth\{node="[^"]+"\} 0/, 'the queue drained');
});
