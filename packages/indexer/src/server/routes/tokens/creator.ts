import { Type } from '@sinclair/typebox';
import { singleRoute } from '../../route-shapes.js';
import { Address, Nullable, Obj } from '../../schemas.js';
import { TOKENS } from './common.js';
import { Creation } from './schemas.js';

/** GET /tokens/{address}/creator: deployer and creation coordinate (null with a reason when unobserved). */
export const tokenCreatorRoute = singleRoute({
  id: 'tokens.creator',
  path: '/tokens/{address}/creator',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Deployer address and creation coordinate (block, txIndex, txHash; via transaction or launchpad factory); null with creationReason when not observed.',
  params: { address: Address },
  data: Obj({
    token: Address,
    deployer: Nullable(Address, 'see creationReason'),
    creation: Nullable(Creation, 'see creationReason'),
    creationReason: Nullable(Type.Literal('creation_not_observed')),
  }),
  errors: ['not_found'],
  requires: [TOKENS],
  read(ctx) {
    const t = ctx.readers.tokens.token(ctx.view, ctx.params.address, ctx.anchor.number);
    return {
      token: t.address,
      deployer: t.creation?.deployer ?? null,
      creation: t.creation,
      creationReason: t.creationReason,
    };
  },
});
