import { Type } from '@sinclair/typebox';
import { defineRoute, single } from '../../route.js';
import { Address, Hash, Nullable, Obj, ReasonOf, Single } from '../../schemas.js';

/**
 * GET /contracts/{address}/code?block=N: the block-bound runtime code observation — code hash and
 * size of `address` at canonical block N (default: the anchor block), read from the node with
 * `eth_getCode(address, {blockHash})` pinned to the canonical hash of N from the index.
 */
export const contractCodeRoute = defineRoute({
  id: 'contracts.code',
  method: 'GET',
  path: '/contracts/{address}/code',
  scope: 'read',
  group: 'Contracts',
  summary:
    'Runtime code observation at a canonical block of the index (default: the anchor): codeHash (keccak256) and codeSize, or null with reason no_code. Read from the node at that block by hash; 503 node_unavailable when the node cannot answer (pruned state).',
  params: { address: Address },
  query: {
    block: Type.Optional(Type.Integer({ minimum: 0, description: 'canonical block number ≤ anchor' })),
  },
  response: Single(
    Obj({
      address: Address,
      observedAt: Obj(
        { block: Type.Integer({ minimum: 0 }), hash: Hash },
        { description: 'the canonical block of the index the code was read at (by hash)' },
      ),
      isContract: Type.Boolean({ description: 'whether runtime code exists at the address at that block' }),
      codeHash: Nullable(Hash, 'keccak256 of the runtime code'),
      codeHashReason: ReasonOf(['no_code']),
      codeSize: Type.Integer({ minimum: 0, description: 'runtime code size, bytes' }),
    }),
  ),
  errors: ['not_found', 'node_unavailable'],
  anchored: true,
  kind: 'node',
  async handler(ctx) {
    const anchor = ctx.anchor;
    const n = ctx.query.block ?? anchor.number;
    // The canonical hash of N is read from the view before the first await (see LiveReader.codeAt).
    const o = await ctx.readers.chain.live.codeAt(ctx.view, anchor.number, ctx.params.address, n);
    const observedAt = { block: o.observedAt.number, hash: o.observedAt.hash };
    return single(anchor, JSON.stringify({ ...o, observedAt }));
  },
});
