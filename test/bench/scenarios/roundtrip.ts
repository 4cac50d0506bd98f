// `roundtrip`: v3 terminals holding their polls (src/simulator), commands queued through
// POST /api/commands to terminals picked across the fleet at a steady pace, each timed from the POST to
// its `success` on the WebSocket stream (the terminal executed it and posted the result). 100, 1,000
// and 10,000 terminals, each on a fresh gateway. The terminals run in child processes (startFleetProcesses),
// so the bench's own event loop, whose clock times each command, only sends the commands and reads the stream.
import { performance } from 'node:perf_hooks';
import { assignThroughStore, call, type Context, type Scenario } from '../lib/context.js';
import { figure, PartialFailure, type Figure } from '../lib/figures.js';
import { startFleetProcesses } from '../lib/fleet.js';
import { withGateway } from '../lib/gateway.js';
import { quantile, sleep } from '../lib/stats.js';
import { watchCommands } from '../lib/stream.js';

const serial = (i: number) => `BENCHR${String(i).padStart(6, '0')}`;
/** Time a level may spend starting its terminals (as the `devices` scenario's levels): on a machine where
 *  10,000 registrations saturate both cores the level measures with the terminals online by then, and its
 *  note says how many (`npm run bench` as a whole stays under 15 minutes). Commands go only to
 *  terminals that are online. */
const LEVEL_BUDGET_MS = 150_000;
/** Time the commands of a level may take, warm-up included: a command without its `success` by then is
 *  counted as failed (and named in the note), so an overloaded level ends instead of waiting on each. */
const COMMAND_PHASE_MS = 90_000;
/** Time one warm-up command may take. */
const WARM_UP_MS = 10_000;
/** Wait after the terminals are online, before the first command: two hold periods of a v3 poll (8 s),
 *  so the registration wave's follow-up (first held polls, online events, leases) is behind. The figure
 *  is the round trip at N held terminals, not during their arrival. */
const SETTLE_MS = 16_000;

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
        ...(await withGateway(
          { store: ctx.store, engine: ctx.engine, before: (url, loc) => assignThroughStore(url, loc, serials) },
          async (gw) => {
            const fleet = await startFleetProcesses(gw.url, serials, 'v3', { timeoutMs: 120_000, budgetMs: LEVEL_BUDGET_MS, log: ctx.log });
            const watch = await watchCommands(gw).catch(async (err: unknown) => {
              await fleet.stop();
              throw err;
            });
            try {
              if (!ctx.smoke) await sleep(SETTLE_MS);
              const online = await fleet.onlineSerials();
              if (online.length === 0) throw new Error('no terminal online');
              const endBy = performance.now() + COMMAND_PHASE_MS;
              const errors = new Map<string, number>();
              const one = async (i: number, timeoutMs: number): Promise<number> => {
                const sn = online[(i * 7919) % online.length] as string;
                const t0 = performance.now();
                const r = await call(gw, 'POST', '/api/commands', { sn, command: 'info' }, timeoutMs);
                if (r.status !== 201 && r.status !== 202) throw new Error(`POST /api/commands: HTTP ${r.status} ${JSON.stringify(r.body)}`);
                return (
                  (await watch.success((r.body as { id: number }).id, Math.max(1, Math.ceil(timeoutMs - (performance.now() - t0))))) - t0
                );
              };
              for (let i = 0; i < 5; i++) await one(samples + i, WARM_UP_MS).catch(() => undefined);
              // A command that fails (HTTP error, no success before the phase's end) is counted and named in
              // the note, not dropped silently; the percentiles are over the ones that succeeded.
              const pending: Promise<number | null>[] = [];
              for (let i = 0; i < samples && performance.now() < endBy; i++) {
                pending.push(
                  one(i, Math.max(1, Math.ceil(endBy - performance.now()))).catch((err: unknown) => {
                    const m = err instanceof Error ? err.message.replace(/\d+/g, 'N') : String(err);
                    errors.set(m, (errors.get(m) ?? 0) + 1);
                    return null;
                  }),
                );
                await sleep(gapMs);
              }
              const ms = (await Promise.all(pending)).filter((x): x is number => x !== null);
              if (ms.length === 0) throw new Error(`no command succeeded at ${n} terminals: ${[...errors.keys()].join('; ')}`);
              const failedNote =
                errors.size === 0 ? '' : `; ${pending.length - ms.length} failed (${[...errors].map(([m, c]) => `${c}× ${m}`).join('; ')})`;
              const within100 = ms.filter((x) => x <= 100).length / ms.length;
              const label = `${n.toLocaleString('en-US')} v3 terminals`;
              const note = `${pending.length} commands, one every ${gapMs} ms; ${(within100 * 100).toFixed(0)} % of the successful ones within 100 ms; ${fleet.online()} of ${n} terminals online at the end${failedNote}`;
              ctx.log(`    ${label}: p50 ${quantile(ms, 0.5).toFixed(1)} ms, p99 ${quantile(ms, 0.99).toFixed(1)} ms`);
              return [
                figure('roundtrip', `p50 POST→success, ${label}`, quantile(ms, 0.5), 'ms'),
                figure('roundtrip', `p90 POST→success, ${label}`, quantile(ms, 0.9), 'ms'),
                figure('roundtrip', `p99 POST→success, ${label}`, quantile(ms, 0.99), 'ms', {
                  ...(n === 10_000 ? { target: { on: 'value' as const, goal: { atMost: 25 }, text: '≤ 25 ms' } } : {}),
                  note,
                }),
              ];
            } finally {
              watch.close();
              await fleet.stop();
            }
          },
        )),
      );
    }
  },
};
