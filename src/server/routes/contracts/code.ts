import { Type } from '@sinclair/typebox';
import { type Hex, keccak256 } from 'viem';
import { ApiError } from '../../errors.js';
import { defineRoute } from '../../route.js';
import { Address, Anchor, Hash } from '../../schemas.js';
import { guard } from '../rpc/observe.js';

/**
 * GET /contracts/{address}/code?block=N: the block-bound runtime code observation — code hash and
 * size of `address` at canonical block N (default: the anchor block), read from the node with
 * `eth_getCode(address, N)` and bound to the canonical hash of N from the index.
 */
export const contractCodeRoute = defineRoute({
  id: 'contracts.code',
  method: 'GET',
  path: '/contracts/{address}/code',
  scope: 'read',
  group: 'Contracts',
  summary:
    'Runtime code observation at a canonical block (default: the anchor): codeHash (keccak256) and codeSize, or null with reason no_code. Read from the node at that block number; 503 when the node has pruned that state.',
  params: { address: Address },
  query: {
    block: Type.Optional(Type.Integer({ minimum: 0, description: 'canonical block number ≤ anchor' })),
  },
  response: Type.Object({
    anchor: Anchor,
    data: Type.Object({
      address: Address,
      observedAt: Anchor,
      isContract: Type.Boolean(),
      codeHash: Type.Union([Hash, Type.Null()]),
      codeHashReason: Type.Union([Type.Literal('no_code'), Type.Null()]),
      codeSize: Type.Integer(),
    }),
  }),
  errors: ['bad_request', 'not_found', 'node_unavailable'],
  anchored: true,
  kind: 'node',
  async handler(ctx) {
    const anchor = ctx.anchor;
    const n = ctx.query.block ?? anchor.number;
    const hash = n <= anchor.number ? ctx.chain.store.canonicalHash(n) : undefined;
    if (!hash)
      throw new ApiError('not_found', `block ${n} is not canonical at the anchored block ${anchor.number}`);
    const a = ctx.params.address.toLowerCase();
    const code = await guard(ctx.chain.rpc.call<Hex>('eth_getCode', [a, `0x${n.toString(16)}`]));
    const has = code !== '0x';
    return {
      json: `{"anchor":{"block":${anchor.number},"hash":"${anchor.hash}"},"data":{"address":"${a}","observedAt":{"block":${n},"hash":"${hash}"},"isContract":${has},"codeHash":${has ? `"${keccak256(code)}"` : 'null'},"codeHashReason":${has ? 'null' : '"no_code"'},"codeSize":${(code.length - 2) / 2}}}`,
    };
  },
});
