// `fanout`: a 10,000-user import (POST /api/users/import, 10 % inactive) reaching 20 simulated
// terminals (v2 and v3 alternating, fresh gateway): the time until every terminal holds exactly the
// active roster (DESIGN.md "Sync"). Target (issue #31): within 10 s.
// `fanout-areas` (issue #33): the same import split over 4 areas of 5 terminals each; every terminal
// must hold exactly the active users of its own area.
import { performance } from 'node:perf_hooks';
import { call, inParallel, type Context, type Scenario } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { startFleet } from '../lib/fleet.js';
import { withGateway, type Gateway } from '../lib/gateway.js';
import { sleep } from '../lib/stats.js';

/** Issue #31: 10,000 users reach 20 terminals within 10 s. */
const TARGET_S = 10;

interface ImportItem {
  readonly pin: number;
  readonly first_name: string;
  readonly last_name: string;
  readonly card_no: string;
  readonly is_active?: false;
  readonly areas?: readonly number[];
}

interface Run {
  readonly scenario: string;
  readonly label: string;
  readonly serials: readonly string[];
  readonly items: readonly ImportItem[];
  /** Per terminal, the PINs it must hold once converged. */
  readonly expected: (sn: string) => ReadonlySet<string>;
  readonly note: string;
}

function roster(users: number, areaOf?: (i: number) => number): ImportItem[] {
  return Array.from({ length: users }, (_, i) => ({
    pin: 100_000 + i,
    first_name: `First${i}`,
    last_name: `Last${i}`,
    card_no: String(5_000_000 + i),
    ...(i % 10 === 0 ? { is_active: false as const } : {}),
    ...(areaOf ? { areas: [areaOf(i)] } : {}),
  }));
}

/** Imports `run.items` to a started fleet and times until every terminal holds exactly its roster. */
async function converge(ctx: Context, gw: Gateway, run: Run): Promise<Figure[]> {
  const fleet = await startFleet(gw.url, run.serials, (i) => (i % 2 === 0 ? 'v2' : 'v3'), { timeoutMs: 60_000, pollDelayMs: 50 });
  try {
    const t0 = performance.now();
    const imported = await call(gw, 'POST', '/api/users/import', run.items);
    const importS = (performance.now() - t0) / 1000;
    if (imported.status !== 200 || (imported.body as { error_count?: number }).error_count !== 0)
      throw new Error(`import: HTTP ${imported.status}`);
    const missing = (sn: string, held: number) => run.expected(sn).size - held;
    const behind = () => fleet.devices.filter((d) => missing(d.sn, d.users().size) > 0);
    // Bounded: a run that does not converge reports how far it got instead of a bare failure.
    const limitS = ctx.smoke ? 60 : 300;
    let lastLog = performance.now();
    while (behind().length > 0 && performance.now() - t0 < limitS * 1000) {
      await sleep(10);
      if (performance.now() - lastLog >= 30_000) {
        lastLog = performance.now();
        const most = Math.max(...fleet.devices.map((d) => missing(d.sn, d.users().size)));
        ctx.log(`    ${((lastLog - t0) / 1000).toFixed(0)} s: the least-synced terminal misses ${most} users`);
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    const target = { on: 'value' as const, goal: { atMost: TARGET_S }, text: `≤ ${TARGET_S} s` };
    const late = behind();
    if (late.length > 0) {
      const most = Math.max(...late.map((d) => missing(d.sn, d.users().size)));
      return [
        figure(run.scenario, `${run.label}: NOT within ${limitS} s`, seconds, 's', {
          target,
          note: `stopped after ${limitS} s: the least-synced terminal missed ${most} users; import request ${importS.toFixed(1)} s`,
        }),
      ];
    }
    const wrong = fleet.devices.filter((d) => {
      const want = run.expected(d.sn);
      return d.users().size !== want.size || ![...d.users().keys()].every((p) => want.has(p));
    });
    if (wrong.length > 0) throw new Error(`terminals without exactly their roster: ${wrong.map((d) => d.sn).join(', ')}`);
    return [figure(run.scenario, run.label, seconds, 's', { target, note: `import request ${importS.toFixed(1)} s; ${run.note}` })];
  } finally {
    await fleet.stop();
  }
}

async function assign(gw: Gateway, serials: readonly string[], areaOf: (sn: string) => number | null): Promise<void> {
  await inParallel(serials, 4, async (sn) => {
    const area = areaOf(sn);
    const r = await call(gw, 'POST', '/api/devices', { sn, ...(area === null ? {} : { area_id: area }) });
    if (r.status !== 201) throw new Error(`assigning ${sn}: HTTP ${r.status}`);
  });
}

const serialsOf = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${i % 2 === 0 ? 'V2' : 'V3'}${String(i).padStart(3, '0')}`);

export const fanoutScenario: Scenario = {
  name: 'fanout',
  description: '10,000-user import to 20 simulated terminals (v2/v3): seconds until all hold the full roster',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const users = ctx.smoke ? 50 : 10_000;
    const terminals = ctx.smoke ? 4 : 20;
    const serials = serialsOf('BENCHF', terminals);
    const items = roster(users);
    const active = new Set(items.filter((u) => u.is_active !== false).map((u) => String(u.pin)));
    return withGateway({ store: ctx.store, engine: ctx.engine }, async (gw) => {
      await assign(gw, serials, () => null);
      return converge(ctx, gw, {
        scenario: 'fanout',
        label: `${users.toLocaleString('en-US')}-user import held by all ${terminals} terminals`,
        serials,
        items,
        expected: () => active,
        note: `${active.size} active users on each terminal, checked pin by pin`,
      });
    });
  },
};

/** Issue #33: 4 areas of 5 terminals each (1 each in the smoke run). */
const AREAS = 4;

export const fanoutAreasScenario: Scenario = {
  name: 'fanout-areas',
  description: '10,000-user import over 4 areas of 5 simulated terminals each: seconds until each holds its area',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const users = ctx.smoke ? 50 : 10_000;
    const perArea = ctx.smoke ? 1 : 5;
    const serials = serialsOf('BENCHA', AREAS * perArea);
    return withGateway({ store: ctx.store, engine: ctx.engine }, async (gw) => {
      const areaIds: number[] = [];
      for (let a = 0; a < AREAS; a++) {
        const r = await call(gw, 'POST', '/api/areas', { name: `Area ${a + 1}` });
        if (r.status !== 201) throw new Error(`area ${a + 1}: HTTP ${r.status}`);
        areaIds.push((r.body as { id: number }).id);
      }
      // Consecutive serials share an area, so each area has v2 and v3 terminals.
      const areaOfSn = (sn: string) => areaIds[Math.floor(serials.indexOf(sn) / perArea)] as number;
      await assign(gw, serials, areaOfSn);
      const items = roster(users, (i) => areaIds[i % AREAS] as number);
      const byArea = new Map(areaIds.map((id) => [id, new Set<string>()]));
      for (const u of items) if (u.is_active !== false) byArea.get(u.areas?.[0] as number)?.add(String(u.pin));
      return converge(ctx, gw, {
        scenario: 'fanout-areas',
        label: `${users.toLocaleString('en-US')}-user import over ${AREAS} areas held by all ${serials.length} terminals`,
        serials,
        items,
        expected: (sn) => byArea.get(areaOfSn(sn)) ?? new Set(),
        note: `each terminal holds exactly the active users of its area (${[...byArea.values()].map((a) => a.size).join(', ')}), checked pin by pin`,
      });
    });
  },
};
