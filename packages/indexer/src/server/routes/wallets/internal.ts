import { Type } from '@sinclair/typebox';
import { WALLET_INTERNAL } from '../../../schema/cursors.js';
import type { AddressInternalRow } from '../../../wallets/index.js';
import { type PageSink, Unpaged } from '../../page.js';
import { pagedRoute } from '../../route-shapes.js';
import { Address, Anchor, Enum, Nullable, Obj, PageInfo } from '../../schemas.js';
import { AddressInternal } from './schemas.js';

/**
 * GET /wallets/{address}/internal (PAGE, chain-coordinate order): internal value transfers and
 * contract creations the address took part in (as sender, recipient, creator or created), from
 * call-trace replay. Covers blocks up to the traces lane checkpoint, published as `coveredToBlock`;
 * `coverage: not_available` with a reason when the lane is off or the node cannot replay.
 */
export const walletInternalRoute = pagedRoute({
  id: 'wallets.internal',
  // Not cached: the answer depends on the traces lane's state (following, disabled, node without
  // debug_traceBlock), which changes without a write.
  cached: false,
  cursor: WALLET_INTERNAL,
  path: '/wallets/{address}/internal',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Internal value transfers and creations the address took part in (role: sender, recipient, creator, created), from callTracer replay (R10). Rows {block, txIndex, role, ordinal, from, to, value (wei), kind, effective, type}. coveredToBlock = traces lane checkpoint; coverage not_available (traces_disabled, node_lacks_debug_trace) when the lane cannot replay.',
  params: { address: Address },
  response: Type.Union([
    Obj(
      {
        anchor: Anchor,
        data: Type.Array(AddressInternal),
        page: PageInfo,
        wallet: Address,
        coverage: Type.Literal('retained'),
        coveredToBlock: Type.Integer({
          minimum: -1,
          description:
            'rows cover blocks up to here (the traces lane checkpoint, at most the anchor); -1: none yet',
        }),
      },
      { description: 'the traces lane follows the chain: one page of rows' },
    ),
    Obj(
      {
        anchor: Anchor,
        wallet: Address,
        coverage: Type.Literal('not_available'),
        reason: Enum(
          ['traces_disabled', 'node_lacks_debug_trace'],
          'traces_disabled: TRACES=off; node_lacks_debug_trace: the node has no debug_trace methods',
        ),
        detail: Nullable(Type.String(), 'the lane state message; null when there is none'),
        data: Type.Null({ description: 'null: nothing is replayed (see reason), never an empty list' }),
      },
      { description: 'the traces lane does not replay this chain' },
    ),
  ]),
  errors: ['bad_cursor', 'stale_cursor'],
  subject: (ctx) => ctx.params.address.toLowerCase(),
  walk(ctx, q, sink: PageSink<AddressInternalRow>) {
    const a = ctx.params.address.toLowerCase();
    const c = ctx.readers.wallets.internal(ctx.view, a, q, sink);
    if (c.coverage === 'not_available')
      return new Unpaged({ wallet: a, coverage: c.coverage, reason: c.reason, detail: c.detail, data: null });
    return { wallet: a, coverage: 'retained', coveredToBlock: c.coveredToBlock };
  },
});
