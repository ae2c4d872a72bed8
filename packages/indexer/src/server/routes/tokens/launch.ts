import { defineRoute, single } from '../../route.js';
import { Address, Single } from '../../schemas.js';
import { TOKENS } from './common.js';
import { Launch } from './schemas.js';

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
  response: Single(Launch),
  errors: ['not_found'],
  requires: [TOKENS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    return single(
      ctx.anchor,
      JSON.stringify(ctx.readers.tokens.launchOf(ctx.view, ctx.params.address, ctx.anchor.number)),
    );
  },
});
