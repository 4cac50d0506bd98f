// A tiny benchmark harness: baseline and candidate run in the same process, interleaved, for several
// rounds; each round runs a case for at least `minMs`. Reports the median rate (units per second, where
// a unit is whatever one call processes: records, requests …) and the candidate/baseline ratio.
import { performance } from 'node:perf_hooks';

export interface BenchCase {
  readonly name: string;
  /** units processed by one call (e.g. records in the body) */
  readonly units: number;
  readonly run: () => unknown;
}

export interface Rate {
  readonly name: string;
  /** median units per second over the rounds */
  readonly unitsPerSecond: number;
  /** median milliseconds per call */
  readonly msPerCall: number;
}

export interface Comparison {
  readonly title: string;
  readonly baseline: Rate;
  readonly candidate: Rate;
  /** candidate rate / baseline rate (1 = as fast as the baseline) */
  readonly ratio: number;
}

export interface CompareOptions {
  readonly rounds?: number;
  readonly minMs?: number;
  readonly warmupCalls?: number;
}

/** Results are kept here so the JIT cannot drop the work. */
export const sink: unknown[] = [];

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

function timeRound(c: BenchCase, minMs: number): number {
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    sink[calls & 7] = c.run();
    calls++;
    elapsed = performance.now() - start;
  } while (elapsed < minMs);
  return elapsed / calls;
}

export function compare(title: string, baseline: BenchCase, candidate: BenchCase, options: CompareOptions = {}): Comparison {
  const rounds = options.rounds ?? 7;
  const minMs = options.minMs ?? 250;
  for (let i = 0; i < (options.warmupCalls ?? 20); i++) {
    sink[0] = baseline.run();
    sink[1] = candidate.run();
  }
  const base: number[] = [];
  const cand: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // alternate the order so neither case always runs on a warmer machine
    if (r % 2 === 0) {
      base.push(timeRound(baseline, minMs));
      cand.push(timeRound(candidate, minMs));
    } else {
      cand.push(timeRound(candidate, minMs));
      base.push(timeRound(baseline, minMs));
    }
  }
  const rate = (c: BenchCase, ms: number[]): Rate => ({
    name: c.name,
    msPerCall: median(ms),
    unitsPerSecond: (c.units * 1000) / median(ms),
  });
  const b = rate(baseline, base);
  const c = rate(candidate, cand);
  return { title, baseline: b, candidate: c, ratio: c.unitsPerSecond / b.unitsPerSecond };
}

const fmt = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} k` : n.toFixed(0));

export function report(result: Comparison, unit = 'records'): string {
  return [
    result.title,
    `  baseline  ${result.baseline.name}: ${fmt(result.baseline.unitsPerSecond)} ${unit}/s (${result.baseline.msPerCall.toFixed(3)} ms/call)`,
    `  candidate ${result.candidate.name}: ${fmt(result.candidate.unitsPerSecond)} ${unit}/s (${result.candidate.msPerCall.toFixed(3)} ms/call)`,
    `  ratio candidate/baseline: ${result.ratio.toFixed(3)}`,
  ].join('\n');
}

/** A case that does its own setup and resolves with the milliseconds of the part it times (one call = one run). */
export interface AsyncBenchCase {
  readonly name: string;
  /** units processed by one run */
  readonly units: number;
  readonly run: () => Promise<number>;
}

/** For long asynchronous runs (seconds to minutes each): the median of `rounds` runs. */
export async function measureRuns(c: AsyncBenchCase, rounds = 1): Promise<Rate> {
  const ms: number[] = [];
  for (let r = 0; r < rounds; r++) ms.push(await c.run());
  return { name: c.name, msPerCall: median(ms), unitsPerSecond: (c.units * 1000) / median(ms) };
}

/** Two rates measured in the same process, as a Comparison for `report`. */
export const comparison = (title: string, baseline: Rate, candidate: Rate): Comparison => ({
  title,
  baseline,
  candidate,
  ratio: candidate.unitsPerSecond / baseline.unitsPerSecond,
});
