/**
 * The alert rules and the dashboard against Debian's promtool and the service's own registry:
 * `promtool check rules` and `promtool test rules` (recorded series in alerts.test.yml) must pass,
 * every alert has a recorded-series test, and every metric a rule or a panel queries is one the
 * service registers. Without promtool the promtool checks are skipped with a warning on a
 * developer machine and FAIL in CI (CI=true): `.ci/run` installs Debian's `prometheus` package.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createChainMetrics, createMetrics } from '@chain-indexer/indexer/chain';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';

const DIR = fileURLToPath(new URL('.', import.meta.url));
const RULES = `${DIR}alerts.yml`;
const TESTS = `${DIR}alerts.test.yml`;
const DASHBOARD = `${DIR}grafana-dashboard.json`;

const promtool = (() => {
  for (const p of ['promtool', '/usr/bin/promtool']) {
    const r = spawnSync(p, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return p;
  }
  return null;
})();
const inCi = process.env.CI === 'true';
if (!promtool && !inCi)
  console.warn(
    '\n*** ops/prometheus/rules.test.ts: promtool not found — the promtool checks are SKIPPED. Install it: apt-get install prometheus ***\n',
  );

/** Metric names a PromQL text queries (`indexer_…`, histogram suffixes stripped). */
function metricsIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\bindexer_[a-z0-9_]+/g)) out.add(m[0].replace(/_(bucket|count|sum)$/, ''));
  return out;
}

describe('ops/prometheus alert rules', () => {
  it.runIf(promtool || inCi)('promtool is installed (CI installs Debian prometheus)', () => {
    expect(promtool, 'promtool missing: apt-get install prometheus (.ci/run does)').not.toBeNull();
  });

  it.runIf(promtool)('promtool check rules accepts alerts.yml', () => {
    const r = spawnSync(promtool!, ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const alerts = [...readFileSync(RULES, 'utf8').matchAll(/^\s+- alert: (\w+)/gm)].length;
    expect(r.stdout).toContain(`SUCCESS: ${alerts} rules found`);
  });

  it.runIf(promtool)(
    'promtool test rules: every alert fires on its recorded series and not on its near miss',
    () => {
      const r = spawnSync(promtool!, ['test', 'rules', TESTS], { encoding: 'utf8', cwd: DIR });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('SUCCESS');
    },
  );

  it('every alert of alerts.yml has a recorded-series test that expects it to fire', () => {
    const alerts = [...readFileSync(RULES, 'utf8').matchAll(/^\s+- alert: (\w+)/gm)].map((m) => m[1]);
    const tests = readFileSync(TESTS, 'utf8');
    expect(alerts.length).toBeGreaterThanOrEqual(13);
    for (const a of alerts) {
      const firing = new RegExp(`alertname: ${a}\\n\\s+exp_alerts:\\n\\s+- exp_labels`);
      expect(tests, `${a} has no firing test`).toMatch(firing);
    }
  });

  it('every metric the rules and the dashboard query is registered by the service', async () => {
    // The scrape is the serving thread's registry merged with each engine thread's chain metrics.
    const m = createMetrics({ chains: () => [], ops: () => [] });
    const engine = new Registry();
    createChainMetrics(engine);
    const registered = new Set(
      [...(await m.registry.getMetricsAsJSON()), ...(await engine.getMetricsAsJSON())].map((x) => x.name),
    );
    m.close();
    const used = new Set([
      ...metricsIn(readFileSync(RULES, 'utf8')),
      ...metricsIn(readFileSync(DASHBOARD, 'utf8')),
    ]);
    expect(used.size).toBeGreaterThan(20);
    for (const name of used) expect(registered, `${name} is queried but not registered`).toContain(name);
  });

  it('the dashboard is Grafana JSON with a panel per alert family, every target on the datasource variable', () => {
    const d = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      uid: string;
      panels: Array<{
        type: string;
        title: string;
        targets?: Array<{ expr: string; datasource: { uid: string } }>;
      }>;
    };
    expect(d.uid).toBe('chain-indexer');
    const exprs = d.panels.flatMap((p) => p.targets ?? []);
    for (const t of exprs) expect(t.datasource.uid).toBe('$'.concat('{datasource}'));
    const text = exprs.map((t) => t.expr).join('\n');
    for (const metric of [
      'indexer_ingest_state',
      'indexer_ingest_open_gaps',
      'indexer_ingest_last_reorg_depth_blocks',
      'indexer_projection_status',
      'indexer_replication_lag_seconds',
      'indexer_streams_lag_disconnects',
      'indexer_tokens_standard_reconciliation',
      'indexer_storage_filesystem_avail_bytes',
      'indexer_ingest_segments_total',
      'indexer_ingest_mode_blocks_total',
    ])
      expect(text).toContain(metric);
  });
});
