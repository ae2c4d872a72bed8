/**
 * The benchmark report as one self-contained HTML file (no script, no CDN, no font: inline SVG
 * charts drawn here), written beside the markdown report by `npm run bench`:
 *
 *  1. latency percentiles (p50 / p99 / p99.9) per route, log scale, against the bare-uWS ceiling
 *     (its mean time per request at c=1), and throughput per route as a share of the uWS ceiling;
 *  2. ingest rate against the raw-fetch ceiling of the same node;
 *  3. indexer RSS over time during the clean backfill (start / peak / end when the report has no
 *     time series);
 *  4. the change of every comparable figure against the previous committed report;
 *  5. every figure in one table (`data-figure` = its id).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Figure, formatFigure, metText, type Results } from './report.js';

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const fmt = (x: number | null | undefined, unit = ''): string =>
  x === null || x === undefined || !Number.isFinite(x) ? '—' : formatFigure(x, unit);

const COLORS = ['#2f80ed', '#f2994a', '#eb5757', '#27ae60', '#9b51e0'];

interface Bar {
  name: string;
  value: number | null;
}
interface BarRow {
  label: string;
  bars: Bar[];
  /** Figure ids drawn in this row. */
  ids: string[];
}

/**
 * Horizontal grouped bar chart. `log`: logarithmic value axis. `refs`: vertical reference lines
 * (ceilings, budgets).
 */
export function barChart(o: {
  title: string;
  unit: string;
  rows: BarRow[];
  log?: boolean;
  refs?: Array<{ value: number; label: string; color?: string }>;
}): string {
  const labelW = 300;
  const plotW = 520;
  const barH = 10;
  const groupGap = 8;
  const series = o.rows[0]?.bars.map((b) => b.name) ?? [];
  const rowH = Math.max(1, series.length) * barH + groupGap;
  const top = 44;
  const h = top + o.rows.length * rowH + 34;
  const values = o.rows
    .flatMap((r) => r.bars.map((b) => b.value))
    .filter((v): v is number => v !== null && v > 0);
  for (const r of o.refs ?? []) values.push(r.value);
  const max = Math.max(...values, 1e-9);
  const min = o.log ? Math.min(...values, max) : 0;
  const lo = o.log ? 10 ** Math.floor(Math.log10(min)) : 0;
  const hi = o.log ? 10 ** Math.ceil(Math.log10(max)) : max * 1.08;
  const x = (v: number) =>
    labelW +
    (o.log
      ? ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo) || 1)) * plotW
      : (v / hi) * plotW);
  const parts: string[] = [];
  parts.push(`<text x="0" y="16" class="t">${esc(o.title)}</text>`);
  // Axis ticks.
  const ticks: number[] = [];
  if (o.log) for (let v = lo; v <= hi * 1.0001; v *= 10) ticks.push(v);
  else for (let i = 0; i <= 4; i++) ticks.push((hi / 4) * i);
  for (const t of ticks) {
    const tx = x(t);
    parts.push(`<line x1="${tx}" y1="${top - 4}" x2="${tx}" y2="${h - 30}" class="grid"/>`);
    parts.push(`<text x="${tx}" y="${h - 18}" class="ax" text-anchor="middle">${esc(fmt(t))}</text>`);
  }
  parts.push(
    `<text x="${labelW + plotW}" y="${h - 4}" class="ax" text-anchor="end">${esc(o.unit)}${o.log ? ' (log)' : ''}</text>`,
  );
  o.rows.forEach((r, i) => {
    const y0 = top + i * rowH;
    parts.push(
      `<text x="${labelW - 6}" y="${y0 + (series.length * barH) / 2 + 4}" class="lb" text-anchor="end" data-figures="${esc(r.ids.join(' '))}">${esc(r.label)}</text>`,
    );
    r.bars.forEach((b, j) => {
      if (b.value === null) return;
      const w = Math.max(1, x(b.value) - labelW);
      parts.push(
        `<rect x="${labelW}" y="${y0 + j * barH}" width="${w.toFixed(1)}" height="${barH - 2}" fill="${COLORS[j % COLORS.length]}"><title>${esc(`${r.label} ${b.name}: ${fmt(b.value, o.unit)}`)}</title></rect>`,
      );
    });
  });
  (o.refs ?? []).forEach((ref, i) => {
    const rx = x(ref.value);
    // Labels alternate between two lines so neighbouring reference lines stay readable.
    parts.push(
      `<line x1="${rx}" y1="${top - 16}" x2="${rx}" y2="${h - 30}" class="ref" stroke="${ref.color ?? '#333'}"/><text x="${rx + 3}" y="${top - 8 - (i % 2) * 11}" class="ax">${esc(ref.label)}</text>`,
    );
  });
  const legend = series
    .map(
      (s, j) => `<span class="key"><i style="background:${COLORS[j % COLORS.length]}"></i>${esc(s)}</span>`,
    )
    .join(' ');
  return `<figure><svg viewBox="0 0 ${labelW + plotW + 80} ${h}" width="${labelW + plotW + 80}" role="img">${parts.join('')}</svg><figcaption>${legend}</figcaption></figure>`;
}

/** Line chart of (x, y) series. */
export function lineChart(o: {
  title: string;
  xUnit: string;
  yUnit: string;
  series: Array<{ name: string; points: Array<[number, number]> }>;
}): string {
  const W = 820;
  const H = 260;
  const L = 60;
  // Below the title and the y-unit label (at T − 6).
  const T = 40;
  const B = 36;
  const pts = o.series.flatMap((s) => s.points);
  const xMax = Math.max(...pts.map((p) => p[0]), 1);
  const yMax = Math.max(...pts.map((p) => p[1]), 1) * 1.1;
  const x = (v: number) => L + (v / xMax) * (W - L - 20);
  const y = (v: number) => H - B - (v / yMax) * (H - T - B);
  const parts: string[] = [`<text x="0" y="16" class="t">${esc(o.title)}</text>`];
  for (let i = 0; i <= 4; i++) {
    const v = (yMax / 4) * i;
    parts.push(`<line x1="${L}" y1="${y(v)}" x2="${W - 20}" y2="${y(v)}" class="grid"/>`);
    parts.push(`<text x="${L - 4}" y="${y(v) + 4}" class="ax" text-anchor="end">${esc(fmt(v))}</text>`);
  }
  for (let i = 0; i <= 5; i++) {
    const v = (xMax / 5) * i;
    parts.push(`<text x="${x(v)}" y="${H - B + 16}" class="ax" text-anchor="middle">${esc(fmt(v))}</text>`);
  }
  parts.push(`<text x="${W - 20}" y="${H - 4}" class="ax" text-anchor="end">${esc(o.xUnit)}</text>`);
  parts.push(`<text x="${L}" y="${T - 6}" class="ax">${esc(o.yUnit)}</text>`);
  o.series.forEach((s, j) => {
    const d = s.points.map((p, i) => `${i ? 'L' : 'M'}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join('');
    parts.push(`<path d="${d}" fill="none" stroke="${COLORS[j % COLORS.length]}" stroke-width="1.6"/>`);
  });
  const legend = o.series
    .map(
      (s, j) =>
        `<span class="key"><i style="background:${COLORS[j % COLORS.length]}"></i>${esc(s.name)}</span>`,
    )
    .join(' ');
  return `<figure><svg viewBox="0 0 ${W} ${H}" width="${W}" role="img">${parts.join('')}</svg><figcaption>${legend}</figcaption></figure>`;
}

const byId = (r: Results) => new Map(r.figures.map((f) => [f.id, f]));

/** Point-read routes of a report: `read.<route>.c1.p50` … grouped by route. */
function routesOf(r: Results): string[] {
  const out: string[] = [];
  for (const f of r.figures) {
    const m = /^read\.(.+)\.c1\.p50$/.exec(f.id);
    if (m) out.push(m[1]);
  }
  return out;
}

/** A route's row of bars: one bar per [name, figure id], the figure's value (null when absent). */
function routeRow(
  m: ReturnType<typeof byId>,
  route: string,
  bars: Array<[name: string, id: string]>,
): BarRow {
  return {
    label: route,
    ids: bars.map(([, id]) => id),
    bars: bars.map(([name, id]) => ({ name, value: m.get(id)?.value ?? null })),
  };
}

function latencySection(r: Results): string {
  const m = byId(r);
  const routes = routesOf(r);
  if (!routes.length) return '<p class="muted">No point-read figure in this report.</p>';
  const uws1 = m.get('uws.c1')?.value ?? null;
  const uws32 = m.get('uws.c32')?.value ?? null;
  const rows = routes.map((route) =>
    routeRow(m, route, [
      ['p50', `read.${route}.c1.p50`],
      ['p99', `read.${route}.c1.p99`],
      ['p99.9', `read.${route}.c1.p999`],
    ]),
  );
  const lat = barChart({
    title: 'Point-read latency at c=1 per route',
    unit: 'ms',
    rows,
    log: true,
    refs: [
      ...(uws1 ? [{ value: 1000 / uws1, label: 'uWS ceiling (mean at c=1)', color: '#111' }] : []),
      { value: 1, label: 'budget p99 < 1 ms', color: '#eb5757' },
    ],
  });
  const thr = routes.map((route) =>
    routeRow(m, route, [
      ['c=1', `read.${route}.c1.rps`],
      ['c=32', `read.${route}.c32.rps`],
    ]),
  );
  const tput = barChart({
    title: 'Point-read throughput per route against the bare-uWS ceiling',
    unit: 'req/s',
    rows: thr,
    refs: [
      ...(uws1 ? [{ value: uws1, label: 'uWS c=1', color: '#2f80ed' }] : []),
      ...(uws32 ? [{ value: uws32, label: 'uWS c=32', color: '#f2994a' }] : []),
      ...(uws32 ? [{ value: uws32 / 2, label: '50 % budget', color: '#eb5757' }] : []),
    ],
  });
  return lat + tput;
}

function ingestSection(r: Results): string {
  const rows: BarRow[] = [];
  for (const f of r.figures) {
    if (!f.id.startsWith('ingest.') || !f.baseline || f.value === null) continue;
    rows.push({
      label: `${f.label} (${f.unit})`,
      ids: [f.id],
      bars: [
        { name: 'indexer', value: f.value },
        { name: 'raw fetch ceiling', value: f.baseline.value },
      ],
    });
  }
  if (!rows.length) return '<p class="muted">No ingest figure with a raw-fetch baseline in this report.</p>';
  // Blocks/s and events/s differ by orders of magnitude: one log-scale chart.
  return barChart({
    title: 'Ingest rate against the raw fetch of the same node',
    unit: 'per second',
    rows,
    log: true,
  });
}

function rssSection(r: Results): string {
  const series = r.series?.rss ?? [];
  if (series.length) {
    return lineChart({
      title: 'Indexer RSS during the clean backfill',
      xUnit: 's since start',
      yUnit: 'MiB',
      series: series.map((s) => ({ name: s.label, points: s.points })),
    });
  }
  const m = byId(r);
  const ids = ['ingest.rss.start', 'ingest.rss.peak', 'ingest.rss.end'];
  if (!ids.some((id) => m.get(id)?.value !== undefined))
    return '<p class="muted">No RSS figure in this report.</p>';
  return (
    barChart({
      title: 'Indexer RSS during the clean backfill (start, peak, end)',
      unit: 'MiB',
      rows: ids.map((id) => ({
        label: m.get(id)?.label ?? id,
        ids: [id],
        bars: [{ name: 'RSS', value: m.get(id)?.value ?? null }],
      })),
    }) +
    '<p class="muted">This report has no RSS time series (recorded by runs from the console change on).</p>'
  );
}

/** Figures comparable with the previous report (same id, both measured, a `better` direction). */
export function changes(
  prev: Results,
  cur: Results,
): Array<{ f: Figure; old: number; change: number; worse: boolean }> {
  const old = byId(prev);
  const out: Array<{ f: Figure; old: number; change: number; worse: boolean }> = [];
  for (const f of cur.figures) {
    const o = old.get(f.id);
    if (!o || o.value === null || f.value === null || !f.better || o.value === 0) continue;
    const change = (f.value - o.value) / Math.abs(o.value);
    out.push({ f, old: o.value, change, worse: f.better === 'higher' ? change < 0 : change > 0 });
  }
  return out;
}

function compareSection(prev: Results | null, cur: Results): string {
  if (!prev) return '<p class="muted">No previous committed report to compare with.</p>';
  const c = changes(prev, cur);
  const head = `<p>Against <b>${esc(prev.date)} @ ${esc(prev.commit)}</b> (${esc(prev.mode)}, started ${esc(prev.startedAt)}); ${c.length} comparable figures (both measured, with a direction).</p>`;
  if (!c.length) return head;
  const W = 820;
  const rowH = 14;
  const L = 360;
  const mid = L + (W - L) / 2;
  const span = Math.max(0.1, ...c.map((x) => Math.min(2, Math.abs(x.change))));
  const parts: string[] = [
    `<text x="0" y="16" class="t">Change against the previous report (right = larger)</text>`,
  ];
  c.forEach((x, i) => {
    const y = 28 + i * rowH;
    const w = (Math.min(2, Math.abs(x.change)) / span) * ((W - L) / 2 - 10);
    const left = x.change < 0 ? mid - w : mid;
    parts.push(
      `<text x="${L - 6}" y="${y + 10}" class="lb" text-anchor="end" data-figures="${esc(x.f.id)}">${esc(`${x.f.group}: ${x.f.label}`.slice(0, 60))}</text>`,
      `<rect x="${left.toFixed(1)}" y="${y + 2}" width="${Math.max(1, w).toFixed(1)}" height="${rowH - 4}" fill="${x.worse ? '#eb5757' : '#27ae60'}"><title>${esc(`${fmt(x.old, x.f.unit)} → ${fmt(x.f.value, x.f.unit)}`)}</title></rect>`,
      `<text x="${x.change < 0 ? left - 4 : left + w + 4}" y="${y + 10}" class="ax" text-anchor="${x.change < 0 ? 'end' : 'start'}">${x.change >= 0 ? '+' : ''}${(x.change * 100).toFixed(1)} %</text>`,
    );
  });
  const h = 28 + c.length * rowH + 10;
  parts.push(`<line x1="${mid}" y1="22" x2="${mid}" y2="${h}" class="ref" stroke="#333"/>`);
  return `${head}<figure><svg viewBox="0 0 ${W + 60} ${h}" width="${W + 60}" role="img">${parts.join('')}</svg><figcaption><span class="key"><i style="background:#27ae60"></i>better</span> <span class="key"><i style="background:#eb5757"></i>worse</span></figcaption></figure>`;
}

function table(r: Results, prev: Results | null): string {
  const old = prev ? byId(prev) : new Map<string, Figure>();
  const rows = r.figures.map((f) => {
    const met = metText(f, 'not met');
    const o = old.get(f.id);
    return `<tr data-figure="${esc(f.id)}" class="${met === 'not met' || met === 'FAILED' ? 'bad' : ''}"><td>${esc(f.group)}</td><td>${esc(f.label)}${f.note ? ` <span class="muted">— ${esc(f.note)}</span>` : ''}</td><td class="n">${f.status === 'not built' ? 'not built' : esc(fmt(f.value, f.unit))}</td><td class="n">${f.baseline ? esc(`${fmt(f.baseline.value, f.baseline.unit)} (${f.baseline.label})`) : ''}</td><td class="n">${f.ratio !== undefined && Number.isFinite(f.ratio) ? `${(f.ratio * 100).toFixed(1)} %` : ''}</td><td>${esc(f.budget?.text ?? '')}</td><td>${met}</td><td class="n">${o ? esc(fmt(o.value, o.unit)) : ''}</td></tr>`;
  });
  return `<table><thead><tr><th>Group</th><th>Figure</th><th>Value</th><th>Baseline</th><th>Ratio</th><th>Budget</th><th>Met</th><th>Previous</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1d2430;padding:0 16px}
h1{font-size:22px}h2{font-size:17px;margin-top:32px;border-bottom:1px solid #dde3ea;padding-bottom:4px}
svg{max-width:100%;height:auto;background:#fff}svg .t{font-weight:600;font-size:13px}svg .ax{font-size:10px;fill:#5b6675}
svg .lb{font-size:11px;fill:#1d2430}svg .grid{stroke:#e6eaef}svg .ref{stroke-width:1.4;stroke-dasharray:4 3}
figure{margin:12px 0}figcaption{font-size:12px;color:#5b6675}.key{margin-right:12px}.key i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
table{border-collapse:collapse;width:100%;font-size:12px}th,td{border-bottom:1px solid #e6eaef;padding:3px 6px;text-align:left;vertical-align:top}
td.n{text-align:right;white-space:nowrap}tr.bad td{background:#fdecec}.muted{color:#5b6675}ul{padding-left:20px}`;

/**
 * The HTML report of `r`, compared with `previous` (the previous committed report, or null).
 * Self-contained: inline CSS and SVG, no script and no external resource.
 */
export function html(r: Results, previous: Results | null): string {
  const budgeted = r.figures.filter((f) => f.budget);
  const c = r.chain as Record<string, unknown>;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Benchmark ${esc(r.date)} @ ${esc(r.commit)} (${esc(r.mode)})</title><style>${CSS}</style></head>
<body>
<h1>Release benchmark — ${esc(r.date)} @ ${esc(r.commit)} (${esc(r.mode)})</h1>
<p>Machine: ${r.machine.cpus} CPU (${esc(r.machine.cpuModel)}), ${r.machine.memGiB} GiB, Node ${esc(r.machine.node)}. Bench wall time ${esc(fmt(r.seconds, 's'))}. Chain: ${esc(fmt(c.blocks as number))} blocks, ${esc(fmt(c.txs as number))} txs, ${esc(fmt(c.logs as number))} logs (${esc(String(c.source))}).
Budgets: <b>${budgeted.filter((f) => f.met === true).length} met</b>, <b>${budgeted.filter((f) => f.met === false).length} not met</b>, ${budgeted.filter((f) => f.status === 'not built').length} not built.</p>
${r.hardFailures.length ? `<p><b>Hard failures:</b></p><ul>${r.hardFailures.map((h) => `<li>${esc(h)}</li>`).join('')}</ul>` : ''}
<h2>Latency percentiles per route, against the uWS ceiling</h2>
${latencySection(r)}
<h2>Ingest rate against raw fetch</h2>
${ingestSection(r)}
<h2>RSS over time</h2>
${rssSection(r)}
<h2>Comparison with the previous committed report</h2>
${compareSection(previous, r)}
<h2>Every figure</h2>
${table(r, previous)}
${r.notes.length ? `<h2>Notes</h2><ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
</body></html>
`;
}

/**
 * The previous committed report of the same mode in `dir`: among the JSON reports git tracks there
 * (every JSON report of the directory when it is not in a git work tree), the one started last
 * before `cur`. Null when there is none.
 */
export function previousCommitted(dir: string, cur: Results): { file: string; results: Results } | null {
  let files: string[];
  try {
    files = execFileSync('git', ['ls-files', '--', '*.json'], { cwd: dir, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && !f.includes('/'));
  } catch {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  }
  let best: { file: string; results: Results } | null = null;
  for (const file of files) {
    let r: Results;
    try {
      r = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Results;
    } catch {
      continue;
    }
    if (r.schema !== 1 || !Array.isArray(r.figures) || r.mode !== cur.mode) continue;
    if (!(r.startedAt < cur.startedAt)) continue;
    if (!best || r.startedAt > best.results.startedAt) best = { file, results: r };
  }
  return best;
}
