import { Type } from '@sinclair/typebox';
import type { Store } from '../../../storage/index.js';
import { readU64 } from '../../../storage/keys.js';
import { Table, timeKey } from '../../../storage/tables.js';
import { defineRoute, single } from '../../route.js';
import { Hash, Single } from '../../schemas.js';

const Bound = Type.Union([
  Type.Object({
    number: Type.Integer(),
    hash: Hash,
    timestamp: Type.Integer({ description: 'unix seconds' }),
  }),
  Type.Null(),
]);

const boundJson = (store: Store, key: Buffer | undefined): string => {
  if (!key) return 'null';
  const ts = readU64(key, 1);
  const n = readU64(key, 9);
  return `{"number":${n},"hash":"${store.canonicalHash(n)}","timestamp":${ts}}`;
};

/**
 * GET /blocks/at?timestamp=T: both named bounds of T against one snapshot — the last block with
 * timestamp ≤ T and the first block with timestamp ≥ T. A missing bound is null with a reason.
 */
export const blockAtRoute = defineRoute({
  id: 'chain.blockAt',
  method: 'GET',
  path: '/blocks/at',
  scope: 'read',
  group: 'Chain',
  summary: 'Both named bounds of a timestamp: lastAtOrBefore and firstAtOrAfter, read at one anchor.',
  query: {
    timestamp: Type.Integer({ minimum: 0, maximum: 2 ** 53 - 1, description: 'unix seconds (required)' }),
  },
  response: Single(
    Type.Object({
      timestamp: Type.Integer(),
      lastAtOrBefore: Bound,
      lastAtOrBeforeReason: Type.Union([Type.Literal('before_first_indexed_block'), Type.Null()]),
      firstAtOrAfter: Bound,
      firstAtOrAfterReason: Type.Union([Type.Literal('after_anchor_block'), Type.Null()]),
    }),
  ),
  errors: ['bad_request'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const { store } = ctx.chain;
    const t = ctx.query.timestamp;
    const lo = Buffer.from([Table.TIME]);
    const hi = Buffer.from([Table.TIME + 1]);
    const anchor = ctx.anchor.number;
    let before: Buffer | undefined;
    store.rocks.each({ gte: lo, lte: timeKey(t, 2 ** 53 - 1), reverse: true }, (k) => {
      if (readU64(k, 9) > anchor) return true;
      before = Buffer.from(k);
      return false;
    });
    let after: Buffer | undefined;
    store.rocks.each({ gte: timeKey(t, 0), lt: hi }, (k) => {
      if (readU64(k, 9) > anchor) return false;
      after = Buffer.from(k);
      return false;
    });
    return single(
      ctx.anchor,
      `{"timestamp":${t},"lastAtOrBefore":${boundJson(store, before)},"lastAtOrBeforeReason":${before ? 'null' : '"before_first_indexed_block"'},"firstAtOrAfter":${boundJson(store, after)},"firstAtOrAfterReason":${after ? 'null' : '"after_anchor_block"'}}`,
    );
  },
});
