/**
 * Pool lists as of an anchor: the new-pools feed (creation coordinate), pools by currency (pool-key
 * order) and the bounded pool search anchored on a currency.
 */

import { DomainError } from '../errors/index.js';
import { POOLS_BY_CURRENCY, POOLS_NEW } from '../schema/cursors.js';
import type { PoolRow, Protocol } from '../schema/rows/markets.js';
import { POOL_BY_COORD, POOL_BY_CURRENCY } from '../schema/tables/markets.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import { poolAt } from './read.js';

type Hex = `0x${string}`;

/** Registered pools newest first (or oldest first) by creation coordinate. Resume key: (block, logIndex, poolKey). */
export function walkNewPools(view: View, page: PageQuery, sink: PageSink<PoolRow>): void {
  view.each(
    POOL_BY_COORD,
    {
      lte: [page.at],
      reverse: page.order === 'desc',
      resume: { under: [], suffix: page.after },
    },
    (_v, [, , key], raw) => {
      const p = poolAt(view, key, page.at);
      return p ? sink(p, POOLS_NEW.tail(raw)) : true;
    },
  );
}

/**
 * Visits the pools holding `currency` (either side) registered at `at`, in pool-key order (the
 * page's order), resuming after `after` (the pool key); `visit` returns false to stop.
 */
function eachCurrencyPool(
  view: View,
  currency: string,
  walk: { at: number; reverse: boolean; after: Buffer | null },
  visit: (p: PoolRow | null, resume: Buffer) => boolean,
): void {
  const c = currency.toLowerCase() as Hex;
  view.each(
    POOL_BY_CURRENCY,
    {
      prefix: [c],
      reverse: walk.reverse,
      resume: { under: [c], suffix: walk.after },
    },
    (_v, [, key], raw) => visit(poolAt(view, key, walk.at), POOLS_BY_CURRENCY.tail(raw)),
  );
}

/** Pools holding `currency` on either side, pool-key order. Resume key: the pool key. */
export function walkCurrencyPools(
  view: View,
  currency: string,
  page: PageQuery,
  sink: PageSink<PoolRow>,
): void {
  eachCurrencyPool(
    view,
    currency,
    { at: page.at, reverse: page.order === 'desc', after: page.after },
    (p, resume) => (p ? sink(p, resume) : true),
  );
}

/** The pools of `token` against `currency`, pool-key order, within `members` (the token's membership). */
export function walkTokenPoolsByCurrency(
  view: View,
  token: string,
  currency: string,
  members: PoolRow[],
  page: PageQuery,
  sink: PageSink<PoolRow>,
): void {
  const c = currency.toLowerCase();
  const keep = new Map(
    members.filter((p) => (p.currency0 === token ? p.currency1 : p.currency0) === c).map((p) => [p.key, p]),
  );
  eachCurrencyPool(
    view,
    token,
    { at: page.at, reverse: page.order === 'desc', after: page.after },
    (p, resume) => {
      const m = p && keep.get(p.key);
      return m ? sink(m, resume) : true;
    },
  );
}

/** Pools examined by one search walk at most. */
export const SEARCH_SCAN_CEILING = 5_000;

/** A pool search: an anchor currency (token, else quote), the other side, and refinements. */
export interface PoolSearch {
  token?: string;
  quote?: string;
  fee_tier?: number;
  protocol?: Protocol;
  created_from?: number;
  created_to?: number;
  allowScan?: boolean;
  sort?: string;
  factory?: string;
}

/**
 * Validates a search (refusals in the documented order) and returns its anchor currency.
 * @throws DomainError bad_request (factory, sort=liquidity, unknown sort, no anchor, refinements
 * without allowScan), projection_unavailable (sort=volume_24h needs the market window index).
 */
export function searchAnchor(q: PoolSearch): { anchor: string; other: string | null } {
  if (q.factory !== undefined)
    throw new DomainError(
      'bad_request',
      'factory is not a search parameter (pools are registered per configured factory)',
    );
  const sort = q.sort ?? 'pool_identity';
  if (sort === 'liquidity')
    throw new DomainError(
      'bad_request',
      'sort=liquidity is refused: V2 and concentrated liquidity are not comparable',
    );
  if (sort === 'volume_24h') {
    if (!q.token) throw new DomainError('bad_request', 'sort=volume_24h requires token');
    throw new DomainError(
      'projection_unavailable',
      'sort=volume_24h needs the market window index, not built in this version',
      { projection: 'market_windows', status: 'disabled' },
    );
  }
  if (sort !== 'pool_identity')
    throw new DomainError('bad_request', `unknown sort "${sort}" (pool_identity, volume_24h)`);
  if (!q.token && !q.quote)
    throw new DomainError('bad_request', 'token or quote is required as the search anchor');
  const refined =
    q.fee_tier !== undefined ||
    q.protocol !== undefined ||
    q.created_from !== undefined ||
    q.created_to !== undefined;
  if (refined && !q.allowScan)
    throw new DomainError(
      'bad_request',
      'refinements filter the anchored walk and examine rows they do not return: pass allowScan=true',
    );
  return {
    anchor: (q.token ?? q.quote)!.toLowerCase(),
    other: q.token && q.quote ? q.quote.toLowerCase() : null,
  };
}

/**
 * The search walk in pool-identity order over the anchor currency's pools.
 * @throws DomainError query_too_broad past {@link SEARCH_SCAN_CEILING} examined pools.
 */
export function walkSearch(
  view: View,
  q: PoolSearch,
  page: PageQuery,
  sink: PageSink<PoolRow>,
): { anchorCurrency: string; scanned: number } {
  const { anchor, other } = searchAnchor(q);
  let scanned = 0;
  eachCurrencyPool(view, anchor, { at: page.at, reverse: false, after: page.after }, (p, resume) => {
    if (++scanned > SEARCH_SCAN_CEILING)
      throw new DomainError(
        'query_too_broad',
        `the search examined more than ${SEARCH_SCAN_CEILING} pools; add token and quote`,
      );
    if (!p) return true;
    if (other && p.currency0 !== other && p.currency1 !== other) return true;
    if (q.fee_tier !== undefined && p.fee !== q.fee_tier) return true;
    if (q.protocol && p.protocol !== q.protocol) return true;
    if (q.created_from !== undefined && p.created.block < q.created_from) return true;
    if (q.created_to !== undefined && p.created.block > q.created_to) return true;
    return sink(p, resume);
  });
  return { anchorCurrency: anchor, scanned };
}
