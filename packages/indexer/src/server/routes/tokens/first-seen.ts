import { singleRoute } from '../../route-shapes.js';
import { Address, Obj } from '../../schemas.js';
import { TOKENS } from './common.js';
import { FirstSeen } from './schemas.js';

/** GET /tokens/{address}/first-seen: the first-observed coordinate and its evidence class. */
export const tokenFirstSeenRoute = singleRoute({
  id: 'tokens.firstSeen',
  path: '/tokens/{address}/first-seen',
  scope: 'read',
  group: 'Tokens',
  summary:
    'First-observed coordinate and evidence class (top_level_creation, launch_event, transfer_log, weth_deposit).',
  params: { address: Address },
  data: Obj({ token: Address, ...FirstSeen.properties }),
  errors: ['not_found'],
  requires: [TOKENS],
  read(ctx) {
    const t = ctx.readers.tokens.token(ctx.view, ctx.params.address, ctx.anchor.number);
    return { token: t.address, ...t.firstSeen };
  },
});
