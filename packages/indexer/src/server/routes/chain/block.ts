import { recordSingle } from '../../record-cache.js';
import { defineRoute } from '../../route.js';
import { BlockNumber, Single } from '../../schemas.js';
import { BlockHeader } from './schemas.js';

/** GET /blocks/{number}: the canonical header as the node sent it (eth_getBlockByNumber, hashes only). */
export const blockRoute = defineRoute({
  id: 'chain.block',
  cached: true,
  method: 'GET',
  path: '/blocks/{number}',
  scope: 'read',
  group: 'Chain',
  summary: 'Canonical block header by number (byte-exact node record; transactions as hashes).',
  params: { number: BlockNumber },
  response: Single(BlockHeader),
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const n = Number(ctx.params.number);
    return recordSingle(ctx.anchor, ctx.readers.chain.header(ctx.view, ctx.anchor.number, n), n);
  },
});
