/**
 * Market hot-read bench, the report: bench/results/market-reads-<date>-<commit>[-quick][-profile]
 * [-cache-off].{md,json} — the subjects, every route against its budgets, big vs small, the profile.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { round } from '../lib.js';
import type { ReportHead } from '../report.js';
import type { BigSubjects } from './big.js';
import { CACHE_OFF } from './context.js';
import type { Ceiling, Measured } from './measure.js';
import type { SmallSubjects } from './subjects.js';

export const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
export const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '—');
export const yes = (b: boolean) => (b ? 'met' : '**not met**');

export interface Results extends ReportHead {
  machine: { cpus: number; cpuModel: string; node: string; loadavgStart: number[]; loadavgEnd: number[] };
  config: { indexerMain: string; preciseSamples: number; autocannonDurationS: number; trafficMs: number };
  chain: { head: number; trafficBlocks: number };
  small: SmallSubjects | null;
  big: (BigSubjects & { poolCount: number; activityRows: number; poolsConsidered: unknown }) | null;
  ceiling: Ceiling | null;
  ceilingEnd: Ceiling | null;
  routes: Measured[];
  comparisons: Array<{
    route: string;
    p50Ratio: number;
    p99Ratio: number;
    throughputRatio: number;
    met: boolean;
  }>;
  profile: {
    path: string;
    reqPerSec: number;
    scope: string;
    self: string;
    total: string;
    file: string;
  } | null;
  notes: string[];
}

export function compareBig(routes: Measured[]): Results['comparisons'] {
  const out: Results['comparisons'] = [];
  for (const b of routes.filter((r) => r.subject === 'big')) {
    const s = routes.find((r) => r.subject === 'small' && r.route === b.route);
    if (!s) continue;
    const p50Ratio = b.c1.p50ms / s.c1.p50ms;
    const p99Ratio = b.c1.p99ms / s.c1.p99ms;
    const throughputRatio = s.c32.reqPerSec / b.c32.reqPerSec;
    out.push({
      route: b.route,
      p50Ratio: round(p50Ratio, 2),
      p99Ratio: round(p99Ratio, 2),
      throughputRatio: round(throughputRatio, 2),
      met: p50Ratio <= 2 && p99Ratio <= 2 && throughputRatio <= 2,
    });
  }
  return out;
}

export function markdown(r: Results): string {
  const L: string[] = [];
  L.push(`# Market hot reads — ${r.date} @ ${r.commit} (${r.mode})`, '');
  L.push(
    `Issue K budgets, one run: every route's c=32 throughput against the bare uWS hello-world c=32 ceiling measured in this run; c=1 p50/p99 from a closed-loop keep-alive client (${r.config.preciseSamples} requests per route, after 200 warm-up requests); c=32 from autocannon (${r.config.autocannonDurationS} s per route). Small subjects come from ${r.config.trafficMs / 1000} s of devnet traffic; big subjects are built by the bench.`,
    '',
  );
  L.push(
    `Machine: ${r.machine.cpus} × ${r.machine.cpuModel}, node ${r.machine.node}; **load average ${r.machine.loadavgStart.map((x) => x.toFixed(2)).join(' / ')} at start, ${r.machine.loadavgEnd.map((x) => x.toFixed(2)).join(' / ')} at end** (1/5/15 min; other jobs share the machine, every figure carries that noise). Run took ${Math.round(r.seconds)} s.`,
    '',
  );
  if (r.ceiling) {
    const c = r.ceiling;
    L.push(
      `**uWS ceiling** (bare hello-world, native=${c.native}): c=32 ${Math.round(c.c32.reqPerSec).toLocaleString('en-US')} req/s; c=1 p50 ${ms(c.c1.p50ms)} ms, p99 ${ms(c.c1.p99ms)} ms (load ${c.loadavg1}).` +
        (r.ceilingEnd
          ? ` Re-measured at the end: c=32 ${Math.round(r.ceilingEnd.c32.reqPerSec).toLocaleString('en-US')} req/s, c=1 p99 ${ms(r.ceilingEnd.c1.p99ms)} ms (load ${r.ceilingEnd.loadavg1}); ratios use the higher of the two (the stricter).`
          : ''),
      '',
    );
  }
  if (r.small && r.big) {
    L.push('## Subjects', '');
    L.push(
      `- small token ${r.small.tokenSymbol} \`${r.small.token}\`; V2 pool \`${r.small.v2.address}\` (${r.small.v2.swaps} swaps), V3 pool \`${r.small.v3.address}\` (${r.small.v3.swaps} swaps), V4 pool \`${r.small.v4.poolId}\` (${r.small.v4.swaps} swaps); small wallet \`${r.small.wallet}\` (${r.small.walletTrades} swaps in the 3 busiest pools)`,
      `- big token ${r.big.tokenSymbol} \`${r.big.token}\`: ${r.big.poolCount} V4 ${r.big.tokenSymbol}/USDC pools built (overview poolsConsidered: ${JSON.stringify(r.big.poolsConsidered)}), ${r.big.pools.length} with liquidity, ${r.big.swaps} swaps; big V4 pool \`${r.big.pools[0].poolId}\` (fee ${r.big.pools[0].fee}, one of its ${r.big.poolCount} siblings)`,
      `- big wallet \`${r.big.wallet}\`: ${r.big.transfers} USDC transfers + ${r.big.swaps} swaps sent; **${r.big.activityRows} activity rows** served (walked with limit=1000)`,
      `- chain head ${r.chain.head}; big subjects built in ${r.big.buildSeconds.toFixed(0)} s`,
      '',
    );
  }
  L.push('## Routes', '');
  L.push(
    '| route | subject | body B | c=1 p50 ms | c=1 p99 ms | c=1 n | p99 budget | c=32 req/s | % of uWS c=32 | ≥ 50 % | c=32 p99 ms | load |',
    '|---|---|--:|--:|--:|--:|---|--:|--:|---|--:|--:|',
  );
  for (const m of r.routes) {
    const bad = m.c1.non2xx || m.c1.errors || m.c32.non2xx || m.c32.errors ? ' ⚠ non-2xx/errors' : '';
    L.push(
      `| ${m.route}${bad} | ${m.subject} | ${m.bytes} | ${ms(m.c1.p50ms)} | ${ms(m.c1.p99ms)} | ${m.c1.n} | < ${m.p99BudgetMs} ms: ${yes(m.c1.p99ms < m.p99BudgetMs)} | ${Math.round(m.c32.reqPerSec).toLocaleString('en-US')} | ${pct(m.ratioC32)} | ${yes(m.ratioC32 >= 0.5)} | ${m.c32.p99ms} | ${m.loadavg1} |`,
    );
  }
  L.push('');
  if (r.comparisons.length) {
    L.push('## Big vs small (budget: within 2×)', '');
    L.push(
      '| route | c=1 p50 big/small | c=1 p99 big/small | c=32 throughput small/big | within 2× |',
      '|---|--:|--:|--:|---|',
    );
    for (const c of r.comparisons)
      L.push(`| ${c.route} | ${c.p50Ratio}× | ${c.p99Ratio}× | ${c.throughputRatio}× | ${yes(c.met)} |`);
    L.push('');
  }
  const judged = r.routes.flatMap((m) => [m.ratioC32 >= 0.5, m.c1.p99ms < m.p99BudgetMs]);
  if (r.routes.length)
    L.push(
      `**Summary**: ${judged.filter(Boolean).length} of ${judged.length} per-route budgets met (throughput ≥ 50 % of uWS, c=1 p99); ${r.comparisons.filter((c) => c.met).length} of ${r.comparisons.length} big/small comparisons within 2×.`,
      '',
    );
  if (r.profile) {
    L.push(
      '## Profile: big token overview at c=32 under --cpu-prof',
      '',
      `\`${r.profile.path}\`, ${r.profile.reqPerSec} req/s under the profiler; main thread, ${r.profile.scope}. Profile: \`${r.profile.file}\`.`,
      '',
      'Top self time:',
      '',
      '```',
      r.profile.self,
      '```',
      '',
      'Top total (inclusive) time, project functions:',
      '',
      '```',
      r.profile.total,
      '```',
      '',
    );
  }
  if (r.notes.length) L.push('## Notes', '', ...r.notes.map((n) => `- ${n}`), '');
  return L.join('\n');
}

/** Writes the result's .json and .md beside each other under `out` and prints the markdown. */
export function writeResults(
  results: Results,
  out: string,
  o: { quick: boolean; profileOnly: boolean },
): void {
  mkdirSync(out, { recursive: true });
  const base = join(
    out,
    `market-reads-${results.date}-${results.commit}${o.quick ? '-quick' : ''}${o.profileOnly ? '-profile' : ''}${CACHE_OFF ? '-cache-off' : ''}`,
  );
  writeFileSync(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
  const md = markdown(results);
  writeFileSync(`${base}.md`, md);
  process.stdout.write(`\n${md}\nwritten ${base}.json and ${base}.md\n`);
}
