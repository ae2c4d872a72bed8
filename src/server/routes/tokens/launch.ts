import { Type } from '@sinclair/typebox';
import { launchAt } from '../../../tokens/read.js';
import { launchJson } from '../../../tokens/render.js';
import { ApiError } from '../../errors.js';
import { defineRoute, single } from '../../route.js';
import { Address, Single } from '../../schemas.js';
import { tokenOr404 } from './common.js';

/** GET /tokens/{address}/launch: the launch that created the token, state as of the anchor. */
export const tokenLaunchRoute = defineRoute({
  id: 'tokens.launch',
  method: 'GET',
  path: '/tokens/{address}/launch',
  scope: 'read',
  group: 'Tokens',
  summary:
    'The launch that created the token: {launchpad, state (new|graduating|graduated), metadataUri, imageUri, imageProvenance, launchSequence, coordinates}; 404 when no registered launchpad launched it.',
  params: { address: Address },
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['not_found', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const t = tokenOr404(ctx);
    const l = launchAt(ctx.view, t.address, ctx.anchor.number);
    if (!l) throw new ApiError('not_found', `token ${t.address} was not launched by a registered launchpad`);
    return single(ctx.anchor, JSON.stringify(launchJson(l)));
  },
});
