import { readU64 } from '../../../storage/keys.js';
import { hashKey } from '../../../storage/tables.js';
import { ApiError } from '../../errors.js';
import { defineRoute, single } from '../../route.js';
import { Hash, RawRecord, Single } from '../../schemas.js';
import { headerAt } from './lookup.js';

/** GET /blocks/by-hash/{hash}: canonical header by hash; a non-canonical (reorged) hash is 404. */
export const blockByHashRoute = defineRoute({
  id: 'chain.blockByHash',
  method: 'GET',
  path: '/blocks/by-hash/{hash}',
  scope: 'read',
  group: 'Chain',
  summary: 'Canonical block header by hash; hashes of reorged blocks answer 404.',
  params: { hash: Hash },
  response: Single(RawRecord('block header as returned by eth_getBlockByHash(h, false)')),
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const v = ctx.chain.store.rocks.get(hashKey(ctx.params.hash.toLowerCase()));
    if (!v)
      throw new ApiError('not_found', `block ${ctx.params.hash} is not canonical at the anchored block`);
    return single(ctx.anchor, headerAt(ctx.chain.store, ctx.anchor, readU64(v, 0)).toString());
  },
});
