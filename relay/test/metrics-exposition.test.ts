import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, MetricsRegistry } from '../src/metrics/metrics-registry.js';

// A Prometheus text-format parser from npm is the oracle: what it reads back is what Prometheus would scrape.
const family = (text: string, name: string) => parsePrometheusTextFormat(text).find((parsed) => parsed.name === name);

describe("the relay's metrics registry, read back by a Prometheus text-format parser", () => {
  it('exposes counters per label values, with help and type', () => {
    const registry = new MetricsRegistry();
    const counter = registry.add(new Counter('relay_requests_total', 'Requests, by outcome.', ['outcome']));
    counter.inc({ outcome: 'report' });
    counter.inc({ outcome: 'report' }, 2);
    counter.inc({ outcome: 'server' });
    const parsed = family(registry.expose(), 'relay_requests_total');
    expect(parsed).toMatchObject({ type: 'COUNTER', help: 'Requests, by outcome.' });
    expect(parsed?.metrics).toEqual([
      { value: '3', labels: { outcome: 'report' } },
      { value: '1', labels: { outcome: 'server' } },
    ]);
  });

  it('escapes backslashes, quotes and line feeds in label values and help, so they read back unchanged', () => {
    const registry = new MetricsRegistry();
    const awkward = 'a "quoted" \\ path\nand a second line';
    registry.add(new Counter('awkward_total', `Help with ${awkward}`, ['value'])).inc({ value: awkward });
    const parsed = family(registry.expose(), 'awkward_total');
    expect(parsed?.help).toBe(`Help with ${awkward}`);
    expect(parsed?.metrics[0]?.labels).toEqual({ value: awkward });
  });

  it('reads a gauge when scraped', () => {
    let websites = 3;
    const registry = new MetricsRegistry();
    registry.add(new Gauge('websites', 'Websites.', () => websites));
    expect(family(registry.expose(), 'websites')?.metrics).toEqual([{ value: '3' }]);
    websites = 5;
    expect(family(registry.expose(), 'websites')?.metrics).toEqual([{ value: '5' }]);
  });

  it('exposes a histogram with cumulative buckets, +Inf, sum and count', () => {
    const registry = new MetricsRegistry();
    const histogram = registry.add(new Histogram('round_trip_seconds', 'Round trips.', [0.01, 0.1, 1]));
    for (const seconds of [0.005, 0.05, 0.05, 0.5, 7]) histogram.observe(seconds);
    const parsed = family(registry.expose(), 'round_trip_seconds');
    expect(parsed?.type).toBe('HISTOGRAM');
    expect(parsed?.metrics[0]).toEqual({ buckets: { '0.01': '1', '0.1': '3', '1': '4', '+Inf': '5' }, count: '5', sum: '7.605' });
  });

  it('exposes one labelled histogram series per label values, each with its own buckets', () => {
    const registry = new MetricsRegistry();
    const histogram = registry.add(new Histogram('store_seconds', 'Store round trips.', [0.001, 0.01], ['operation']));
    histogram.observe(0.0005, { operation: 'read' });
    histogram.observe(0.005, { operation: 'read' });
    const text = registry.expose();
    // The parser folds a labelled histogram's series together (and keeps no sum or count for them): the lines say the rest.
    expect(family(text, 'store_seconds')?.metrics[0]?.buckets).toEqual({ '0.001': '1', '0.01': '2', '+Inf': '2' });
    expect(text).toContain('store_seconds_count{operation="read"} 2\n');
    expect(text).toContain('store_seconds_sum{operation="read"} 0.0055\n');
    expect(histogram.count({ operation: 'read' })).toBe(2);
  });

  it('refuses what Prometheus could not read: bad names, missing or extra labels, a counter going down, a metric twice', () => {
    const registry = new MetricsRegistry();
    expect(() => new Counter('bad-name', 'x')).toThrow(/metric name/);
    expect(() => new Counter('ok_total', 'x', ['bad-label'])).toThrow(/label name/);
    const counter = registry.add(new Counter('ok_total', 'x', ['outcome']));
    expect(() => counter.inc({})).toThrow(/takes the labels outcome/);
    expect(() => counter.inc({ outcome: 'a', other: 'b' })).toThrow(/takes the labels outcome/);
    expect(() => counter.inc({ outcome: 'a' }, -1)).toThrow(/only goes up/);
    expect(() => registry.add(new Counter('ok_total', 'again'))).toThrow(/already registered/);
    expect(() => new Histogram('h', 'x', [1, 1])).toThrow(/increasing/);
  });
});
