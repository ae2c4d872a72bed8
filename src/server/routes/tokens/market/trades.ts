import { Type } from '@sinclair/typebox';
import type { PoolRow, SwapRow } from '../../../../markets/model.js';
import { invert, ratJson, ratParse } from '../../../../markets/rational.js';
import { MarketTable, poolPrefix, swapKey } from '../../../../markets/tables.js';
import { counterOf, tokenIsBase } from '../../../../markets/venue.js';
import { KeyBuilder, prefixEnd, readU64 } from '../../../../storage/keys.js';
import { PageBuilder, pageRequest, walkRange } from '../../../page.js';
import { defineRoute, type Route } from '../../../route.js';
import { Address, OpenPaged, Paged, pageQuery, QuoteQuery, Window } from '../../../schemas.js';
import { marketOf, PAGED_MARKET_ERRORS, quoteOf, venueJson, venueOf } from './common.js';

/** Trade oriented for the token: side from the token's perspective, price quote per token. */
function tradeJson(p: PoolRow, token: string, s: SwapRow): Record<string, unknown> {
  const base = tokenIsBase(p, token);
  const price = base ? ratParse(s.price) : invert(ratParse(s.price));
  const amtToken = BigInt(base ? s.amount0 : s.amount1);
  const amtQuote = BigInt(base ? s.amount1 : s.amount0);
  return {
    block: s.block,
    timestamp: s.timestamp,
    txIndex: s.txIndex,
    logIndex: s.logIndex,
    txHash: s.txHash,
    pool: p.key,
    protocol: p.protocol,
    executor: s.origin,
    side: amtToken < 0n ? 'buy' : 'sell',
    amountToken: (amtToken < 0n ? -amtToken : amtToken).toString(),
    amountQuote: (amtQuote < 0n ? -amtQuote : amtQuote).toString(),
    ...ratJson(price),
  };
}

export const tokenSwapsRoute = defineRoute({
  id: 'tokens.swaps',
  method: 'GET',
  path: '/tokens/{address}/swaps',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Compact quote-policy trades of the token across its pools against the resolved quote (quote rule): side (token perspective), amountToken, amountQuote (base units), price (quote per token, rational), pool, executor (transaction origin), chain coordinates. Not the complete exact pool universe: other quotes are excluded by policy. PAGE.',
  params: { address: Address },
  query: { ...QuoteQuery, ...pageQuery() },
  response: OpenPaged(),
  errors: [...PAGED_MARKET_ERRORS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const address = ctx.params.address.toLowerCase();
    const req = pageRequest(ctx, `${this.id}:${address}:${ctx.query.quote ?? ''}`);
    const m = marketOf(ctx, req.anchor.number);
    const q = quoteOf(m, ctx.query.quote);
    const byKey = new Map(m.pools.pools.map((p) => [p.key, p]));
    const pre = new KeyBuilder(21).u8(MarketTable.TOKEN_SWAP).hex(address).done();
    const rocks = ctx.chain.store.rocks;
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k, v) => {
      const n = readU64(k, 21);
      if (n > req.anchor.number) return null;
      const p = byKey.get(`0x${v.toString('hex')}`);
      if (!p || counterOf(p, address) !== q.quote) return null;
      const s = rocks.get(swapKey(p.key, n, k.readUInt32BE(29)));
      return s
        ? [JSON.stringify(tradeJson(p, address, JSON.parse(s.toString()) as SwapRow)), k.subarray(21)]
        : null;
    }).finish(`"token":"${address}","quote":"${q.quote}","quoteResolution":"${q.how}"`);
  },
});

export const tokenTicksRoute = defineRoute({
  id: 'tokens.ticks',
  method: 'GET',
  path: '/tokens/{address}/ticks',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Per-trade ticks on the default venue (named), oriented quote per token, with transaction context. PAGE by (block, log index).',
  params: { address: Address },
  query: { ...QuoteQuery, ...pageQuery() },
  response: OpenPaged(),
  errors: [...PAGED_MARKET_ERRORS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const address = ctx.params.address.toLowerCase();
    const req = pageRequest(ctx, `${this.id}:${address}:${ctx.query.quote ?? ''}`);
    const m = marketOf(ctx, req.anchor.number);
    const q = quoteOf(m, ctx.query.quote);
    const v = venueOf(ctx, m, q.quote);
    const pre = poolPrefix(MarketTable.SWAP, v.pool.key);
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k, val) =>
      readU64(k, 53) > req.anchor.number
        ? null
        : [JSON.stringify(tradeJson(v.pool, address, JSON.parse(val.toString()) as SwapRow)), k.subarray(53)],
    ).finish(`"token":"${address}","quote":"${q.quote}","venue":${JSON.stringify(venueJson(v))}`);
  },
});

/** Swaps scanned for the traders route at most (bounded aggregate). */
const TRADERS_SCAN_LIMIT = 50_000;

export const tokenTradersRoute: Route = defineRoute({
  id: 'tokens.traders',
  method: 'GET',
  path: '/tokens/{address}/traders',
  scope: 'read',
  group: 'Tokens',
  summary: `Distinct traders (transaction origins) of the token against the resolved quote in a window (default 24h), ranked by quote volume desc: {trader, trades, buys, sells, volumeToken, volumeQuote}. Bounded: at most ${TRADERS_SCAN_LIMIT} swaps scanned (complete: false beyond). PAGE by rank.`,
  params: { address: Address },
  query: { ...QuoteQuery, window: Type.Optional(Window), ...pageQuery({ orders: ['desc'] }) },
  response: OpenPaged(),
  errors: [...PAGED_MARKET_ERRORS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const address = ctx.params.address.toLowerCase();
    const w = ctx.query.window ?? '24h';
    const req = pageRequest(ctx, `${this.id}:${address}:${ctx.query.quote ?? ''}:${w}`, { order: 'desc' });
    const m = marketOf(ctx, req.anchor.number);
    const q = quoteOf(m, ctx.query.quote);
    const secs = { '5m': 300, '1h': 3600, '4h': 14400, '24h': 86400 }[w as '5m' | '1h' | '4h' | '24h'];
    const byKey = new Map(m.pools.pools.map((p) => [p.key, p]));
    const agg = new Map<string, { trades: number; buys: number; sells: number; vt: bigint; vq: bigint }>();
    let scanned = 0;
    let complete = true;
    const rocks = ctx.chain.store.rocks;
    const pre = new KeyBuilder(21).u8(MarketTable.TOKEN_SWAP).hex(address).done();
    rocks.each({ gte: pre, lt: prefixEnd(pre), reverse: true }, (k, v) => {
      const n = readU64(k, 21);
      if (n > req.anchor.number) return true;
      if (++scanned > TRADERS_SCAN_LIMIT) {
        complete = false;
        return false;
      }
      const p = byKey.get(`0x${v.toString('hex')}`);
      if (!p || counterOf(p, address) !== q.quote) return true;
      const raw = rocks.get(swapKey(p.key, n, k.readUInt32BE(29)));
      if (!raw) return true;
      const s = JSON.parse(raw.toString()) as SwapRow;
      if (s.timestamp <= m.anchorTs - secs) return false;
      const t = tradeJson(p, address, s);
      const a = agg.get(s.origin) ?? { trades: 0, buys: 0, sells: 0, vt: 0n, vq: 0n };
      a.trades++;
      if (t.side === 'buy') a.buys++;
      else a.sells++;
      a.vt += BigInt(t.amountToken as string);
      a.vq += BigInt(t.amountQuote as string);
      agg.set(s.origin, a);
      return true;
    });
    const ranked = [...agg.entries()].sort((x, y) =>
      y[1].vq > x[1].vq ? 1 : y[1].vq < x[1].vq ? -1 : x[0] < y[0] ? -1 : 1,
    );
    const start = req.after ? req.after.readUInt32BE(0) : 0;
    const b = new PageBuilder(ctx, req);
    for (let i = start; i < ranked.length; i++) {
      const [trader, a] = ranked[i];
      const key = Buffer.alloc(4);
      key.writeUInt32BE(i + 1);
      const row = {
        rank: i + 1,
        trader,
        trades: a.trades,
        buys: a.buys,
        sells: a.sells,
        volumeToken: a.vt.toString(),
        volumeQuote: a.vq.toString(),
      };
      if (!b.push(JSON.stringify(row), key)) break;
    }
    return b.finish(
      `"token":"${address}","quote":"${q.quote}","window":"${w}","distinctTraders":{"lowerBound":${agg.size},"exact":${complete}},"swapsScanned":${Math.min(scanned, TRADERS_SCAN_LIMIT)}`,
    );
  },
});
