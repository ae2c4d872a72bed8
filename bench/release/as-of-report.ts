/**
 * The as-of section's own report (issue AC's first budget): for every route that takes `atBlock`,
 * its latency at the head, at N = head − 10,000 and at a recent block, at c=1 and c=32, with the
 * ratios to the head's and the verdicts; written as bench/results/as-of-reads-<date>.md by
 * bench/release/as-of.ts. Pure: the tests (bench/as-of-report.test.ts) render it from fixed data.
 */
import { formatFigure } from '../report.js';

/** The budget: an as-of read's p50 and p99 at most these multiples of the same route at the head. */
export const AS_OF_LIMITS = { p50: 2, p99: 3 } as const;

/** Latency of one variant of a route at one concurrency, in ms. */
export interface VariantLatency {
  n: number;
  p50: number;
  p99: number;
  p999: number;
}

/** One concurrency of one route: the head, N and the recent block, measured alternately. */
export interface AsOfRun {
  connections: number;
  head: VariantLatency;
  deep: VariantLatency;
  recent: VariantLatency;
  /** Answers that were not 2xx, or whose anchor was not the variant's block (all variants). */
  bad: number;
  /** 1-minute load average when this run started. */
  load: number;
}

/** A route measured: its contract path, the path read, and whether N's answer differs from the head's. */
export interface AsOfRoute {
  name: string;
  path: string;
  /** The answer's data at N differs from the head's (the subject's state changed since N). */
  differs: boolean;
  runs: AsOfRun[];
}

/** What the report states beyond the routes. */
export interface AsOfFacts {
  date: string;
  commit: string;
  dirty: boolean;
  mode: 'quick' | 'full';
  machine: string;
  loadStart: number[];
  loadEnd: number[];
  rerun: string;
  chain: string[];
  subjects: string[];
  method: string[];
  head: number;
  n: number;
  recent: number;
  notes: string[];
  /** Analysis of the misses (profiles, causes), markdown lines; empty when every route met. */
  misses: string[];
}

/** `x` as a multiple of `base`, 2 decimals. */
export const ratio = (x: number, base: number) => (base > 0 ? x / base : Number.NaN);

/** Whether a run meets both limits against the head (N's p50 and p99). */
export function runMet(r: AsOfRun): boolean {
  return (
    ratio(r.deep.p50, r.head.p50) <= AS_OF_LIMITS.p50 &&
    ratio(r.deep.p99, r.head.p99) <= AS_OF_LIMITS.p99 &&
    r.bad === 0
  );
}

const ms = (x: number) => (Number.isFinite(x) ? formatFigure(x) : '—');
const times = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '—');

/** The table row of one route at one concurrency. */
function row(route: AsOfRoute, r: AsOfRun): string {
  const dp50 = ratio(r.deep.p50, r.head.p50);
  const dp99 = ratio(r.deep.p99, r.head.p99);
  const verdict = r.bad
    ? `**${r.bad} bad answers**`
    : runMet(r)
      ? 'met'
      : `**not met** (${[dp50 > AS_OF_LIMITS.p50 ? 'p50' : '', dp99 > AS_OF_LIMITS.p99 ? 'p99' : ''].filter(Boolean).join(', ')})`;
  return `| ${route.name} | ${r.connections} | ${ms(r.head.p50)} / ${ms(r.head.p99)} | ${ms(r.deep.p50)} / ${ms(r.deep.p99)} | ${times(dp50)} | ${times(dp99)} | ${ms(r.recent.p50)} / ${ms(r.recent.p99)} (${times(ratio(r.recent.p50, r.head.p50))}, ${times(ratio(r.recent.p99, r.head.p99))}) | ${route.differs ? 'yes' : 'no'} | ${verdict} |`;
}

/** The markdown report: facts, the table of every route at c=1 and c=32, the misses, the notes. */
export function asOfMarkdown(f: AsOfFacts, routes: AsOfRoute[]): string {
  const runs = routes.flatMap((r) => r.runs);
  const met = runs.filter(runMet).length;
  const L: string[] = [
    `# As-of reads — ${f.date} @ ${f.commit}${f.dirty ? ' (+ uncommitted changes)' : ''} (${f.mode})`,
    '',
    `Issue AC's budget: an as-of point read at a block 10,000 blocks deep: p50 ≤ ${AS_OF_LIMITS.p50} × and p99 ≤ ${AS_OF_LIMITS.p99} × the same route at the head, at c=1 and c=32 (2 cores, same run).`,
    '',
    `**${met} of ${runs.length} route × concurrency runs met** (${routes.length} routes; N = ${f.n.toLocaleString('en-US')} = head ${f.head.toLocaleString('en-US')} − 10,000; recent block ${f.recent.toLocaleString('en-US')}).`,
    '',
    `Machine: ${f.machine}. Load average at the start ${f.loadStart.map((x) => x.toFixed(2)).join(' / ')}, at the end ${f.loadEnd.map((x) => x.toFixed(2)).join(' / ')} (1/5/15 min; the machine is shared, so every figure carries that noise).`,
    '',
    `Rerun: \`${f.rerun}\``,
    '',
    '## Chain',
    ...f.chain.map((x) => `- ${x}`),
    '',
    '## Subjects',
    ...f.subjects.map((x) => `- ${x}`),
    '',
    '## Method',
    ...f.method.map((x) => `- ${x}`),
    '',
    '## Figures',
    '',
    'Latency in ms as p50 / p99; × is the as-of figure over the head figure of the same route, concurrency and run. "Differs": the answer at N is not the head\'s (the subject changed after N).',
    '',
    '| Route | c | head p50 / p99 | N p50 / p99 | N p50 × (≤ 2) | N p99 × (≤ 3) | recent p50 / p99 (×) | differs | budget |',
    '|---|---|---|---|---|---|---|---|---|',
    ...routes.flatMap((route) => route.runs.map((r) => row(route, r))),
  ];
  if (f.misses.length) L.push('', '## Misses', '', ...f.misses);
  if (f.notes.length) L.push('', '## Notes', ...f.notes.map((x) => `- ${x}`));
  return `${L.join('\n')}\n`;
}
