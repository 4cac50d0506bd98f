// `devices`: how many v3 terminals one gateway holds (each with its poll held between commands) and
// the gateway's resident memory per terminal: RSS from /proc/<pid>/status before the terminals come
// and once all of them are online. 10,000 and 50,000 terminals, each level on a fresh gateway; a level
// above what RLIMIT_NOFILE allows (one socket per terminal on each side) runs at the largest size
// that fits, and the figure says so.
import { assignThroughStore, type Context, type Scenario } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { openFileLimit, startFleet } from '../lib/fleet.js';
import { withGateway } from '../lib/gateway.js';
import { sleep } from '../lib/stats.js';

const serial = (i: number) => `BENCHD${String(i).padStart(6, '0')}`;
/** file descriptors kept free for the store, the listener, logs and the bench's own connections */
const SPARE_FDS = 400;

export const devicesScenario: Scenario = {
  name: 'devices',
  description: 'v3 terminals held by one gateway and its RSS per terminal (/proc), at 10,000 and 50,000 terminals',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const asked = ctx.smoke ? [20] : [10_000, 50_000];
    const fit = openFileLimit() - SPARE_FDS;
    const figures: Figure[] = [];
    for (const want of asked) {
      const n = Math.min(want, fit);
      const capped = n < want ? ` (${want.toLocaleString('en-US')} asked; RLIMIT_NOFILE ${openFileLimit().toLocaleString('en-US')} allows ${n.toLocaleString('en-US')})` : '';
      const serials = Array.from({ length: n }, (_, i) => serial(i + 1));
      figures.push(
        ...(await withGateway({ store: ctx.store, engine: ctx.engine, before: (url, loc) => assignThroughStore(url, loc, serials) }, async (gw) => {
          await sleep(1_000);
          const before = gw.rss();
          const t0 = Date.now();
          const fleet = await startFleet(gw.url, serials, () => 'v3', { timeoutMs: 180_000, log: ctx.log });
          try {
            const upS = (Date.now() - t0) / 1000;
            await sleep(ctx.smoke ? 500 : 3_000);
            const held = fleet.online();
            const after = gw.rss();
            const perKb = (after - before) / n / 1024;
            const label = `${n.toLocaleString('en-US')} v3 terminals${capped}`;
            return [
              figure('devices', `terminals online, ${label}`, held, 'terminals', { note: `all online ${upS.toFixed(0)} s after the first registration` }),
              figure('devices', `gateway RSS per terminal, ${label}`, perKb, 'KB', {
                ...(want === 50_000 ? { target: { on: 'value' as const, goal: { atMost: 10 }, text: '≤ 10 KB at 50,000' } } : {}),
                note: `RSS ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MiB`,
              }),
            ];
          } finally {
            await fleet.stop();
          }
        })),
      );
    }
    return figures;
  },
};
