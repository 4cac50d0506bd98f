// `api`: `GET /api/me` and `GET /api/users?limit=100` of a location with 100,000 users, seeded through
// the store before the gateway starts (100,000 API calls would measure the seeding, not the reads).
import { openStore } from '../../../src/store/open.js';
import { startBaseline } from '../lib/baseline.js';
import { call, compareLoad, type Context, type Scenario } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { withGateway } from '../lib/gateway.js';
import type { LoadPlan } from '../lib/load.js';

async function seedUsers(storeUrl: string, locationId: number, users: number): Promise<void> {
  const store = await openStore(storeUrl);
  try {
    const now = new Date().toISOString();
    for (let from = 0; from < users; from += 1000) {
      const items = Array.from({ length: Math.min(1000, users - from) }, (_, j) => {
        const i = from + j;
        return { pin: 100_000 + i, fields: { first_name: `First${i}`, last_name: `Last${i}`, card_no: String(5_000_000 + i) } };
      });
      await store.users.upsertMany(locationId, items, now);
    }
  } finally {
    await store.close();
  }
}

export const apiScenario: Scenario = {
  name: 'api',
  description: 'GET /api/me and GET /api/users?limit=100 on a location with 100,000 users (seeded through the store), req/s vs raw uWS',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const users = ctx.smoke ? 1_000 : 100_000;
    const connections = ctx.smoke ? 4 : 32;
    const seconds = ctx.smoke ? 1 : 6;
    const baseline = await startBaseline();
    try {
      return await withGateway({ store: ctx.store, engine: ctx.engine, before: (url, loc) => seedUsers(url, loc, users) }, async (gw) => {
        const headers = { Authorization: `Bearer ${gw.token}` };
        const get = (path: string): LoadPlan => ({
          method: 'GET',
          headers,
          lua: `function make(tid, k) return "${path}" end`,
          make: () => ({ path }),
        });
        const listed = await call(gw, 'GET', '/api/users?limit=100');
        const page = listed.body as { total?: number; data?: unknown[] };
        if (listed.status !== 200 || page.total !== users || page.data?.length !== 100)
          throw new Error(`GET /api/users: HTTP ${listed.status}, total ${page.total}, ${page.data?.length} items`);
        if ((await call(gw, 'GET', '/api/me')).status !== 200) throw new Error('GET /api/me failed');
        const cmp = await compareLoad(
          ctx,
          baseline.url,
          [
            { url: gw.url, plan: get('/api/me') },
            { url: gw.url, plan: get('/api/users?limit=100') },
          ],
          connections,
          seconds,
        );
        const failed = cmp.candidateRuns.flat().reduce((n, r) => n + r.failed, 0);
        if (failed > 0) throw new Error(`${failed} API requests failed`);
        return [
          figure('api', `GET /api/me, ${connections} connections`, cmp.candidates[0] as number, 'req/s', {
            baseline: cmp.baseline,
            target: { on: 'ratio', goal: { atLeast: 0.7 }, text: 'ratio ≥ 0.7' },
          }),
          figure('api', `GET /api/users?limit=100 of ${users.toLocaleString('en-US')} users`, cmp.candidates[1] as number, 'req/s', {
            baseline: cmp.baseline,
            target: { on: 'ratio', goal: { atLeast: 0.15 }, text: 'ratio ≥ 0.15' },
          }),
        ];
      });
    } finally {
      await baseline.stop();
    }
  },
};
