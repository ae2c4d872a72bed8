import { singleRoute } from '../../route-shapes.js';
import { Address } from '../../schemas.js';
import { TOKENS } from './common.js';
import { Launch } from './schemas.js';

/** GET /tokens/{address}/launch: the launch that created the token, state as of the anchor. */
export const tokenLaunchRoute = singleRoute({
  id: 'tokens.launch',
  path: '/tokens/{address}/launch',
  scope: 'read',
  group: 'Tokens',
  summary:
    'The launch that created the token: {launchpad, state (new|graduating|graduated), metadataUri, imageUri, imageProvenance, launchSequence, coordinates}; 404 when no registered launchpad launched it.' +
    ' As of a block: atBlock / atBlockHash (not_found before the token was first seen or launched; the launch = the token’s tokens.launch_history row at or below N, the row the token detail embeds at N, so its state and graduation coordinates are those of N).',
  params: { address: Address },
  data: Launch,
  errors: ['not_found'],
  requires: [TOKENS],
  asOf: true,
  read(ctx) {
    return ctx.readers.tokens.launchOf(ctx.view, ctx.params.address, ctx.anchor.number);
  },
});
