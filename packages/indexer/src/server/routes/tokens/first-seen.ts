import { defineRoute, single } from '../../route.js';
import { Address, Obj, Single } from '../../schemas.js';
import { TOKENS } from './common.js';
import { FirstSeen } from './schemas.js';

/** GET /tokens/{address}/first-seen: the first-observed coordinate and its evidence class. */
export const tokenFirstSeenRoute = defineRoute({
  id: 'tokens.firstSeen',
  method: 'GET',
  path: '/tokens/{address}/first-seen',
  scope: 'read',
  group: 'Tokens',
  summary:
    'First-observed coordinate and evidence class (top_level_creation, launch_event, transfer_log, weth_deposit).',
  params: { address: Address },
  response: Single(Obj({ token: Address, ...FirstSeen.properties })),
  errors: ['not_found'],
  requires: [TOKENS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const t = ctx.readers.tokens.token(ctx.view, ctx.params.address, ctx.anchor.number);
    return single(ctx.anchor, JSON.stringify({ token: t.address, ...t.firstSeen }));
  },
});
