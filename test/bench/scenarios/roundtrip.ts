// `roundtrip`: v3 terminals holding their polls (src/simulator), commands queued through
// POST /api/commands to terminals picked across the fleet at a steady pace, each timed from the POST to
// its `success` on the WebSocket stream (the terminal executed it and posted the result). 100, 1,000
// and 10,000 terminals, each on a fresh gateway.
import { performance } from 'node:perf_hooks';
import { assignThroughStore, call, type Context, type Scenario } from '../lib/context.js';
import { figure, PartialFailure, type Figure } from '../lib/figures.js';
import { startFleet } from '../lib/fleet.js';
import { withGateway } from '../lib/gateway.js';
import { quantile, sleep } from '../lib/stats.js';
import { watchCommands } from '../lib/stream.js';

const serial = (i: number) => `BENCHR${String(i).padStart(6, '0')}`;
/** Time a level may spend starting its terminals (as the `devices` scenario's levels): on a machine where
 *  10,000 registrations saturate both cores the level measures with the terminals online by then, and its
 *  note says how many (`npm run bench` as a whole stays under 15 minutes, issue #20). Commands go only to
 *  terminals that are online. */
const LEVEL_BUDGET_MS = 150_000;

export const roundtripScenario: Scenario = {
  name: 'roundtrip',
  description: 'command round trip POST /api/commands → success, v3 terminals holding polls: 100 / 1,000 / 10,000 terminals, p50/p90/p99',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const levels = ctx.smoke ? [5] : [100, 1_000, 10_000];
    const samples = ctx.smoke ? 10 : 300;
    const gapMs = 10;
    const figures: Figure[] = [];
    for (const n of levels) {
      try {
        await level(n);
      } catch (err) {
        throw new PartialFailure(`${n.toLocaleString('en-US')} terminals: ${err instanceof Error ? err.message : String(err)}`, figures);
      }
    }
    return figures;

    async function level(n: number): Promise<void> {
      const serials = Array.from({ length: n }, (_, i) => serial(i + 1));
      figures.push(
        ...(await withGateway({ store: ctx.store, engine: ctx.engine, before: (url, loc) => assignThroughStore(url, loc, serials) }, async (gw) => {
          const fleet = await startFleet(gw.url, serials, () => 'v3', { timeoutMs: 120_000, budgetMs: LEVEL_BUDGET_MS, log: ctx.log });
          const online = fleet.devices.filter((d) => d.stats.online).map((d) => d.sn);
          if (online.length === 0) throw new Error('no terminal online');
          const watch = await watchCommands(gw);
          try {
            const errors = new Map<string, number>();
            const one = async (i: number): Promise<number> => {
              const sn = online[(i * 7919) % online.length] as string;
              const t0 = performance.now();
              const r = await call(gw, 'POST', '/api/commands', { sn, command: 'info' });
              if (r.status !== 201 && r.status !== 202) throw new Error(`POST /api/commands: HTTP ${r.status} ${JSON.stringify(r.body)}`);
              return (await watch.success((r.body as { id: number }).id, 60_000)) - t0;
            };
            for (let i = 0; i < 5; i++) await one(samples + i).catch(() => undefined); // warm-up
            // A command that fails (HTTP error, no success within 60 s) is counted and named in the note,
            // not dropped silently; the percentiles are over the ones that succeeded.
            const pending: Promise<number | null>[] = [];
            for (let i = 0; i < samples; i++) {
              pending.push(one(i).catch((err: unknown) => {
                const m = err instanceof Error ? err.message.replace(/\d+/g, 'N') : String(err);
                errors.set(m, (errors.get(m) ?? 0) + 1);
                return null;
              }));
              await sleep(gapMs);
            }
            const ms = (await Promise.all(pending)).filter((x): x is number => x !== null);
            if (ms.length === 0) throw new Error(`no command succeeded at ${n} terminals: ${[...errors.keys()].join('; ')}`);
            const failedNote = errors.size === 0 ? '' : `; ${samples - ms.length} failed (${[...errors].map(([m, c]) => `${c}× ${m}`).join('; ')})`;
            const within100 = ms.filter((x) => x <= 100).length / ms.length;
            const label = `${n.toLocaleString('en-US')} v3 terminals`;
            const note = `${samples} commands, one every ${gapMs} ms; ${(within100 * 100).toFixed(0)} % of the successful ones within 100 ms; ${fleet.online()} of ${n} terminals online at the end${failedNote}`;
            ctx.log(`    ${label}: p50 ${quantile(ms, 0.5).toFixed(1)} ms, p99 ${quantile(ms, 0.99).toFixed(1)} ms`);
            return [
              figure('roundtrip', `p50 POST→success, ${label}`, quantile(ms, 0.5), 'ms'),
              figure('roundtrip', `p90 POST→success, ${label}`, quantile(ms, 0.9), 'ms'),
              figure('roundtrip', `p99 POST→success, ${label}`, quantile(ms, 0.99), 'ms', {
                ...(n === 1_000 ? { target: { on: 'value' as const, goal: { atMost: 25 }, text: '≤ 25 ms' } } : {}),
                note,
              }),
            ];
          } finally {
            watch.close();
            await fleet.stop();
          }
        })),
      );
    }
  },
};
