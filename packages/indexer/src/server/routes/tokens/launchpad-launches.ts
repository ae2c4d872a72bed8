import { Type } from '@sinclair/typebox';
import { TOKEN_PAD_LAUNCHES } from '../../../schema/cursors.js';
import { pagedRoute } from '../../route-shapes.js';
import { pageQuery } from '../../schemas.js';
import { TOKENS } from './common.js';
import { Launch } from './schemas.js';

/** GET /launchpads/{pad}/launches: a pad's launches in chain order, state as of the anchor. */
export const launchpadLaunchesRoute = pagedRoute({
  id: 'tokens.launchpadLaunches',
  cursor: TOKEN_PAD_LAUNCHES,
  path: '/launchpads/{pad}/launches',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Launches of a registered pad in chain-coordinate order (oldest first; order=desc newest first), with state as of the anchor, normalised metadataUri/imageUri and imageProvenance.',
  params: {
    pad: Type.String({ pattern: '^[a-z0-9][a-z0-9_.-]{0,47}$', description: 'canonical launchpad name' }),
  },
  query: pageQuery(),
  row: Launch,
  extra: { orderedBy: Type.Literal('chain_coordinate') },
  errors: ['not_found'],
  requires: [TOKENS],
  subject: (ctx) => ctx.params.pad,
  walk(ctx, q, sink) {
    ctx.readers.tokens.padLaunches(ctx.view, ctx.params.pad, q, sink);
    return { orderedBy: 'chain_coordinate' };
  },
});
