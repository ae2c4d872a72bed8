/**
 * Declaring instruments on a registry in one call each: a counter or histogram by name, help,
 * labels (and buckets); a per-chain gauge by name, help and what it reads of each chain at every
 * scrape.
 */
import client, { type Counter, type Gauge } from 'prom-client';

/** What runs at every scrape, given the instrument (prom-client's `collect`, with it as `this`). */
type Scrape<I> = (instrument: I) => void;

const onScrape = <I>(scrape: Scrape<I> | undefined) =>
  scrape && {
    collect(this: I) {
      scrape(this);
    },
  };

/**
 * Counters, gauges and histograms registered on `registry`; a counter's or gauge's `scrape` sets
 * its values at every scrape.
 */
export function instruments(registry: client.Registry) {
  const registers = [registry];
  return {
    counter<L extends string>(name: string, help: string, labels: readonly L[], scrape?: Scrape<Counter<L>>) {
      return new client.Counter({ name, help, labelNames: labels, registers, ...onScrape(scrape) });
    },
    gauge<L extends string>(name: string, help: string, labels: readonly L[], scrape?: Scrape<Gauge<L>>) {
      return new client.Gauge({ name, help, labelNames: labels, registers, ...onScrape(scrape) });
    },
    histogram<L extends string>(name: string, help: string, labels: readonly L[], buckets: number[]) {
      return new client.Histogram({ name, help, labelNames: labels, buckets, registers });
    },
  };
}

/**
 * A gauge of one number per chain (label `chain`) on `registry`: `read` of each of `chains()` at
 * every scrape.
 */
export function chainGauge<C extends { name: string }>(
  registry: client.Registry,
  chains: () => readonly C[],
  name: string,
  help: string,
  read: (c: C) => number,
): void {
  instruments(registry).gauge(name, help, ['chain'], (m) => {
    for (const c of chains()) m.set({ chain: c.name }, read(c));
  });
}
