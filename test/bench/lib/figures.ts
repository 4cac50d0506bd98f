// One measured figure of a scenario, and the table / JSON they are printed as.

export interface Figure {
  readonly scenario: string;
  readonly figure: string;
  readonly value: number;
  readonly unit: string;
  /** the same measurement on the raw uWebSockets.js hello world, same generator, same run */
  readonly baseline: number | null;
  /** value / baseline (throughputs; null where no baseline applies) */
  readonly ratio: number | null;
  /** the target in words, e.g. "ratio ≥ 0.5", "≤ 25 ms" */
  readonly target: string | null;
  /** whether the target was met; null without a target */
  readonly met: boolean | null;
  /** how it was measured (sizes, counts checked), shown under the table */
  readonly note?: string;
}

type Goal = { readonly atLeast: number } | { readonly atMost: number };
export type TargetOn = 'value' | 'ratio';

/** Builds a figure; `goal` applies to the value or to the ratio. */
export function figure(
  scenario: string,
  name: string,
  value: number,
  unit: string,
  opts: { baseline?: number; target?: { on: TargetOn; goal: Goal; text: string }; note?: string } = {},
): Figure {
  const baseline = opts.baseline ?? null;
  const ratio = baseline !== null && baseline > 0 ? value / baseline : null;
  let met: boolean | null = null;
  if (opts.target) {
    const x = opts.target.on === 'ratio' ? ratio : value;
    const g = opts.target.goal;
    met = x === null || !Number.isFinite(x) ? false : 'atLeast' in g ? x >= g.atLeast : x <= g.atMost;
  }
  return {
    scenario,
    figure: name,
    value,
    unit,
    baseline,
    ratio,
    target: opts.target?.text ?? null,
    met,
    ...(opts.note !== undefined ? { note: opts.note } : {}),
  };
}

const num = (n: number): string => {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  if (abs >= 100) return Math.round(n).toLocaleString('en-US');
  if (abs >= 10) return n.toFixed(1);
  return n.toFixed(2);
};

export const formatValue = (n: number, unit: string): string => `${num(n)} ${unit}`;

/** A Markdown table (scenario, figure, value, baseline, ratio, target, met?). */
export function table(figures: readonly Figure[]): string {
  const rows = [
    '| scenario | figure | value | baseline | ratio | target | met? |',
    '|---|---|---|---|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.scenario} | ${f.figure} | ${formatValue(f.value, f.unit)} | ${f.baseline === null ? '—' : formatValue(f.baseline, f.unit)} | ${f.ratio === null ? '—' : f.ratio.toFixed(3)} | ${f.target ?? '—'} | ${f.met === null ? '—' : f.met ? 'yes' : 'no'} |`,
    ),
  ];
  return rows.join('\n');
}

/** A scenario that failed part-way: what it measured before the failure is still reported. */
export class PartialFailure extends Error {
  constructor(
    message: string,
    readonly figures: readonly Figure[],
  ) {
    super(message);
    this.name = 'PartialFailure';
  }
}
