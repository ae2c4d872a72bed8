/**
 * Figures, budgets, the markdown report and `--compare`.
 *
 * A figure is one number with its unit, an optional baseline (the ceiling it is measured against)
 * and ratio, and an optional budget. Budgets are fixed here and are never loosened: a figure past
 * its budget is reported "not met" with the figure.
 */

export type Better = 'higher' | 'lower';

export interface Budget {
  /** What the budget applies to: the figure's value or its ratio to the baseline. */
  on: 'value' | 'ratio';
  op: '<' | '>=' | '<=';
  limit: number;
  text: string;
}

export interface Figure {
  id: string;
  group: string;
  label: string;
  value: number | null;
  unit: string;
  better?: Better;
  baseline?: { label: string; value: number; unit: string };
  ratio?: number;
  budget?: Budget;
  /** true/false when a budget applies and a value was measured; null otherwise. */
  met?: boolean | null;
  /** 'not built' when the product part does not exist yet; 'failed' when the measurement broke. */
  status: 'measured' | 'not built' | 'failed' | 'info';
  note?: string;
}

export const BUDGETS = {
  // c=1 latency as same-run ratios to the bare uWS hello (bench/uws-hello.ts, same client, same
  // run): an absolute sub-millisecond p99 is below a shared 2-CPU machine's own noise (the hello's
  // p99 alone was 1.3–3.9 ms across runs), so the budget is what the service adds over uWS itself.
  pointP50c1: { on: 'ratio', op: '<=', limit: 2, text: 'p50 ≤ 2 × the bare uWS hello p50 of this run (c=1)' },
  pointP99c1: {
    on: 'ratio',
    op: '<=',
    limit: 1.5,
    text: 'p99 ≤ 1.5 × the bare uWS hello p99 of this run (c=1)',
  },
  throughputC32: { on: 'ratio', op: '>=', limit: 0.5, text: '≥ 50 % of the uWS ceiling at c=32' },
  readP99Backfill: { on: 'value', op: '<', limit: 5, text: 'read p99 < 5 ms during backfill' },
  backfillAnvil: { on: 'ratio', op: '>=', limit: 0.8, text: '≥ 80 % of the raw fetch ceiling (anvil)' },
  replayEvents: { on: 'value', op: '>=', limit: 20_000, text: '≥ 20,000 decoded events/s (replay)' },
  headToQueryable: { on: 'value', op: '<', limit: 250, text: 'p99 < 250 ms' },
  frameDelivery: { on: 'value', op: '<', limit: 20, text: 'frame delivery p99 < 20 ms' },
  pageBytes: { on: 'value', op: '<=', limit: 4 * 1024 * 1024, text: '≤ 4 MiB per page (hard)' },
  pageRows: { on: 'value', op: '<=', limit: 1000, text: '≤ 1000 rows per page (hard)' },
  // Issue AC: an as-of point read 10,000 blocks deep against the same route at the head, same run.
  asOfP50: { on: 'ratio', op: '<=', limit: 2, text: 'p50 ≤ 2 × the same route at the head' },
  asOfP99: { on: 'ratio', op: '<=', limit: 3, text: 'p99 ≤ 3 × the same route at the head' },
} satisfies Record<string, Budget>;

export function judge(f: Figure): Figure {
  if (f.baseline && f.value !== null && f.ratio === undefined) f.ratio = f.value / f.baseline.value;
  if (!f.budget || f.value === null || f.status === 'not built' || f.status === 'failed') {
    f.met = null;
    return f;
  }
  const x = f.budget.on === 'ratio' ? f.ratio : f.value;
  if (x === undefined || !Number.isFinite(x)) {
    f.met = null;
    return f;
  }
  f.met =
    f.budget.op === '<'
      ? x < f.budget.limit
      : f.budget.op === '<='
        ? x <= f.budget.limit
        : x >= f.budget.limit;
  return f;
}

/**
 * A figure's number for reading: thousands grouped and whole from 1000 up, else 1, 2 or 3 decimals
 * by size; `unit` after a space when given. The caller handles null and non-numbers.
 */
export function formatFigure(x: number, unit = ''): string {
  const a = Math.abs(x);
  const s =
    a >= 1000
      ? Math.round(x).toLocaleString('en-US')
      : a >= 10
        ? x.toFixed(1)
        : a >= 1
          ? x.toFixed(2)
          : x.toFixed(3);
  return unit ? `${s} ${unit}` : s;
}

/** A figure's verdict for a table: `not built`, `FAILED`, empty (no budget), `met`, or `notMet`. */
export function metText(f: Figure, notMet: string): string {
  if (f.status === 'not built') return 'not built';
  if (f.status === 'failed') return 'FAILED';
  if (f.met === null || f.met === undefined) return '';
  return f.met ? 'met' : notMet;
}

const fmt = (x: number | null | undefined, unit = ''): string =>
  x === null || x === undefined || Number.isNaN(x) ? '—' : formatFigure(x, unit);

/** What every bench report file starts with: its schema, date, commit, mode and timing. */
export interface ReportHead {
  schema: 1;
  date: string;
  commit: string;
  mode: 'quick' | 'full';
  startedAt: string;
  seconds: number;
}

export interface Results extends ReportHead {
  machine: {
    cpus: number;
    cpuModel: string;
    memGiB: number;
    node: string;
    platform: string;
    /** The HTTP core the run's servers used (absent in reports before issue AB: native uWS). */
    httpCore?: 'uws' | 'node_http';
    /** The C library the bench ran on (glibcVersionRuntime), null off glibc. */
    glibc?: string | null;
  };
  config: Record<string, unknown>;
  chain: Record<string, unknown>;
  figures: Figure[];
  hardFailures: string[];
  notes: string[];
  /** Time series for the HTML report (absent in reports before it): RSS over the clean backfill. */
  series?: { rss?: Array<{ label: string; points: Array<[number, number]> }> };
}

export function markdown(r: Results): string {
  const lines: string[] = [];
  lines.push(`# Release benchmark — ${r.date} @ ${r.commit} (${r.mode})`);
  lines.push('');
  lines.push(
    `Machine: ${r.machine.cpus} CPU (${r.machine.cpuModel}), ${r.machine.memGiB} GiB, Node ${r.machine.node}` +
      `${r.machine.glibc ? `, glibc ${r.machine.glibc}` : ''}; HTTP core: ${r.machine.httpCore === 'node_http' ? '**node:http stand-in** (no native uWS binary loads on this runtime)' : 'native uWebSockets.js'}. ` +
      `Bench wall time ${fmt(r.seconds, 's')}. Everything on loopback; bench client, servers, anvil and indexer share the machine.`,
  );
  const c = r.chain;
  lines.push('');
  if (c.blocks === undefined)
    lines.push(`Chain: none of the bench's own (seed ${c.seed ?? '—'}); each section names its chain.`);
  else
    lines.push(
      `Chain: seed ${c.seed}, ${fmt(c.blocks as number)} blocks, ${fmt(c.txs as number)} txs, ${fmt(c.logs as number)} logs, dense blocks ${JSON.stringify(c.denseBlocks)}; ` +
        `${c.source === 'cache' ? `loaded from the anvil state cache (generation took ${fmt(c.generationSeconds as number, 's')} when built)` : `generated in ${fmt(c.generationSeconds as number, 's')}`}.`,
    );
  lines.push('');
  lines.push('| Figure | Value | Baseline | Ratio | Budget | Met |');
  lines.push('|---|---|---|---|---|---|');
  for (const f of r.figures) {
    const met = metText(f, '**not met**');
    const value = f.status === 'not built' ? 'not built' : fmt(f.value, f.unit);
    const base = f.baseline ? `${fmt(f.baseline.value, f.baseline.unit)} (${f.baseline.label})` : '';
    const ratio = f.ratio !== undefined && Number.isFinite(f.ratio) ? `${(f.ratio * 100).toFixed(1)} %` : '';
    lines.push(
      `| ${f.group}: ${f.label}${f.note ? ` — ${f.note}` : ''} | ${value} | ${base} | ${ratio} | ${f.budget?.text ?? ''} | ${met} |`,
    );
  }
  const budgeted = r.figures.filter((f) => f.budget);
  lines.push('');
  lines.push(
    `Budgets: ${budgeted.filter((f) => f.met === true).length} met, ${budgeted.filter((f) => f.met === false).length} not met, ` +
      `${budgeted.filter((f) => f.status === 'not built').length} not built.`,
  );
  if (r.hardFailures.length) {
    lines.push('');
    lines.push('**Hard failures (the bench fails):**');
    for (const h of r.hardFailures) lines.push(`- ${h}`);
  }
  if (r.notes.length) {
    lines.push('');
    lines.push('Notes:');
    for (const n of r.notes) lines.push(`- ${n}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Absolute change below which a latency figure is treated as noise, milliseconds. */
const LATENCY_NOISE_MS = 0.05;

export function compare(
  oldR: Results,
  newR: Results,
  threshold: number,
): { text: string; regressions: string[] } {
  const lines: string[] = [];
  const regressions: string[] = [];
  lines.push(
    `# Compare ${oldR.date} @ ${oldR.commit} (${oldR.mode}) → ${newR.date} @ ${newR.commit} (${newR.mode}); regression threshold ${(threshold * 100).toFixed(0)} %`,
  );
  if (oldR.mode !== newR.mode) lines.push(`warning: comparing a ${oldR.mode} run with a ${newR.mode} run`);
  lines.push('');
  lines.push('| Figure | Old | New | Change | |');
  lines.push('|---|---|---|---|---|');
  const old = new Map(oldR.figures.map((f) => [f.id, f]));
  for (const f of newR.figures) {
    const o = old.get(f.id);
    if (!o || o.value === null || f.value === null || !f.better) {
      lines.push(
        `| ${f.group}: ${f.label} | ${o ? fmt(o.value, o.unit) : 'absent'} | ${fmt(f.value, f.unit)} | | |`,
      );
      continue;
    }
    const change = o.value === 0 ? 0 : (f.value - o.value) / Math.abs(o.value);
    const worse = f.better === 'higher' ? -change : change;
    const noise = f.unit === 'ms' && Math.abs(f.value - o.value) < LATENCY_NOISE_MS;
    const reg = worse > threshold && !noise;
    if (reg)
      regressions.push(
        `${f.id}: ${fmt(o.value, f.unit)} → ${fmt(f.value, f.unit)} (${(change * 100).toFixed(1)} %)`,
      );
    lines.push(
      `| ${f.group}: ${f.label} | ${fmt(o.value, o.unit)} | ${fmt(f.value, f.unit)} | ${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} % | ${reg ? '**REGRESSION**' : worse < -threshold ? 'better' : ''} |`,
    );
  }
  for (const o of oldR.figures)
    if (!newR.figures.some((f) => f.id === o.id))
      lines.push(`| ${o.group}: ${o.label} | ${fmt(o.value, o.unit)} | absent | | |`);
  lines.push('');
  lines.push(
    regressions.length
      ? `${regressions.length} regression(s) past ${(threshold * 100).toFixed(0)} %:\n${regressions.map((r) => `- ${r}`).join('\n')}`
      : 'No regression past the threshold.',
  );
  return { text: `${lines.join('\n')}\n`, regressions };
}
