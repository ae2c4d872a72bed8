import { DomainError } from '../../../../errors/index.js';
import { statsBodyJson } from '../../../../markets/index.js';
import { singleRoute } from '../../../route-shapes.js';
import { Address, QuoteQuery } from '../../../schemas.js';
import { AS_OF_TOKEN, quoted, TOKEN_MARKET } from './common.js';
import { TokenStats } from './schemas.js';

export const tokenStatsRoute = singleRoute({
  id: 'tokens.stats',
  cached: true,
  path: '/tokens/{address}/stats',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Rolling 5m/1h/4h/24h statistics on the default venue: two-sided volume (volumeBase token, volumeQuote), buys, sells, distinctTraders {lowerBound, exact}, exact price change. Without quote and several quotes: the quote with the largest USD-markable 24h volume (configured USD stablecoins) is used and every candidate is published; quote_ambiguous (400) only when no quote has USD-markable volume.' +
    AS_OF_TOKEN,
  params: { address: Address },
  query: QuoteQuery,
  data: TokenStats,
  errors: ['bad_request', 'quote_ambiguous', 'not_found', 'quote_not_admitted'],
  requires: TOKEN_MARKET,
  asOf: true,
  read(ctx) {
    const s = ctx.readers.markets.tokenStats(...quoted(ctx));
    if (s.quote === null)
      throw new DomainError(
        'quote_ambiguous',
        'several quotes and none has USD-markable 24h volume: name one',
        {
          candidates: s.candidates,
        },
      );
    return statsBodyJson(s);
  },
});
