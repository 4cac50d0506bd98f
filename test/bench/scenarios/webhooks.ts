// `webhooks`: attendance.recorded events delivered to a local HTTP receiver (README "Webhooks"; one
// POST per punch, the default): events/s for a burst of punches, and p50/p99 from the punch's upload
// to the receiver having the POST.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { call, handshakeV2, type Context, type Scenario } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { withGateway } from '../lib/gateway.js';
import { punchLatencies, punchThroughput, type Arrivals } from '../lib/punches.js';
import { quantile } from '../lib/stats.js';

function receiver(arrivals: Arrivals): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string; data?: { records?: { pin?: string }[] } };
      if (event.type === 'attendance.recorded') for (const r of event.data?.records ?? []) if (r.pin !== undefined) arrivals.set(r.pin, at);
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export const webhooksScenario: Scenario = {
  name: 'webhooks',
  description: 'attendance.recorded webhooks to a local receiver: events/s delivered and p50/p99 punch→receiver',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const arrivals: Arrivals = new Map();
    const server = await receiver(arrivals);
    const sn = 'BENCHW001';
    try {
      return await withGateway(
        { store: ctx.store, engine: ctx.engine, env: { BIOGATE_WEBHOOK_ALLOW_HTTP: 'on', BIOGATE_WEBHOOK_ALLOW_PRIVATE: 'on' } },
        async (gw) => {
          if ((await call(gw, 'POST', '/api/devices', { sn })).status !== 201) throw new Error('assign failed');
          await handshakeV2(gw, sn);
          const hook = await call(gw, 'POST', '/api/webhooks', {
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
            events: ['attendance.recorded'],
          });
          if (hook.status !== 201) throw new Error(`POST /api/webhooks: HTTP ${hook.status} ${JSON.stringify(hook.body)}`);
          const singles = ctx.smoke ? 10 : 300;
          const burst = ctx.smoke ? 200 : 5_000;
          const ms = await punchLatencies(gw, sn, arrivals, singles, 10, 10_000);
          const rate = await punchThroughput(gw, sn, arrivals, burst, 100_000);
          return [
            figure('webhooks', `events delivered, burst of ${burst.toLocaleString('en-US')} punches`, rate, 'events/s', {
              target: { on: 'value', goal: { atLeast: 5_000 }, text: '≥ 5,000 events/s' },
            }),
            figure('webhooks', 'p50 punch→receiver', quantile(ms, 0.5), 'ms', {
              target: { on: 'value', goal: { atMost: 20 }, text: '≤ 20 ms' },
            }),
            figure('webhooks', 'p99 punch→receiver', quantile(ms, 0.99), 'ms', {
              target: { on: 'value', goal: { atMost: 100 }, text: '≤ 100 ms' },
              note: `${singles} single punches, one every 10 ms; every punch of both phases arrived`,
            }),
          ];
        },
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  },
};
