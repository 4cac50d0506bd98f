// `revocation` (issue #31): 1,000 simulated v3 terminals holding their polls, all holding the
// location's roster, then users deleted one by one through DELETE /api/users/{pin}. Each deletion is
// timed from the request to the moment the last terminal's deletion op is confirmed (`success` of its
// `sync-users` op `user.delete`, on the WebSocket stream: the terminal executed the line and posted
// its result). The terminals run in child processes (startFleetProcesses); at the end their own user
// tables are asked whether any still holds a deleted PIN. Target: p99 ≤ 3 s.
import { performance } from 'node:perf_hooks';
import { assignThroughStore, call, type Context, type Scenario } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { startFleetProcesses, type RemoteFleet } from '../lib/fleet.js';
import { withGateway, type Gateway } from '../lib/gateway.js';
import { quantile, sleep } from '../lib/stats.js';
import { watchRevocations } from '../lib/stream.js';

const serial = (i: number) => `BENCHD${String(i).padStart(6, '0')}`;
/** Time the terminals may take to come online (as roundtrip's levels). */
const START_BUDGET_MS = 150_000;
/** Time the roster may take to reach every terminal before the deletions begin. */
const SEED_MS = 240_000;
/** Time one deletion may take to be confirmed by every terminal; past it the deletion counts as failed. */
const ONE_DELETE_MS = 30_000;
/** Time the whole deletion phase may take: an overloaded gateway ends the scenario instead of holding it. */
const DELETE_PHASE_MS = 300_000;
/** Pause between one deletion's last confirmation and the next DELETE. */
const GAP_MS = 100;
const TARGET_S = 3;

export const revocationScenario: Scenario = {
  name: 'revocation',
  description:
    '100 users deleted one by one with 1,000 v3 terminals online: DELETE /api/users/{pin} → confirmed by every terminal, p50/p99',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const terminals = ctx.smoke ? 5 : 1_000;
    const users = ctx.smoke ? 10 : 150;
    const deletions = ctx.smoke ? 5 : 100;
    const serials = Array.from({ length: terminals }, (_, i) => serial(i + 1));
    const pins = Array.from({ length: users }, (_, i) => 200_000 + i);
    return withGateway(
      { store: ctx.store, engine: ctx.engine, before: (url, loc) => assignThroughStore(url, loc, serials) },
      async (gw) => {
        // The roster is queued before the terminals connect, so each takes it in a few full replies;
        // imported while 1,000 terminals hold their polls, each chunk of the background fan-out would
        // wake every terminal for a couple of lines, and seeding would take minutes.
        const t0 = performance.now();
        await importRoster(gw, pins, serials.at(-1) as string);
        const fleet = await startFleetProcesses(gw.url, serials, 'v3', { timeoutMs: 120_000, budgetMs: START_BUDGET_MS, log: ctx.log });
        try {
          const held = await seed(ctx, gw, fleet, pins, t0);
          return await deleteOneByOne(ctx, gw, fleet, pins.slice(0, deletions), held);
        } finally {
          await fleet.stop();
        }
      },
    );
  },
};

/** Imports the roster and waits until the last terminal owes all of it (the fan-out of an import runs
 *  in the background, a few users at a time to every terminal: the last chunk completes every terminal). */
async function importRoster(gw: Gateway, pins: readonly number[], lastSn: string): Promise<void> {
  const imported = await call(
    gw,
    'POST',
    '/api/users/import',
    pins.map((pin) => ({ pin, first_name: `Rev${pin}`, last_name: 'Bench', card_no: String(pin) })),
  );
  if (imported.status !== 200 || (imported.body as { error_count?: number }).error_count !== 0)
    throw new Error(`import: HTTP ${imported.status} ${JSON.stringify(imported.body)}`);
  const until = performance.now() + SEED_MS;
  while (((await call(gw, 'GET', `/api/devices/${lastSn}/sync?limit=1`)).body as { owed?: number }).owed !== pins.length) {
    if (performance.now() > until) throw new Error(`the roster's ops not queued for ${lastSn} within ${SEED_MS / 1000} s`);
    await sleep(200);
  }
}

/** Waits until every online terminal holds the roster by its own table and the gateway owes nothing;
 *  returns how many terminals hold it (the deletions must reach each of them). */
async function seed(ctx: Context, gw: Gateway, fleet: RemoteFleet, pins: readonly number[], t0: number): Promise<number> {
  const online = fleet.online();
  const roster = pins.map(String);
  const until = performance.now() + SEED_MS;
  let holding = 0;
  let lastLog = performance.now();
  for (;;) {
    holding = (await fleet.census(roster)).holdingAll;
    const summary = (await call(gw, 'GET', '/api/sync')).body as { syncing: number; drift: number };
    if (holding >= online && summary.syncing === 0 && summary.drift === 0) break;
    if (performance.now() > until)
      throw new Error(`the roster of ${pins.length} users reached ${holding} of ${online} online terminals in ${SEED_MS / 1000} s`);
    if (performance.now() - lastLog >= 30_000) {
      lastLog = performance.now();
      ctx.log(`    seeding: ${holding} of ${online} terminals hold the ${pins.length} users; ${summary.syncing} still syncing`);
    }
    await sleep(ctx.smoke ? 100 : 500);
  }
  ctx.log(`    ${pins.length} users held by ${holding} terminals ${((performance.now() - t0) / 1000).toFixed(1)} s after the import`);
  return holding;
}

async function deleteOneByOne(ctx: Context, gw: Gateway, fleet: RemoteFleet, pins: readonly number[], held: number): Promise<Figure[]> {
  const watch = await watchRevocations(gw);
  try {
    const seconds: number[] = [];
    const late: string[] = [];
    const endBy = performance.now() + DELETE_PHASE_MS;
    let asked = 0;
    for (const pin of pins) {
      if (performance.now() > endBy) break;
      asked++;
      const t0 = performance.now();
      const r = await call(gw, 'DELETE', `/api/users/${pin}`, undefined, ONE_DELETE_MS);
      if (r.status !== 200) throw new Error(`DELETE /api/users/${pin}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
      try {
        seconds.push(((await watch.confirmedBy(pin, held, ONE_DELETE_MS)) - t0) / 1000);
      } catch (err) {
        // Counted at the limit (a lower bound), so a late deletion raises the quantiles instead of vanishing.
        seconds.push(ONE_DELETE_MS / 1000);
        late.push(err instanceof Error ? err.message : String(err));
      }
      await sleep(GAP_MS);
    }
    if (late.length === seconds.length) throw new Error(`no deletion confirmed by all ${held} terminals: ${late.slice(0, 3).join('; ')}`);
    // The terminals' own tables: a confirmed deletion that left the user on a terminal would be a lie.
    const still = (await fleet.census(pins.slice(0, asked).map(String))).holdingAny;
    const label = `${held.toLocaleString('en-US')} v3 terminals`;
    const note =
      `${asked} users of ${pins.length} asked deleted one by one (each confirmed by every terminal, then ${GAP_MS} ms, then the next), ` +
      `of a roster held by ${held} of ${fleet.size} terminals; confirmations read from the stream's command.updated; ` +
      `max ${Math.max(...seconds).toFixed(2)} s; ${still === 0 ? 'no terminal holds a deleted user (their own tables)' : `${still} terminals still hold a deleted user`}` +
      (late.length > 0
        ? `; ${late.length} not confirmed by all within ${ONE_DELETE_MS / 1000} s, counted as ${ONE_DELETE_MS / 1000} s (${late.slice(0, 2).join('; ')})`
        : '') +
      (watch.failed > 0 ? `; ${watch.failed} deletion ops failed` : '');
    ctx.log(`    p50 ${quantile(seconds, 0.5).toFixed(2)} s, p99 ${quantile(seconds, 0.99).toFixed(2)} s over ${seconds.length} deletions`);
    return [
      figure('revocation', `p50 DELETE→confirmed by all, ${label}`, quantile(seconds, 0.5), 's'),
      figure('revocation', `p99 DELETE→confirmed by all, ${label}`, quantile(seconds, 0.99), 's', {
        target: { on: 'value', goal: { atMost: TARGET_S }, text: `≤ ${TARGET_S} s` },
        note,
      }),
    ];
  } finally {
    watch.close();
  }
}
