import { Type } from '@sinclair/typebox';
import { anchorJson, defineRoute } from '../../route.js';
import { Anchor, Obj } from '../../schemas.js';
import { TOKENS } from './common.js';
import { TokenListRow } from './schemas.js';

const RANKING_RULE =
  'matchClass (1 exact symbol, 2 exact name, 3 address prefix, 4 symbol prefix, 5 name prefix), then confirmed ERC-20 first, then older first-seen coordinate';

/** GET /tokens/search: one ranked page of tokens matching a symbol, name or address prefix. */
export const tokensSearchRoute = defineRoute({
  id: 'tokens.search',
  method: 'GET',
  cached: true,
  path: '/tokens/search',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Search by symbol, name or 0x-address prefix. Rank: 1 exact symbol, 2 exact name, 3 address prefix, 4 symbol prefix, 5 name prefix (case-insensitive); then confirmed ERC-20 first; then older first-seen coordinate. Each row carries matchClass. Single page (limit ≤ 100).',
  query: {
    q: Type.String({ minLength: 1, maxLength: 64, description: 'name, symbol or 0x-address prefix' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  response: Obj({
    anchor: Anchor,
    data: Type.Array(
      Obj({ matchClass: Type.Integer({ minimum: 1, maximum: 5 }), ...TokenListRow.properties }),
    ),
    query: Type.String({ description: 'the query, lowercased' }),
    rankingRule: Type.Literal(RANKING_RULE),
    truncated: Type.Boolean({ description: 'more tokens matched than the limit' }),
  }),
  errors: ['bad_request'],
  requires: [TOKENS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const q = ctx.query.q.toLowerCase();
    const { rows, truncated } = ctx.readers.tokens.search(
      ctx.view,
      q,
      ctx.anchor.number,
      ctx.query.limit ?? 20,
    );
    return {
      json: `{"anchor":${anchorJson(ctx.anchor)},"data":${JSON.stringify(rows)},"query":${JSON.stringify(q)},"rankingRule":${JSON.stringify(RANKING_RULE)},"truncated":${truncated}}`,
    };
  },
});
