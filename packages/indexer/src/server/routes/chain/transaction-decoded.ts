import { defineRoute, single } from '../../route.js';
import { Address, Hash, Nullable, Obj, ReasonOf, Single } from '../../schemas.js';
import { DecodedCall } from './schemas.js';

/**
 * GET /transactions/{hash}/decoded: the transaction's calldata decoded by the hand-written
 * decoders (ERC-20, WETH, Uniswap V2/V3 routers and position manager, V4 test routers, the
 * launchpad) or a verified ABI; otherwise `{status: unknown, reason, selector}`.
 */
export const transactionDecodedRoute = defineRoute({
  id: 'chain.transactionDecoded',
  method: 'GET',
  path: '/transactions/{hash}/decoded',
  scope: 'read',
  group: 'Chain',
  summary:
    'Decoded calldata: {status: decoded, function, signature, selector, decoder, args} (hand-written decoders or verified_abi:<name>; multicall inner calls in args.calls) or {status: unknown, reason (empty_calldata, no_decoder_for_selector, calldata_does_not_match_abi, contract_creation), selector}.',
  params: { hash: Hash },
  response: Single(
    Obj({
      transactionHash: Hash,
      to: Nullable(Address, 'callee (lowercase); null for a contract creation'),
      toReason: ReasonOf(['contract_creation']),
      decoded: DecodedCall,
    }),
  ),
  requires: ['decoded_views'],
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const { decoded, ...tx } = ctx.readers.chain.decodedCalldata(
      ctx.view,
      ctx.anchor.number,
      ctx.params.hash,
    );
    return single(ctx.anchor, `${JSON.stringify(tx).slice(0, -1)},"decoded":${decoded}}`);
  },
});
