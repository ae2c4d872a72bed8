import { Type } from '@sinclair/typebox';
import { l1GasOfRaw } from '../../../chain/l1-gas.js';
import { receiptKey } from '../../../storage/tables.js';
import { defineRoute, single } from '../../route.js';
import { Hash, RawRecord, Single } from '../../schemas.js';
import { txAt } from './lookup.js';

/**
 * GET /transactions/{hash}/receipt: the receipt byte-exact as the node sent it
 * (eth_getBlockReceipts), plus the chain-specific L1 gas accounting normalised to decimal strings.
 */
export const receiptRoute = defineRoute({
  id: 'chain.receipt',
  method: 'GET',
  path: '/transactions/{hash}/receipt',
  scope: 'read',
  group: 'Chain',
  summary:
    'Receipt (byte-exact) with normalised L1 gas accounting (OP Stack, Arbitrum; null with a reason elsewhere).',
  params: { hash: Hash },
  response: Single(
    Type.Object({
      receipt: RawRecord('receipt as returned by eth_getTransactionReceipt'),
      l1Gas: Type.Union([Type.Object({ kind: Type.String() }, { additionalProperties: true }), Type.Null()]),
      l1GasReason: Type.Union([
        Type.Literal('not_an_l2_receipt'),
        Type.Literal('op_stack_deposit_transaction'),
        Type.Null(),
      ]),
    }),
  ),
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const loc = txAt(ctx.chain.store, ctx.anchor, ctx.params.hash);
    const raw = ctx.chain.store.rocks.get(receiptKey(loc.number, loc.txIndex))!.toString();
    const { l1Gas, l1GasReason } = l1GasOfRaw(raw);
    return single(
      ctx.anchor,
      `{"receipt":${raw},"l1Gas":${JSON.stringify(l1Gas)},"l1GasReason":${JSON.stringify(l1GasReason)}}`,
    );
  },
});
