// Runtime-neutral (Node, Workers, Deno, Bun): prom-client needs Node's own modules, and the text
// format is a few lines, so the relay keeps its own small registry.

/** A series' labels: names fixed by its metric, values from the relay's own code (a bounded set). */
export type Labels = Readonly<Record<string, string>>;

/** What `GET /metrics` answers with: Prometheus' text exposition format, version 0.0.4. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Metric and label names as Prometheus allows them. */
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface Metric {
  readonly name: string;
  /** Its `# HELP`, `# TYPE` and sample lines. */
  lines(): string[];
}

/** Counts that only go up, one per set of label values. */
export class Counter implements Metric {
  readonly name: string;
  readonly #help: string;
  readonly #labelNames: readonly string[];
  readonly #values = new Map<string, { labels: Labels; value: number }>();

  constructor(name: string, help: string, labelNames: readonly string[] = []) {
    this.name = checkedName(name, labelNames);
    this.#help = help;
    this.#labelNames = labelNames;
  }

  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) throw new RangeError(`counter ${this.name} only goes up (got ${by})`);
    const key = seriesKey(this.name, this.#labelNames, labels);
    const series = this.#values.get(key);
    if (series) series.value += by;
    else this.#values.set(key, { labels, value: by });
  }

  /** The current count of one series; 0 when never counted. */
  value(labels: Labels = {}): number {
    return this.#values.get(seriesKey(this.name, this.#labelNames, labels))?.value ?? 0;
  }

  lines(): string[] {
    const samples = [...this.#values.values()].map(({ labels, value }) => sample(this.name, labels, value));
    return [...header(this.name, this.#help, 'counter'), ...samples];
  }
}

/** A value read when scraped (how many websites are registered, served…): nothing to keep up to date. */
export class Gauge implements Metric {
  readonly name: string;
  readonly #help: string;
  readonly #read: () => number;

  constructor(name: string, help: string, read: () => number) {
    this.name = checkedName(name, []);
    this.#help = help;
    this.#read = read;
  }

  lines(): string[] {
    return [...header(this.name, this.#help, 'gauge'), sample(this.name, {}, this.#read())];
  }
}

/** Observations counted in cumulative buckets (`le`), with their sum and count, one set per label values. */
export class Histogram implements Metric {
  readonly name: string;
  readonly #help: string;
  readonly #labelNames: readonly string[];
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();

  constructor(name: string, help: string, bounds: readonly number[], labelNames: readonly string[] = []) {
    this.name = checkedName(name, [...labelNames, 'le']);
    if (bounds.length === 0 || bounds.some((bound, index) => !Number.isFinite(bound) || (index > 0 && bound <= bounds[index - 1]!))) {
      throw new RangeError(`histogram ${name} needs finite, increasing bucket bounds`);
    }
    this.#help = help;
    this.#labelNames = labelNames;
    this.#bounds = bounds;
  }

  observe(value: number, labels: Labels = {}): void {
    if (Number.isNaN(value)) return;
    const key = seriesKey(this.name, this.#labelNames, labels);
    let series = this.#series.get(key);
    if (!series) {
      series = { labels, counts: this.#bounds.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    // Counted in its own bucket only; exposition makes them cumulative.
    const bucket = this.#bounds.findIndex((bound) => value <= bound);
    if (bucket >= 0) series.counts[bucket]! += 1;
    series.sum += value;
    series.count += 1;
  }

  /** How many observations one series holds. */
  count(labels: Labels = {}): number {
    return this.#series.get(seriesKey(this.name, this.#labelNames, labels))?.count ?? 0;
  }

  lines(): string[] {
    const lines = header(this.name, this.#help, 'histogram');
    for (const { labels, counts, sum, count } of this.#series.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, index) => {
        cumulative += counts[index]!;
        lines.push(sample(`${this.name}_bucket`, { ...labels, le: formatValue(bound) }, cumulative));
      });
      lines.push(sample(`${this.name}_bucket`, { ...labels, le: '+Inf' }, count));
      lines.push(sample(`${this.name}_sum`, labels, sum));
      lines.push(sample(`${this.name}_count`, labels, count));
    }
    return lines;
  }
}

/** The metrics one relay exposes, in the order they were added. */
export class MetricsRegistry {
  readonly #metrics = new Map<string, Metric>();

  add<M extends Metric>(metric: M): M {
    if (this.#metrics.has(metric.name)) throw new Error(`metric ${metric.name} is already registered`);
    this.#metrics.set(metric.name, metric);
    return metric;
  }

  /** Every metric in the text exposition format, ending with a line feed. */
  expose(): string {
    const lines = [...this.#metrics.values()].flatMap((metric) => metric.lines());
    return `${lines.join('\n')}\n`;
  }
}

function checkedName(name: string, labelNames: readonly string[]): string {
  if (!METRIC_NAME.test(name)) throw new Error(`"${name}" is not a Prometheus metric name`);
  for (const label of labelNames) {
    if (!LABEL_NAME.test(label) || label.startsWith('__')) throw new Error(`"${label}" is not a Prometheus label name`);
  }
  return name;
}

/** One key per set of label values; a label the metric does not have, or one missing, is a bug of the caller. */
function seriesKey(name: string, labelNames: readonly string[], labels: Labels): string {
  const given = Object.keys(labels);
  if (given.length !== labelNames.length || given.some((label) => !labelNames.includes(label))) {
    throw new Error(`metric ${name} takes the labels ${labelNames.join(', ') || 'none'} (got ${given.join(', ') || 'none'})`);
  }
  return labelNames.map((label) => labels[label]).join('\u0000');
}

function header(name: string, help: string, type: 'counter' | 'gauge' | 'histogram'): string[] {
  return [`# HELP ${name} ${help.replaceAll('\\', '\\\\').replaceAll('\n', '\\n')}`, `# TYPE ${name} ${type}`];
}

function sample(name: string, labels: Labels, value: number): string {
  const pairs = Object.entries(labels).map(([label, text]) => `${label}="${escapeLabelValue(text)}"`);
  return `${name}${pairs.length === 0 ? '' : `{${pairs.join(',')}}`} ${formatValue(value)}`;
}

function escapeLabelValue(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

/** Go's float syntax as Prometheus reads it: `+Inf`, `-Inf`, `NaN`, else the number. */
function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}
