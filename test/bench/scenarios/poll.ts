// `poll`: idle `GET /iclock/getrequest` of assigned v2 terminals (answered at once: v2 polls are not
// held [PUSH-v2 §7.1]), serials spread over the generator's requests, against the raw uWS hello world.
import { startBaseline } from '../lib/baseline.js';
import { call, compareLoad, handshakeV2, inParallel, type Context, type Scenario } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { withGateway } from '../lib/gateway.js';
import type { LoadPlan } from '../lib/load.js';

const serial = (i: number) => `BENCHP${String(i).padStart(5, '0')}`;

export const pollScenario: Scenario = {
  name: 'poll',
  description: 'idle GET /iclock/getrequest of 200 assigned v2 terminals (serials spread over the requests), req/s vs raw uWS',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const terminals = ctx.smoke ? 10 : 200;
    const connections = ctx.smoke ? 8 : 64;
    const seconds = ctx.smoke ? 1 : 8;
    const serials = Array.from({ length: terminals }, (_, i) => serial(i + 1));
    const plan: LoadPlan = {
      method: 'GET',
      lua: `local N = ${terminals}
function make(tid, k) return string.format("/iclock/getrequest?SN=BENCHP%05d", (tid * 37 + k) % N + 1) end`,
      make: (tid, k) => ({ path: `/iclock/getrequest?SN=${serial(((tid * 37 + k) % terminals) + 1)}` }),
    };
    const baseline = await startBaseline();
    try {
      return await withGateway({ store: ctx.store, engine: ctx.engine }, async (gw) => {
        await inParallel(serials, 16, async (sn) => {
          const r = await call(gw, 'POST', '/api/devices', { sn });
          if (r.status !== 201) throw new Error(`assigning ${sn}: HTTP ${r.status}`);
        });
        await inParallel(serials, 16, (sn) => handshakeV2(gw, sn));
        const cmp = await compareLoad(ctx, baseline.url, [{ url: gw.url, plan }], connections, seconds);
        // Still idle afterwards: the load saw the idle answer, not an error path.
        const after = await fetch(`${gw.url}/iclock/getrequest?SN=${serial(1)}`);
        if ((await after.text()).trim() !== 'OK') throw new Error('an idle poll did not answer OK after the load');
        const failed = cmp.runs.reduce((n, r) => n + r.failed, 0);
        if (failed > 0) throw new Error(`${failed} poll requests failed`);
        return [
          figure('poll', `idle getrequest, ${terminals} v2 terminals, ${connections} connections`, cmp.candidates[0] as number, 'req/s', {
            baseline: cmp.baseline,
            target: { on: 'ratio', goal: { atLeast: 0.85 }, text: 'ratio ≥ 0.85' },
          }),
        ];
      });
    } finally {
      await baseline.stop();
    }
  },
};
