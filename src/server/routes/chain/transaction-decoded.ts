import { Type } from '@sinclair/typebox';
import { decodedTxKey } from '../../../chain/decoded-views.js';
import { txKey } from '../../../storage/tables.js';
import { requireProjection } from '../../projections.js';
import { defineRoute, single } from '../../route.js';
import { Hash, Single } from '../../schemas.js';
import { DECODED } from './decoded-common.js';
import { txAt } from './lookup.js';

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
    Type.Object({
      transactionHash: Hash,
      to: Type.Union([Type.String(), Type.Null()]),
      decoded: Type.Object({}, { additionalProperties: true }),
    }),
  ),
  errors: ['not_found', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    requireProjection(ctx.chain, DECODED);
    const loc = txAt(ctx.chain.store, ctx.anchor, ctx.params.hash);
    const rocks = ctx.chain.store.rocks;
    const tx = JSON.parse(rocks.get(txKey(loc.number, loc.txIndex))!.toString()) as {
      hash: string;
      to: string | null;
    };
    const d = rocks.get(decodedTxKey(loc.number, loc.txIndex));
    return single(
      ctx.anchor,
      `{"transactionHash":"${tx.hash}","to":${tx.to ? `"${tx.to.toLowerCase()}"` : 'null'},"decoded":${d ? d.toString() : '{"status":"unknown","reason":"not_decoded","selector":null}'}}`,
    );
  },
});
