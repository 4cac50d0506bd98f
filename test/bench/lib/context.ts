// What every scenario gets from the runner, and the helpers they share: HTTP calls, terminal setup,
// and the interleaved baseline/candidate throughput comparison.
import { openStore } from '../../../src/store/open.js';
import type { Figure } from './figures.js';
import type { Gateway } from './gateway.js';
import { runLoad, type GeneratorName, type LoadPlan, type LoadResult } from './load.js';
import { median } from './stats.js';

export interface Context {
  /** tiny sizes, one round: proves the harness works (CI), measures nothing */
  readonly smoke: boolean;
  /** `sqlite` or a `mongodb://` URL */
  readonly store: string;
  readonly engine: string;
  readonly generator: GeneratorName;
  /** rounds per throughput comparison (median taken) */
  readonly rounds: number;
  log(line: string): void;
}

export interface Scenario {
  readonly name: string;
  /** one line for --help and the README */
  readonly description: string;
  /** part of a plain `npm run bench` (the legacy micro benches are reachable by name only) */
  readonly inDefault: boolean;
  run(ctx: Context): Promise<Figure[]>;
}

/** One API call as the bench's integrator; `timeoutMs` (default 10 minutes: imports of 100,000 users)
 *  bounds it, so a saturated gateway cannot hold a scenario without end. */
export async function call(
  gw: Gateway,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 600_000,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain-text answers (device endpoints) stay text
  }
  return { status: res.status, body: parsed };
}

/** `fn` over `items`, at most `limit` at a time. */
export async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

/** Assigns serials straight through the store (seconds for 50,000, where the API would take minutes). */
export async function assignThroughStore(storeUrl: string, locationId: number, serials: readonly string[]): Promise<void> {
  const store = await openStore(storeUrl);
  try {
    const now = new Date().toISOString();
    await inParallel(serials, 16, async (sn) => {
      const r = await store.devices.assign(locationId, sn, { name: null }, now);
      if (r.outcome === 'other-location') throw new Error(`${sn} belongs to another location`);
    });
  } finally {
    await store.close();
  }
}

/** A v2 terminal's handshake [PUSH-v2 §4.1], then polls until nothing is pending (assignment may queue a sync). */
export async function handshakeV2(gw: Gateway, sn: string): Promise<void> {
  const hs = await fetch(`${gw.url}/iclock/cdata?SN=${sn}&options=all&pushver=2.4.1&language=69`);
  if (hs.status !== 200) throw new Error(`${sn}: handshake HTTP ${hs.status}`);
  await hs.text();
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${gw.url}/iclock/getrequest?SN=${sn}`);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${sn}: getrequest HTTP ${res.status}`);
    if (text.trim() === 'OK') return;
    // Acknowledge what was sent so it is not resent [PUSH-v2 §7.4]: Return=0 for each C:<id>: line.
    const ids = [...text.matchAll(/^C:(\d+):(\S+)/gm)].map((m) => `ID=${m[1]}&Return=0&CMD=${m[2]}`);
    if (ids.length > 0) await (await fetch(`${gw.url}/iclock/devicecmd?SN=${sn}`, { method: 'POST', body: ids.join('\n') })).text();
  }
  throw new Error(`${sn}: still has commands after 50 polls`);
}

export interface Comparison {
  readonly baseline: number;
  readonly candidates: readonly number[];
  readonly runs: readonly LoadResult[];
  /** each candidate's runs, in round order */
  readonly candidateRuns: readonly (readonly LoadResult[])[];
}

/**
 * Baseline and candidates driven by the same generator with the same connections, interleaved per
 * round (the order alternates so neither side always runs on a warmer machine); medians of req/s.
 * `tidBase` of each run is unique, so plans that must not repeat a request (dedup) never do.
 */
export async function compareLoad(
  ctx: Context,
  baselineUrl: string,
  candidates: readonly { url: string; plan: LoadPlan }[],
  connections: number,
  seconds: number,
): Promise<Comparison> {
  const base: number[] = [];
  const cand: number[][] = candidates.map(() => []);
  const runs: LoadResult[] = [];
  const candidateRuns: LoadResult[][] = candidates.map(() => []);
  let tid = 1;
  const one = async (url: string, plan: LoadPlan, into?: LoadResult[]): Promise<number> => {
    const r = await runLoad(ctx.generator, `${url}/`, plan, { connections, seconds, tidBase: (tid += 16) });
    runs.push(r);
    into?.push(r);
    if (r.ok === 0) throw new Error(`no request to ${url} succeeded (${r.failed} failed)`);
    return r.rps;
  };
  for (let round = 0; round < ctx.rounds; round++) {
    const order = round % 2 === 0 ? ['base', ...candidates.keys()] : [...candidates.keys(), 'base'];
    for (const which of order) {
      if (which === 'base') base.push(await one(baselineUrl, (candidates[0] as { plan: LoadPlan }).plan));
      else {
        const c = candidates[which as number] as { url: string; plan: LoadPlan };
        (cand[which as number] as number[]).push(await one(c.url, c.plan, candidateRuns[which as number]));
      }
    }
    ctx.log(
      `    round ${round + 1}/${ctx.rounds}: baseline ${base.at(-1)?.toFixed(0)} req/s; ${cand.map((c) => `${c.at(-1)?.toFixed(0)}`).join(', ')} req/s`,
    );
  }
  return { baseline: median(base), candidates: cand.map(median), runs, candidateRuns };
}
