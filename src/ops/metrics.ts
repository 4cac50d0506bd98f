/**
 * A small Prometheus text-format registry (counters, gauges, one histogram):
 * enough for /metrics without another dependency.
 *
 * Label values may come from clients (a device's table name, an HTTP method), so every
 * counter and histogram holds at most `maxSeries` label sets; past that, new label sets are
 * counted under one series whose values are all "other" (issue #12: nothing grows without bound).
 */
type Labels = Readonly<Record<string, string>>;

export interface SeriesOptions {
  /** Most distinct label sets kept; default 1,000. */
  readonly maxSeries?: number;
}

const DEFAULT_MAX_SERIES = 1000;
const OTHER = 'other';
const asOther = (labels: Labels): Labels => Object.fromEntries(Object.keys(labels).map((k) => [k, OTHER]));

/** The map key of `labels`, or of their "other" series once `size` reached `max` and the set is new. */
function seriesKey(labels: Labels, has: (k: string) => boolean, size: number, max: number): { k: string; labels: Labels } {
  const k = key(labels);
  if (has(k) || size < max) return { k, labels };
  const other = asOther(labels);
  return { k: key(other), labels: other };
}

const key = (labels: Labels) => JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
const fmt = (labels: Labels) => {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}`;
};

interface Metric {
  render(): Promise<string[]> | string[];
}

export class Counter implements Metric {
  readonly #values = new Map<string, { labels: Labels; value: number }>();
  readonly #maxSeries: number;
  constructor(readonly name: string, readonly help: string, options: SeriesOptions = {}) {
    this.#maxSeries = options.maxSeries ?? DEFAULT_MAX_SERIES;
  }
  inc(labels: Labels = {}, by = 1): void {
    const s = seriesKey(labels, (k) => this.#values.has(k), this.#values.size, this.#maxSeries);
    const entry = this.#values.get(s.k);
    if (entry) entry.value += by;
    else this.#values.set(s.k, { labels: s.labels, value: by });
  }
  render(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`, ...[...this.#values.values()].map((e) => `${this.name}${fmt(e.labels)} ${e.value}`)];
  }
}

export class Histogram implements Metric {
  readonly #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  readonly #maxSeries: number;
  constructor(readonly name: string, readonly help: string, readonly buckets: readonly number[], options: SeriesOptions = {}) {
    this.#maxSeries = options.maxSeries ?? DEFAULT_MAX_SERIES;
  }
  observe(labels: Labels, value: number): void {
    const at = seriesKey(labels, (k) => this.#series.has(k), this.#series.size, this.#maxSeries);
    let s = this.#series.get(at.k);
    if (!s) this.#series.set(at.k, (s = { labels: at.labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    this.buckets.forEach((b, i) => {
      if (value <= b) s.counts[i] = (s.counts[i] ?? 0) + 1;
    });
    s.sum += value;
    s.count++;
  }
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.#series.values()) {
      this.buckets.forEach((b, i) => lines.push(`${this.name}_bucket${fmt({ ...s.labels, le: String(b) })} ${s.counts[i] ?? 0}`));
      lines.push(`${this.name}_bucket${fmt({ ...s.labels, le: '+Inf' })} ${s.count}`);
      lines.push(`${this.name}_sum${fmt(s.labels)} ${s.sum}`, `${this.name}_count${fmt(s.labels)} ${s.count}`);
    }
    return lines;
  }
}

/** A gauge whose values are read when /metrics is scraped. */
export class Gauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly collect: () => Promise<readonly { labels: Labels; value: number }[]> | readonly { labels: Labels; value: number }[],
  ) {}
  async render(): Promise<string[]> {
    const values = await this.collect();
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`, ...values.map((v) => `${this.name}${fmt(v.labels)} ${v.value}`)];
  }
}

export class MetricsRegistry {
  readonly #metrics: Metric[] = [];
  register<M extends Metric>(metric: M): M {
    this.#metrics.push(metric);
    return metric;
  }
  async render(): Promise<string> {
    const parts = await Promise.all(this.#metrics.map((m) => m.render()));
    return parts.flat().join('\n') + '\n';
  }
}
