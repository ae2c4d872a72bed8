import { Type } from '@sinclair/typebox';
import { txKey } from '../../../storage/tables.js';
import { defineRoute, single } from '../../route.js';
import { Address, Amount, Hash, RawRecord, Single } from '../../schemas.js';
import { txAt } from './lookup.js';

/**
 * GET /transactions/{hash}: the envelope byte-exact as the node sent it, plus origin fields.
 * On this service origin comes from the envelope itself (`from` recovered by the node), so
 * `originCoverage` is `full` and `fromReason` null for every indexed transaction.
 */
export const transactionRoute = defineRoute({
  id: 'chain.transaction',
  method: 'GET',
  path: '/transactions/{hash}',
  scope: 'read',
  group: 'Chain',
  summary: 'Transaction envelope (byte-exact) with block coordinate and origin fields from, to, value.',
  params: { hash: Hash },
  response: Single(
    Type.Object({
      transaction: RawRecord('transaction as returned by eth_getTransactionByHash'),
      blockNumber: Type.Integer(),
      transactionIndex: Type.Integer(),
      from: Type.Union([Address, Type.Null()]),
      fromReason: Type.Union([
        Type.Literal('coverage_unavailable'),
        Type.Literal('outside_coverage'),
        Type.Literal('unrecoverable'),
        Type.Null(),
      ]),
      to: Type.Union([Address, Type.Null()], { description: 'null for a contract creation' }),
      toReason: Type.Union([Type.Literal('contract_creation'), Type.Null()]),
      value: Amount,
      originCoverage: Type.Literal('full'),
    }),
  ),
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const loc = txAt(ctx.chain.store, ctx.anchor, ctx.params.hash);
    const raw = ctx.chain.store.rocks.get(txKey(loc.number, loc.txIndex))!.toString();
    const tx = JSON.parse(raw) as { from: string; to: string | null; value: string };
    const to = tx.to ? `"${tx.to.toLowerCase()}"` : 'null';
    return single(
      ctx.anchor,
      `{"transaction":${raw},"blockNumber":${loc.number},"transactionIndex":${loc.txIndex},"from":"${tx.from.toLowerCase()}","fromReason":null,"to":${to},"toReason":${tx.to ? 'null' : '"contract_creation"'},"value":"${BigInt(tx.value).toString()}","originCoverage":"full"}`,
    );
  },
});
