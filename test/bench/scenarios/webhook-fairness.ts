// `webhook-fairness` (issue #32): tenant A's webhook receivers answer 200 only after 14 s; tenant B's receiver at
// once. While A's terminal punches all along, B's punches are timed from the upload to B's receiver having the
// POST: p50/p99, target p99 ≤ 1 s. A has several subscriptions (more than the old pass had workers), so a
// pass-wide barrier or a shared worker pool would show here. By name only: a run takes about a minute.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { call, handshakeV2, type Context, type Scenario } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { withGateway, type Gateway } from '../lib/gateway.js';
import { punchLatencies, type Arrivals } from '../lib/punches.js';
import { quantile, sleep } from '../lib/stats.js';

const SLOW_MS = 14_000;
const A_HOOKS = 6;
const ADMIN = 'bench-admin-token-0123456789abcdef';

function receiver(delayMs: number, arrivals?: Arrivals): Promise<Server & { held: number }> {
  const server = Object.assign(
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        if (arrivals) {
          const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string; data?: { records?: { pin?: string }[] } };
          if (event.type === 'attendance.recorded')
            for (const r of event.data?.records ?? []) if (r.pin !== undefined) arrivals.set(r.pin, at);
        }
        server.held++;
        const timer = setTimeout(() => {
          server.held--;
          res.writeHead(200).end();
        }, delayMs);
        res.on('close', () => clearTimeout(timer));
      });
    }),
    { held: 0 },
  );
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`;

/** A second location and its token, through the admin API. */
async function tenant(gw: Gateway, name: string): Promise<string> {
  const res = await fetch(`${gw.url}/admin/locations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (res.status !== 201) throw new Error(`POST /admin/locations: HTTP ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

async function as(gw: Gateway, token: string, path: string, body: unknown): Promise<number> {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

export const webhookFairnessScenario: Scenario = {
  name: 'webhook-fairness',
  description: "tenant B's webhook p50/p99 punch→receiver while tenant A's receivers take 14 s per delivery",
  inDefault: false,
  async run(ctx: Context): Promise<Figure[]> {
    const arrivals: Arrivals = new Map();
    const slow = await receiver(SLOW_MS);
    const fast = await receiver(0, arrivals);
    const snA = 'BENCHFA01';
    const snB = 'BENCHFB01';
    try {
      return await withGateway(
        {
          store: ctx.store,
          engine: ctx.engine,
          env: { BIOGATE_WEBHOOK_ALLOW_HTTP: 'on', BIOGATE_WEBHOOK_ALLOW_PRIVATE: 'on', BIOGATE_ADMIN_TOKEN: ADMIN },
        },
        async (gw) => {
          if ((await call(gw, 'POST', '/api/devices', { sn: snA })).status !== 201) throw new Error('assign A failed');
          for (let i = 0; i < A_HOOKS; i++)
            if ((await call(gw, 'POST', '/api/webhooks', { url: urlOf(slow), events: ['attendance.recorded'] })).status !== 201)
              throw new Error('A webhook failed');
          const tokenB = await tenant(gw, 'Tenant B');
          if ((await as(gw, tokenB, '/api/devices', { sn: snB })) !== 201) throw new Error('assign B failed');
          if ((await as(gw, tokenB, '/api/webhooks', { url: urlOf(fast), events: ['attendance.recorded'] })) !== 201)
            throw new Error('B webhook failed');
          await handshakeV2(gw, snA);
          await handshakeV2(gw, snB);
          // A punches all along (one every 200 ms), so its lanes always have a slow delivery under way.
          let punching = true;
          const aPunches = (async () => {
            for (let i = 0; punching; i++) {
              const body = `${900_000 + i}\t${new Date().toISOString().slice(0, 19).replace('T', ' ')}\t0\t1\t0\t0\t0\n`;
              await (await fetch(`${gw.url}/iclock/cdata?SN=${snA}&table=ATTLOG&Stamp=9999`, { method: 'POST', body })).text();
              await sleep(200);
            }
          })();
          await sleep(2_000); // A's receivers now hold requests
          const heldAtStart = slow.held;
          const singles = ctx.smoke ? 10 : 200;
          const ms = await punchLatencies(gw, snB, arrivals, singles, 100, 10_000);
          punching = false;
          await aPunches;
          return [
            figure('webhook-fairness', "p50 tenant B punch→receiver, tenant A's receivers 14 s", quantile(ms, 0.5), 'ms'),
            figure('webhook-fairness', "p99 tenant B punch→receiver, tenant A's receivers 14 s", quantile(ms, 0.99), 'ms', {
              target: { on: 'value', goal: { atMost: 1_000 }, text: 'p99 ≤ 1 s' },
              note: `${singles} single punches of B, one every 100 ms; ${A_HOOKS} subscriptions of A, ${heldAtStart} A requests held when B began`,
            }),
          ];
        },
      );
    } finally {
      for (const s of [slow, fast]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
    }
  },
};
