import { defineRoute, single } from '../../route.js';
import { Hash, Single } from '../../schemas.js';
import { BlockHeader } from './schemas.js';

/** GET /blocks/by-hash/{hash}: canonical header by hash; a non-canonical (reorged) hash is 404. */
export const blockByHashRoute = defineRoute({
  id: 'chain.blockByHash',
  method: 'GET',
  path: '/blocks/by-hash/{hash}',
  scope: 'read',
  group: 'Chain',
  summary: 'Canonical block header by hash (byte-exact node record); hashes of reorged blocks answer 404.',
  params: { hash: Hash },
  response: Single(BlockHeader),
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    return single(ctx.anchor, ctx.readers.chain.headerByHash(ctx.view, ctx.anchor.number, ctx.params.hash));
  },
});
