/**
 * A small Prometheus text-format registry (counters, gauges, one histogram):
 * enough for /metrics without another dependency.
 *
 * Label values may come from clients (a device's table name, an HTTP method), so every
 * counter and histogram holds at most `maxSeries` label sets; past that, new label sets are
 * counted under one series whose values are all "other" (nothing grows without bound).
 *
 * A registry may carry default labels added to every sample it renders: BioGate sets
 * `node="<node id>"`, so that series of several nodes stay apart and PromQL sums across nodes are
 * true. Figures read from the shared store are the same on every node: their help says
 * so, and they are aggregated with max(), not sum() (README "Metrics").
 *
 * Process and Node runtime metrics (CPU, memory, open file descriptors, event-loop lag, heap, GC,
 * active handles) come from prom-client's default collectors, the one door of
 * `prom-client`: they are rendered here with the same default labels, after BioGate's own.
 */
import { collectDefaultMetrics, Registry as PromRegistry } from 'prom-client';

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

/** One string per label set, whatever the order its names came in (per observation: kept cheap). */
const key = (labels: Labels): string => {
  const names = Object.keys(labels);
  if (names.length > 1) names.sort();
  let k = '';
  // Values JSON-quoted: one a client chose (a table name) cannot imitate a separator.
  for (const n of names) k += `${n}=${JSON.stringify(labels[n] ?? '')},`;
  return k;
};
const fmt = (labels: Labels) => {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}`;
};

interface Metric {
  /** `base`: the registry's default labels, added to every sample (they win over the metric's own). */
  render(base?: Labels): Promise<string[]> | string[];
}

export class Counter implements Metric {
  readonly #values = new Map<string, { labels: Labels; value: number }>();
  readonly #maxSeries: number;
  constructor(
    readonly name: string,
    readonly help: string,
    options: SeriesOptions = {},
  ) {
    this.#maxSeries = options.maxSeries ?? DEFAULT_MAX_SERIES;
  }
  inc(labels: Labels = {}, by = 1): void {
    this.#entry(labels).value += by;
  }
  /** The series of `labels`, to count into without looking it up again (a hot path keeps it). */
  series(labels: Labels): { inc(by?: number): void } {
    const entry = this.#entry(labels);
    return {
      inc(by = 1) {
        entry.value += by;
      },
    };
  }
  #entry(labels: Labels): { labels: Labels; value: number } {
    const s = seriesKey(labels, (k) => this.#values.has(k), this.#values.size, this.#maxSeries);
    let entry = this.#values.get(s.k);
    if (!entry) this.#values.set(s.k, (entry = { labels: s.labels, value: 0 }));
    return entry;
  }
  render(base: Labels = {}): string[] {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} counter`,
      ...[...this.#values.values()].map((e) => `${this.name}${fmt({ ...e.labels, ...base })} ${e.value}`),
    ];
  }
}

export class Histogram implements Metric {
  readonly #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  readonly #maxSeries: number;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
    options: SeriesOptions = {},
  ) {
    this.#maxSeries = options.maxSeries ?? DEFAULT_MAX_SERIES;
  }
  observe(labels: Labels, value: number): void {
    this.#record(this.#entry(labels), value);
  }
  /** The series of `labels`, to observe into without looking it up again (a hot path keeps it). */
  series(labels: Labels): { observe(value: number): void } {
    const entry = this.#entry(labels);
    return { observe: (value) => this.#record(entry, value) };
  }
  #entry(labels: Labels): { labels: Labels; counts: number[]; sum: number; count: number } {
    const at = seriesKey(labels, (k) => this.#series.has(k), this.#series.size, this.#maxSeries);
    let s = this.#series.get(at.k);
    if (!s) this.#series.set(at.k, (s = { labels: at.labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    return s;
  }
  #record(s: { counts: number[]; sum: number; count: number }, value: number): void {
    const buckets = this.buckets;
    for (let i = 0; i < buckets.length; i++) if (value <= (buckets[i] as number)) s.counts[i] = (s.counts[i] ?? 0) + 1;
    s.sum += value;
    s.count++;
  }
  render(base: Labels = {}): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.#series.values()) {
      const labels = { ...s.labels, ...base };
      this.buckets.forEach((b, i) => lines.push(`${this.name}_bucket${fmt({ ...labels, le: String(b) })} ${s.counts[i] ?? 0}`));
      lines.push(`${this.name}_bucket${fmt({ ...labels, le: '+Inf' })} ${s.count}`);
      lines.push(`${this.name}_sum${fmt(labels)} ${s.sum}`, `${this.name}_count${fmt(labels)} ${s.count}`);
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
  async render(base: Labels = {}): Promise<string[]> {
    const values = await this.collect();
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} gauge`,
      ...values.map((v) => `${this.name}${fmt({ ...v.labels, ...base })} ${v.value}`),
    ];
  }
}

export interface RegistryOptions {
  /** Labels on every sample (BioGate: `{ node }`). */
  readonly defaultLabels?: Labels;
  /** Add the process and Node runtime metrics (default true). */
  readonly runtime?: boolean;
}

/**
 * One set of runtime collectors per process: they describe the process, not an app, and each one
 * set up installs an event-loop-delay monitor and a GC observer that are never removed (several
 * apps in one test process share it).
 */
let runtimeRegistry: PromRegistry | undefined;
function runtimeMetrics(): PromRegistry {
  if (!runtimeRegistry) {
    runtimeRegistry = new PromRegistry();
    collectDefaultMetrics({ register: runtimeRegistry, eventLoopMonitoringPrecision: 20 });
  }
  return runtimeRegistry;
}

/** A sample value as the text format writes it (+Inf, -Inf, NaN). */
const num = (v: number) => (Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : String(v));
const help = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

/** prom-client's samples in the text format, with `base` labels (and `le` kept last). */
async function renderRuntime(registry: PromRegistry, base: Labels): Promise<string[]> {
  const lines: string[] = [];
  for (const m of await registry.getMetricsAsJSON()) {
    // prom-client's nodejs_active_{handles,requests,resources}_total are gauges named like counters,
    // which `promtool check metrics` rejects; they are the sums of the per-type gauges kept beside
    // them (sum without (type) (nodejs_active_handles)).
    if (String(m.type) === 'gauge' && m.name.endsWith('_total')) continue;
    lines.push(`# HELP ${m.name} ${help(m.help)}`, `# TYPE ${m.name} ${String(m.type)}`);
    for (const v of m.values as { labels: Record<string, string | number>; value: number; metricName?: string }[]) {
      const { le, ...rest } = Object.fromEntries(Object.entries(v.labels).map(([k, x]) => [k, String(x)]));
      lines.push(`${v.metricName ?? m.name}${fmt({ ...rest, ...base, ...(le !== undefined ? { le } : {}) })} ${num(v.value)}`);
    }
  }
  return lines;
}

export class MetricsRegistry {
  readonly #metrics: Metric[] = [];
  readonly #base: Labels;
  readonly #runtime: PromRegistry | undefined;
  constructor(options: RegistryOptions = {}) {
    this.#base = { ...options.defaultLabels };
    this.#runtime = options.runtime === false ? undefined : runtimeMetrics();
  }
  register<M extends Metric>(metric: M): M {
    this.#metrics.push(metric);
    return metric;
  }
  async render(): Promise<string> {
    const parts = await Promise.all(this.#metrics.map((m) => m.render(this.#base)));
    if (this.#runtime) parts.push(await renderRuntime(this.#runtime, this.#base));
    return parts.flat().join('\n') + '\n';
  }
}
