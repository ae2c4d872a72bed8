import { Type } from '@sinclair/typebox';
import { defineRoute, single } from '../../route.js';
import { Address, Single } from '../../schemas.js';
import { tokenOr404 } from './common.js';

/** GET /tokens/{address}/creator: deployer and creation coordinate (receipt or launch event). */
export const tokenCreatorRoute = defineRoute({
  id: 'tokens.creator',
  method: 'GET',
  path: '/tokens/{address}/creator',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Deployer address and creation coordinate (block, txIndex, txHash; via transaction or launchpad factory); null with creationReason when not observed.',
  params: { address: Address },
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['not_found', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const t = tokenOr404(ctx);
    return single(
      ctx.anchor,
      JSON.stringify({
        token: t.address,
        deployer: t.creation?.deployer ?? null,
        creation: t.creation,
        creationReason: t.creationReason,
      }),
    );
  },
});
