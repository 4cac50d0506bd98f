// `devices`: how many v3 terminals one gateway holds (each registered, its poll held between
// commands) and the gateway's resident memory per terminal: RSS from /proc/<pid>/status before the
// terminals come and once all of them are online. One gateway, grown in levels (10,000, then 50,000):
// each level's figure is (RSS at that level − RSS before any terminal) / terminals. A level above what
// RLIMIT_NOFILE allows (one socket per terminal on each side) runs at the largest size that fits, and
// the figure says so. The simulated terminals run in child processes of the bench (startFleetProcesses).
import { assignThroughStore, type Context, type Scenario } from '../lib/context.js';
import { figure, PartialFailure, type Figure } from '../lib/figures.js';
import { openFileLimit, startFleetProcesses, type Terminals } from '../lib/fleet.js';
import { withGateway } from '../lib/gateway.js';
import { sleep } from '../lib/stats.js';

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const serial = (i: number) => `BENCHD${String(i).padStart(6, '0')}`;
/** file descriptors kept free for the store, the listener, logs, the bench's own connections and the
 *  simulators' extra sockets while a poll and a result post overlap (400 was not enough at 10,000) */
const SPARE_FDS = 2_000;
/** Time a level may take (starting its terminals and waiting for them): `npm run bench` as a whole
 *  stays under 15 minutes even when the simulated fleet saturates the machine; a level cut
 *  short says how many terminals it held, and the per-terminal figure divides by those. */
const LEVEL_BUDGET_MS = 200_000;

export const devicesScenario: Scenario = {
  name: 'devices',
  description: 'v3 terminals held by one gateway and its RSS per terminal (/proc), at 10,000 and 50,000 terminals',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const asked = ctx.smoke ? [10, 20] : [10_000, 50_000];
    const limit = openFileLimit();
    const levels = asked.map((want) => ({ want, n: Math.min(want, limit - SPARE_FDS) }));
    const most = Math.max(...levels.map((l) => l.n));
    const serials = Array.from({ length: most }, (_, i) => serial(i + 1));
    return withGateway(
      { store: ctx.store, engine: ctx.engine, before: (url, loc) => assignThroughStore(url, loc, serials) },
      async (gw) => {
        await sleep(1_000);
        const before = gw.rss();
        const heapBefore = await gw.heap();
        const fleets: Terminals[] = [];
        const figures: Figure[] = [];
        try {
          let have = 0;
          for (const { want, n } of levels) {
            if (n <= have) continue;
            const t0 = Date.now();
            try {
              fleets.push(
                await startFleetProcesses(gw.url, serials.slice(have, n), 'v3', {
                  timeoutMs: 180_000,
                  budgetMs: LEVEL_BUDGET_MS,
                  log: ctx.log,
                }),
              );
            } catch (err) {
              throw new PartialFailure(
                `${n.toLocaleString('en-US')} terminals: ${err instanceof Error ? err.message : String(err)}`,
                figures,
              );
            }
            have = n;
            const upS = (Date.now() - t0) / 1000;
            await sleep(ctx.smoke ? 500 : 3_000);
            const held = fleets.reduce((sum, f) => sum + f.online(), 0);
            const after = gw.rss();
            const heap = await gw.heap();
            const capped =
              n < want
                ? ` (${want.toLocaleString('en-US')} asked; RLIMIT_NOFILE ${limit.toLocaleString('en-US')} allows ${n.toLocaleString('en-US')})`
                : '';
            const short = held < n ? `, ${held.toLocaleString('en-US')} of them online within the level's ${LEVEL_BUDGET_MS / 1000} s` : '';
            const label = `${n.toLocaleString('en-US')} v3 terminals${capped}${short}`;
            // Where the RSS went: V8's heap (what is in use, what it reserved) and what V8 counts outside it.
            const heapNote = `V8 heap used ${mib(heapBefore.used)} → ${mib(heap.used)} MiB of ${mib(heapBefore.total)} → ${mib(heap.total)} MiB reserved, external ${mib(heapBefore.external)} → ${mib(heap.external)} MiB`;
            ctx.log(`    ${label}: ${held} online, RSS ${mib(before)} → ${mib(after)} MiB; ${heapNote}`);
            figures.push(
              figure('devices', `terminals online, ${label}`, held, 'terminals', {
                note: `${held.toLocaleString('en-US')} online ${upS.toFixed(0)} s after this level's first registration`,
              }),
              figure('devices', `gateway RSS per terminal, ${label}`, (after - before) / Math.max(1, held) / 1024, 'KB', {
                ...(want === 50_000 ? { target: { on: 'value' as const, goal: { atMost: 10 }, text: '≤ 10 KB at 50,000' } } : {}),
                note: `RSS ${mib(before)} MiB before any terminal → ${mib(after)} MiB; ${heapNote}`,
              }),
            );
          }
          return figures;
        } finally {
          await Promise.all(fleets.map((f) => f.stop()));
        }
      },
    );
  },
};
