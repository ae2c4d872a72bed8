/**
 * The screener reader: one screener query (filters, sort, window, grain) answered as a page of
 * ranked rows at the page anchor, through a request's {@link View}. The rules are in
 * `compute.ts` (subjects, window figures, filters, sort values); windows and the distinct-trader
 * scan bound are the markets domain's.
 */

import { DomainError } from '../errors/index.js';
import { SCREENER_ROWS } from '../schema/cursors.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import {
  CANDIDATE_CEILING,
  type Coverage,
  coverageOf,
  enumerate,
  FILTER_NAMES,
  HOLDERS_PREFILTER,
  passes,
  type Row,
  type ScreenerQuery,
  type ScreenerTokens,
  type Sort,
  sortValue,
} from './compute.js';

/** A screener row with its rank and the window coverage. */
export interface ScreenerRow extends Row {
  /** Position in the sort; null under sort=holders (see rankWithinPrefilterSet). */
  rank: number | null;
  rankWithinPrefilterSet: number | null;
  window: { coveredBlocks: number; windowFullyCovered: boolean };
}

/** What a screener page states besides its rows. */
export interface ScreenerPage {
  coverage: Coverage;
  candidatesScanned: number;
  ceiling: number;
  holdersRanking: { candidateSet: string; candidates: number } | null;
}

export interface ScreenerReader {
  /**
   * Rows of query `q` at the page anchor in rank order. Resume key: the rank (u32).
   * @throws DomainError bad_request (filters or base without allowScan), projection_unavailable
   * (candidate set past the ceiling, with suggestedRecencyFloorBlock).
   */
  screen(view: View, q: ScreenerQuery, page: PageQuery, sink: PageSink<ScreenerRow>): ScreenerPage;
}

/** Creates the screener reader (stateless). */
export function createScreenerReader(deps: { tokens: ScreenerTokens }): ScreenerReader {
  return {
    screen(view, q, page, sink) {
      const filtered = FILTER_NAMES.some((f) => q[f] !== undefined);
      if ((filtered || q.base) && !q.allowScan)
        throw new DomainError(
          'bad_request',
          'filters (and base) make the walk examine subjects it does not return: pass allowScan=true',
        );
      const cov = coverageOf(view, page.at, q.window);
      const { rows, scanned } = enumerate(view, deps.tokens, q, page.at);
      const cmpBy = (s: Sort) => (a: Row, b: Row) => {
        const x = sortValue(a, s);
        const y = sortValue(b, s);
        const d = x === y ? (a.subject < b.subject ? -1 : 1) : x < y ? -1 : 1;
        return q.order === 'asc' ? d : -d;
      };
      let list = rows.filter((r) => passes(r, q, cov));
      let holdersRanking: ScreenerPage['holdersRanking'] = null;
      if (q.sort === 'holders') {
        // Holders rank within the top subjects by total_volume_quote under the filters.
        const pre = [...list]
          .sort((a, b) =>
            b.totalVolumeQuote > a.totalVolumeQuote
              ? 1
              : b.totalVolumeQuote < a.totalVolumeQuote
                ? -1
                : a.subject < b.subject
                  ? -1
                  : 1,
          )
          .slice(0, HOLDERS_PREFILTER);
        list = pre.sort(cmpBy('holders'));
        holdersRanking = {
          candidateSet: `top ${HOLDERS_PREFILTER} subjects by total_volume_quote under the filters`,
          candidates: pre.length,
        };
      } else list.sort(cmpBy(q.sort));
      const start = page.after ? SCREENER_ROWS.decode(page.after)[0] : 0;
      const holders = q.sort === 'holders';
      for (let i = start; i < list.length; i++) {
        const key = SCREENER_ROWS.encode(i + 1);
        const row: ScreenerRow = {
          ...list[i],
          rank: holders ? null : i + 1,
          rankWithinPrefilterSet: holders ? i + 1 : null,
          window: { coveredBlocks: cov.coveredBlocks, windowFullyCovered: cov.windowFullyCovered },
        };
        if (!sink(row, key)) break;
      }
      return { coverage: cov, candidatesScanned: scanned, ceiling: CANDIDATE_CEILING, holdersRanking };
    },
  };
}
