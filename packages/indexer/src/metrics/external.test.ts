/** A counter read from another component at scrape time shows that component's counts. */
import client from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerCounterSource } from './external.js';

describe('registerCounterSource', () => {
  it('shows the counts read at each scrape, by label', async () => {
    const registry = new client.Registry();
    let replay = 0;
    registerCounterSource(registry, {
      name: 'scanner_shared_records_refused_total',
      help: 'test',
      labelNames: ['reason'],
      read: () => [
        { labels: { reason: 'mac' }, value: 2 },
        { labels: { reason: 'replay' }, value: replay },
      ],
    });
    expect(await registry.metrics()).toContain('scanner_shared_records_refused_total{reason="mac"} 2');
    replay = 3;
    const text = await registry.metrics();
    expect(text).toContain('scanner_shared_records_refused_total{reason="replay"} 3');
    expect(text).toContain('scanner_shared_records_refused_total{reason="mac"} 2');
  });
});
