/**
 * The alert rules of ops/prometheus/alerts.yml in a real Prometheus (Debian's `prometheus`, which
 * `.ci/run` installs): it scrapes a running indexer that follows a real anvil, loads every rule,
 * stays quiet while the follower is healthy, and fires `IndexerNodeUnreachable` for the chain once
 * the node is stopped (the follower cut off from its node). Prometheus listens on loopback only,
 * scrapes and evaluates every second, and keeps its TSDB in a temp dir removed at the end.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, freePort, startAnvil } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';

const RULES = fileURLToPath(new URL('../../ops/prometheus/alerts.yml', import.meta.url));
const CHAIN = 'testnet';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const prometheusBin = ['prometheus', '/usr/bin/prometheus'].find(
  (p) => spawnSync(p, ['--version'], { encoding: 'utf8' }).status === 0,
);

let anvil: Anvil;
let idx: IndexerProcess;
let prom: ChildProcess | null = null;
let promLog = '';
let promUrl = '';
let dir = '';

interface PromAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

async function api<T>(path: string): Promise<T> {
  const r = await fetch(`${promUrl}${path}`, { signal: AbortSignal.timeout(5000) });
  const body = (await r.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`${path}: ${body.error}`);
  return body.data;
}
const alerts = async () => (await api<{ alerts: PromAlert[] }>('/api/v1/alerts')).alerts;

async function until<T>(
  what: string,
  timeoutMs: number,
  f: () => Promise<T | null | undefined | false>,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < end) {
    try {
      const v = await f();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await sleep(1000);
  }
  throw new Error(
    `${what}: not within ${timeoutMs} ms (${String(last ?? '')})\nprometheus log:\n${promLog.slice(-3000)}`,
  );
}

beforeAll(async () => {
  if (!prometheusBin)
    throw new Error('prometheus is not installed: apt-get install prometheus (.ci/run installs it)');
  anvil = await startAnvil({ blockTime: 1 });
  const metricsPort = await freePort();
  idx = await startIndexer({
    rpcUrl: anvil.rpcUrl,
    env: { METRICS_PORT: String(metricsPort), TRACES: 'off' },
  });
  await idx.waitForHead(2, 60_000);
  dir = mkdtempSync(join(tmpdir(), 'prometheus-e2e-'));
  const promPort = await freePort();
  promUrl = `http://127.0.0.1:${promPort}`;
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'rule_files:',
      `  - ${JSON.stringify(RULES)}`,
      'scrape_configs:',
      '  - job_name: chain-indexer',
      '    static_configs:',
      `      - targets: ["127.0.0.1:${metricsPort}"]`,
      '',
    ].join('\n'),
  );
  prom = spawn(
    prometheusBin,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const onData = (d: Buffer) => {
    promLog = (promLog + d.toString()).slice(-200_000);
  };
  prom.stdout!.on('data', onData);
  prom.stderr!.on('data', onData);
  await until('prometheus ready', 30_000, async () => (await fetch(`${promUrl}/-/ready`)).ok);
}, 180_000);

afterAll(async () => {
  if (prom && prom.exitCode === null) {
    const exited = new Promise((r) => prom!.once('exit', r));
    prom.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    if (prom.exitCode === null) prom.kill('SIGKILL');
  }
  await idx?.stop();
  await anvil?.stop().catch(() => undefined);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('ops/prometheus rules in a real Prometheus scraping the indexer', () => {
  it('loads every rule of alerts.yml and scrapes the follower state and head', async () => {
    const groups = await until('rules evaluated', 30_000, async () => {
      const g = (
        await api<{ groups: Array<{ rules: Array<{ name: string; health: string }> }> }>('/api/v1/rules')
      ).groups;
      const rules = g.flatMap((x) => x.rules);
      return rules.length > 0 && rules.every((r) => r.health === 'ok') ? rules : null;
    });
    expect(groups.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'IndexerFollowerHalted',
        'IndexerNodeUnreachable',
        'IndexerFollowerLagging',
        'IndexerOpenGaps',
        'IndexerDeepReorg',
        'IndexerProjectionStale',
        'IndexerReplicaLagging',
        'IndexerStreamLagDisconnects',
        'IndexerStandardTokenDiverging',
        'IndexerDiskFilling',
      ]),
    );
    const following = await until('follower state scraped', 30_000, async () => {
      const r = await api<{ result: Array<{ metric: Record<string, string> }> }>(
        `/api/v1/query?query=${encodeURIComponent('indexer_ingest_state == 1')}`,
      );
      return r.result.find((x) => x.metric.chain === CHAIN && x.metric.state === 'following');
    });
    expect(following.metric.job).toBe('chain-indexer');
    const avail = await api<{ result: Array<{ value: [number, string] }> }>(
      `/api/v1/query?query=${encodeURIComponent(`indexer_storage_filesystem_avail_bytes{chain="${CHAIN}"}`)}`,
    );
    expect(Number(avail.result[0].value[1])).toBeGreaterThan(0);
  });

  it('a healthy follower does not page: no node-unreachable or halted alert over a minute of history', async () => {
    // The node-unreachable rule looks back one minute: wait until that window is all history.
    await sleep(65_000);
    const ok = await api<{ result: Array<{ value: [number, string] }> }>(
      `/api/v1/query?query=${encodeURIComponent(`sum(increase(indexer_rpc_request_duration_seconds_count{chain="${CHAIN}",outcome="ok"}[1m]))`)}`,
    );
    expect(Number(ok.result[0].value[1])).toBeGreaterThan(10);
    const paging = (await alerts()).filter((a) =>
      ['IndexerNodeUnreachable', 'IndexerFollowerHalted'].includes(a.labels.alertname),
    );
    expect(paging).toEqual([]);
  }, 120_000);

  it('fires IndexerNodeUnreachable for the chain once its node is stopped', async () => {
    const stoppedAt = Date.now();
    await anvil.stop();
    const firing = await until('IndexerNodeUnreachable firing', 180_000, async () =>
      (await alerts()).find((a) => a.labels.alertname === 'IndexerNodeUnreachable' && a.state === 'firing'),
    );
    expect(firing.labels).toMatchObject({ chain: CHAIN, severity: 'critical' });
    // Not before the rule's own window: one minute without a successful call, then 30 s pending.
    expect(Date.now() - stoppedAt).toBeGreaterThan(60_000);
    // The index still serves what it has while cut off (a contract-validated read).
    const block = await idx.get('/blocks/1');
    expect(block.status).toBe(200);
  }, 240_000);
});
