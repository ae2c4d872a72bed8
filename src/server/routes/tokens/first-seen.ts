import { Type } from '@sinclair/typebox';
import { defineRoute, single } from '../../route.js';
import { Address, Single } from '../../schemas.js';
import { tokenOr404 } from './common.js';

/**
 * GET /tokens/{address}/first-seen: first-observed coordinate and its evidence class:
 * `top_level_creation` (receipt contractAddress), `launch_event` (registered launchpad),
 * `transfer_log` (first ERC-20 Transfer) or `weth_deposit`.
 */
export const tokenFirstSeenRoute = defineRoute({
  id: 'tokens.firstSeen',
  method: 'GET',
  path: '/tokens/{address}/first-seen',
  scope: 'read',
  group: 'Tokens',
  summary:
    'First-observed coordinate and evidence class (top_level_creation, launch_event, transfer_log, weth_deposit).',
  params: { address: Address },
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['not_found', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const t = tokenOr404(ctx);
    return single(ctx.anchor, JSON.stringify({ token: t.address, ...t.firstSeen }));
  },
});
