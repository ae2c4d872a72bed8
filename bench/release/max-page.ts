/**
 * Release bench, section 4 (pages): the largest pages, /blocks/{dense}/logs and /transactions with
 * limit=1000 walked to the end on the densest blocks (hard 4 MiB / 1000-row check), then timed.
 */
import { cannon, cannonFigures, type IndexerChild, latencyFigures, sampleLatency } from '../lib.js';
import { BUDGETS } from '../report.js';
import type { Chain } from './chain.js';
import type { FigureRest, Release } from './context.js';

const MAX_PAGE_BYTES = 4 * 1024 * 1024;
const MAX_PAGE_ROWS = 1000;

/** The row count of a page's answer (its first array) and its next cursor, if any. */
function rowsOf(body: any): { rows: number; next: string | null } {
  let rows = -1;
  let next: string | null = null;
  for (const [k, v] of Object.entries(body ?? {})) {
    if (Array.isArray(v) && rows < 0) rows = v.length;
    if (/cursor/i.test(k) && typeof v === 'string') next = v;
    // PAGE envelope: {page: {count, stoppedBy, nextCursor}} (packages/indexer/src/server/page.ts).
    const nc = (v as { nextCursor?: unknown } | null)?.nextCursor;
    if (k === 'page' && typeof nc === 'string') next = nc;
  }
  return { rows, next };
}

export async function maxPageSection(r: Release, { info }: Chain, ixA: IndexerChild) {
  const { P, quick, hardFailures, fig } = r;
  for (const kind of ['logs', 'transactions'] as const) {
    let maxBytes = 0;
    let maxRows = 0;
    let pages = 0;
    let walked = 0;
    for (const b of info.denseBlocks) {
      let path = `/blocks/${b}/${kind}?limit=1000`;
      for (let guard = 0; guard < 20; guard++) {
        const r = await ixA.get(path);
        if (r.status !== 200) {
          hardFailures.push(`${path} answered ${r.status}`);
          break;
        }
        const { rows, next } = rowsOf(r.body);
        pages++;
        walked += Math.max(0, rows);
        maxBytes = Math.max(maxBytes, r.bytes);
        maxRows = Math.max(maxRows, rows);
        if (r.bytes > MAX_PAGE_BYTES) hardFailures.push(`${path}: ${r.bytes} bytes > 4 MiB`);
        if (rows > MAX_PAGE_ROWS) hardFailures.push(`${path}: ${rows} rows > 1000`);
        if (rows < 0) hardFailures.push(`${path}: no row array in the answer`);
        if (!next) break;
        path = `/blocks/${b}/${kind}?limit=1000&cursor=${encodeURIComponent(next)}`;
      }
    }
    const expected = info.denseBlocks.length * (kind === 'logs' ? 2 * 1100 : 1100);
    if (walked !== expected)
      hardFailures.push(`max page walk of ${kind}: ${walked} rows over ${pages} pages, expected ${expected}`);
    const paths = info.denseBlocks.map((b) => `/blocks/${b}/${kind}?limit=1000`);
    const precise = latencyFigures(
      await sampleLatency({ base: ixA.base, paths, connections: 1, amount: quick ? 40 : 200 }),
    );
    const c4 = cannonFigures(await cannon({ url: ixA.base, paths, connections: 4, durationS: P.durPage }));
    /** A figure of this kind's pages: `page.<kind>.<id>`. */
    const pageFig = (id: string, label: string, value: number, f: FigureRest) =>
      fig({ id: `page.${kind}.${id}`, group: 'Max page', label, value, ...f });
    pageFig('p50', `/blocks/{dense}/${kind}?limit=1000 c=1 p50`, precise.p50ms, {
      unit: 'ms',
      better: 'lower',
      status: 'info',
    });
    pageFig('p99', `/blocks/{dense}/${kind}?limit=1000 c=1 p99`, precise.p99ms, {
      unit: 'ms',
      better: 'lower',
      status: 'info',
    });
    pageFig('c4.rps', `${kind} page c=4 throughput`, c4.reqPerSec, {
      unit: 'req/s',
      better: 'higher',
      status: 'info',
      note: `${(c4.bytesPerSec / 1e6).toFixed(0)} MB/s`,
    });
    pageFig('bytes', `${kind}: largest page`, maxBytes, { unit: 'bytes', budget: BUDGETS.pageBytes });
    pageFig('rows', `${kind}: most rows in a page (${pages} pages walked, ${walked} rows)`, maxRows, {
      unit: 'rows',
      budget: BUDGETS.pageRows,
    });
  }
}
