import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Results } from './report.js';
import { changes, html, previousCommitted } from './report-html.js';

const DIR = new URL('./results/', import.meta.url).pathname;
const load = (f: string) => JSON.parse(readFileSync(`${DIR}${f}`, 'utf8')) as Results;

describe('bench HTML report', () => {
  const cur = load('2026-11-22-9de9843.json');
  const prev = load('2026-11-22-be8b04b.json');
  const page = html(cur, prev);

  it('includes every figure of the report, with its value, in the table', () => {
    expect(cur.figures.length).toBeGreaterThan(100);
    for (const f of cur.figures) {
      const row = new RegExp(
        `<tr data-figure="${f.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/"/g, '&quot;')}"[^>]*>(.*?)</tr>`,
      ).exec(page);
      expect(row, f.id).not.toBeNull();
      if (f.status !== 'not built' && f.value !== null) expect(row![1]).toContain(` ${f.unit}`);
    }
  });

  it('charts latency percentiles and throughput of every route against the uWS ceiling, ingest against raw fetch, RSS', () => {
    for (const f of cur.figures) {
      const m = /^read\.(.+)\.c1\.p50$/.exec(f.id);
      if (!m) continue;
      for (const p of ['p50', 'p99', 'p999', 'rps']) expect(page).toContain(`read.${m[1]}.c1.${p}`);
    }
    expect(page).toContain('uWS ceiling (mean at c=1)');
    expect(page).toContain('uWS c=32');
    for (const id of ['ingest.anvil.blocks', 'ingest.anvil.events', 'ingest.replay.events'])
      expect(page).toMatch(new RegExp(`data-figures="[^"]*${id.replace(/\./g, '\\.')}`));
    for (const id of ['ingest.rss.start', 'ingest.rss.peak', 'ingest.rss.end'])
      expect(page).toContain(`data-figures="${id}"`);
  });

  it('compares every comparable figure with the previous report', () => {
    const c = changes(prev, cur);
    expect(c.length).toBeGreaterThan(50);
    expect(page).toContain(`Against <b>${prev.date} @ ${prev.commit}</b>`);
    for (const x of c)
      expect(page).toContain(`class="lb" text-anchor="end" data-figures="${x.f.id.replace(/"/g, '&quot;')}"`);
  });

  it('the committed sample report is what html() renders now (regenerate: node dist/bench/html.js <json>)', () => {
    expect(previousCommitted(DIR, cur)?.results.commit).toBe(prev.commit);
    expect(readFileSync(`${DIR}2026-11-22-9de9843.html`, 'utf8')).toBe(page);
  });

  it('is self-contained: no script, no external resource', () => {
    expect(page).not.toMatch(/<script|<link|src=|href=|@import|url\(/i);
  });

  it('draws an RSS time series when the report has one', () => {
    const withSeries: Results = {
      ...cur,
      series: {
        rss: [
          {
            label: 'clean backfill',
            points: [
              [0, 100],
              [1, 300],
              [2, 250],
            ],
          },
        ],
      },
    };
    const out = html(withSeries, null);
    expect(out).toContain('Indexer RSS during the clean backfill</text>');
    expect(out).toMatch(/<path d="M[\d.]+,[\d.]+L[\d.]+,[\d.]+L/);
    expect(out).toContain('No previous committed report');
  });

  it('the previous committed report is the last one of the same mode started before', () => {
    expect(previousCommitted(DIR, cur)?.file).toBe('2026-11-22-be8b04b.json');
    expect(previousCommitted(DIR, load('2026-11-22-d444abd-quick.json'))?.file).toBe(
      '2026-11-22-16e0075-quick.json',
    );
    expect(previousCommitted(DIR, load('2026-11-22-16e0075-quick.json'))).toBeNull();
  });
});
