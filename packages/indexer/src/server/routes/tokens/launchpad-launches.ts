import { Type } from '@sinclair/typebox';
import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Paged, pageQuery } from '../../schemas.js';
import { TOKENS } from './common.js';
import { Launch } from './schemas.js';

/** GET /launchpads/{pad}/launches: a pad's launches in chain order, state as of the anchor. */
export const launchpadLaunchesRoute = defineRoute({
  id: 'tokens.launchpadLaunches',
  method: 'GET',
  path: '/launchpads/{pad}/launches',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Launches of a registered pad in chain-coordinate order (oldest first; order=desc newest first), with state as of the anchor, normalised metadataUri/imageUri and imageProvenance.',
  params: {
    pad: Type.String({ pattern: '^[a-z0-9][a-z0-9_.-]{0,47}$', description: 'canonical launchpad name' }),
  },
  query: pageQuery(),
  response: Paged(Launch, { orderedBy: Type.Literal('chain_coordinate') }),
  errors: ['not_found'],
  requires: [TOKENS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    return paged(ctx, `${this.id}:${ctx.params.pad}`, (q, sink) => {
      ctx.readers.tokens.padLaunches(ctx.view, ctx.params.pad, q, sink);
      return { orderedBy: 'chain_coordinate' };
    });
  },
});
