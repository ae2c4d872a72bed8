/**
 * Human units: token amounts in token units with their symbol, native amounts in ETH, rationals in
 * quote base units as quote units with the quote's symbol, USD as dollars. The exact figure the API
 * sent (base units, or the exact rational) stays one hover away in the element's `title`. Token
 * symbols and decimals come from `/tokens/{address}`, loaded once per chain and token.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, type Session } from './api.js';
import { NATIVE, quoteText, type TokenMeta, unitsText, usdText } from './format.js';

export type { TokenMeta } from './format.js';

/** The native currency of the chains the console serves (EVM: 18 decimals). */
export const NATIVE_META: TokenMeta = { symbol: 'ETH', decimals: 18 };

const cache = new Map<string, Promise<TokenMeta>>();

/** Symbol and decimals of `token` on `chain` (native: ETH, 18), cached for the page's life. */
export function tokenMeta(session: Session, chain: string, token: string): Promise<TokenMeta> {
  if (token.toLowerCase() === NATIVE) return Promise.resolve(NATIVE_META);
  const k = `${chain}:${token.toLowerCase()}`;
  let p = cache.get(k);
  if (!p) {
    p = api(session.key)
      .GET('/index/v1/{chain}/tokens/{address}', { params: { path: { chain, address: token } } })
      .then((r) => ({ symbol: r.data?.data.symbol ?? null, decimals: r.data?.data.decimals ?? null }))
      .catch(() => ({ symbol: null, decimals: null }));
    cache.set(k, p);
  }
  return p;
}

/** {@link tokenMeta} of each of `tokens` as a hook: a map address → meta, filled as they load. */
export function useTokenMetas(session: Session, chain: string, tokens: string[]): Map<string, TokenMeta> {
  const [m, setM] = useState(new Map<string, TokenMeta>());
  const key = [...new Set(tokens.map((t) => t.toLowerCase()))].sort().join(',');
  useEffect(() => {
    let live = true;
    const list = key ? key.split(',') : [];
    Promise.all(list.map(async (t) => [t, await tokenMeta(session, chain, t)] as const)).then((xs) => {
      if (live) setM(new Map(xs));
    });
    return () => {
      live = false;
    };
  }, [chain, key]);
  return m;
}

/** A base-unit amount in token units with its symbol; the base units one hover away. */
export function Units(p: { raw: string; meta: TokenMeta | null | undefined; testid?: string }) {
  return (
    <span class="num" title={`${p.raw} base units`} data-testid={p.testid} data-raw={p.raw}>
      {unitsText(p.raw, p.meta)}
    </span>
  );
}

/** A numeric table cell of {@link Units}. */
export function UnitsCell(p: { raw: string; meta: TokenMeta | null | undefined }) {
  return (
    <td class="num">
      <Units raw={p.raw} meta={p.meta} />
    </td>
  );
}

/** An exact rational in quote base units shown in quote units; the exact rational in the title. */
export function QuoteUnits(p: { n: string; d: string; meta: TokenMeta | null | undefined; testid?: string }) {
  return (
    <span class="num" title={`${p.n}/${p.d} quote base units (exact)`} data-testid={p.testid}>
      {quoteText(p.n, p.d, p.meta)}
    </span>
  );
}

/** A USD value in dollars; the exact rational and the API's 12-digit decimal one hover away. */
export function Usd(p: { n: string; d: string; approx?: { decimal: string }; testid?: string }) {
  return (
    <span
      class="num"
      title={`${p.n}/${p.d} USD (exact)${p.approx ? ` ≈ ${p.approx.decimal}` : ''}`}
      data-testid={p.testid}
    >
      {usdText(p.n, p.d)}
    </span>
  );
}
