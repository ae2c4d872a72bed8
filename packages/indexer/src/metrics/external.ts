/**
 * Counters kept by another component of the process (the in-process scanner's shared state),
 * read at each scrape: the component counts, the metrics listener shows the counts.
 */
import client from 'prom-client';

/** A counter read from elsewhere at scrape time. */
export interface CounterSource {
  /** Metric name (`<component>_<what>_total`). */
  name: string;
  help: string;
  labelNames: readonly string[];
  /** The counts now, one per label set (counts since the component started); none while absent. */
  read(): Array<{ labels: Record<string, string>; value: number }>;
}

/** Registers `source` on `registry` (the loopback metrics listener's, metrics/index.ts). */
export function registerCounterSource(registry: client.Registry, source: CounterSource): void {
  const counter: client.Counter<string> = new client.Counter({
    name: source.name,
    help: source.help,
    labelNames: [...source.labelNames],
    registers: [registry],
    collect() {
      counter.reset();
      for (const { labels, value } of source.read()) if (value > 0) counter.inc(labels, value);
    },
  });
}
