import { DomainError } from '../../../../errors/index.js';
import { statsBodyJson } from '../../../../markets/index.js';
import { defineRoute, single } from '../../../route.js';
import { Address, QuoteQuery, Single } from '../../../schemas.js';
import { TOKEN_MARKET } from './common.js';
import { TokenStats } from './schemas.js';

export const tokenStatsRoute = defineRoute({
  id: 'tokens.stats',
  cached: true,
  method: 'GET',
  path: '/tokens/{address}/stats',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Rolling 5m/1h/4h/24h statistics on the default venue: two-sided volume (volumeBase token, volumeQuote), buys, sells, distinctTraders {lowerBound, exact}, exact price change. Without quote and several quotes: the quote with the largest USD-markable 24h volume (configured USD stablecoins) is used and every candidate is published; quote_ambiguous (400) only when no quote has USD-markable volume.',
  params: { address: Address },
  query: QuoteQuery,
  response: Single(TokenStats),
  errors: ['bad_request', 'quote_ambiguous', 'not_found', 'quote_not_admitted'],
  requires: TOKEN_MARKET,
  batchable: true,
  anchored: true,
  handler(ctx) {
    const s = ctx.readers.markets.tokenStats(
      ctx.view,
      ctx.params.address,
      ctx.query.quote,
      ctx.anchor.number,
    );
    if (s.quote === null)
      throw new DomainError(
        'quote_ambiguous',
        'several quotes and none has USD-markable 24h volume: name one',
        {
          candidates: s.candidates,
        },
      );
    return single(ctx.anchor, JSON.stringify(statsBodyJson(s)));
  },
});
