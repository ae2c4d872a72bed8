import { Type } from '@sinclair/typebox';
import { internalKey, TraceTable } from '../../../ingest/traces.js';
import { KeyBuilder, prefixEnd, readU64 } from '../../../storage/keys.js';
import { pageRequest, walkRange } from '../../page.js';
import { anchorJson, defineRoute } from '../../route.js';
import { Address, pageQuery } from '../../schemas.js';

const ROLES = ['', 'sender', 'recipient', 'creator', 'created'] as const;

/**
 * GET /wallets/{address}/internal (PAGE, chain-coordinate order): internal value transfers and
 * contract creations the address took part in (as sender, recipient, creator or created), from
 * call-trace replay. Covers blocks up to the traces lane checkpoint, published as `coveredToBlock`.
 */
export const walletInternalRoute = defineRoute({
  id: 'wallets.internal',
  method: 'GET',
  path: '/wallets/{address}/internal',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Internal value transfers and creations the address took part in (role: sender, recipient, creator, created), from callTracer replay (R10). Rows {block, txIndex, ordinal, role, from, to, value (wei), kind, effective, type}. coveredToBlock = traces lane checkpoint; coverage not_available when the node cannot replay.',
  params: { address: Address },
  query: pageQuery(),
  response: Type.Object({}, { additionalProperties: true }),
  errors: ['bad_cursor', 'stale_cursor'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const a = ctx.params.address.toLowerCase();
    const req = pageRequest(ctx, `${this.id}:${a}`);
    const lane = ctx.chain.traces.status();
    if (lane.state !== 'following') {
      return {
        json: `{"anchor":${anchorJson(req.anchor)},"coverage":"not_available","reason":${JSON.stringify(lane.reason ?? lane.state)},"data":null}`,
      };
    }
    const covered = Math.min(lane.checkpoint ?? -1, req.anchor.number);
    const p = new KeyBuilder(21).u8(TraceTable.BY_ADDRESS).hex(a).done();
    const rocks = ctx.chain.store.rocks;
    return walkRange(ctx, req, { prefix: p, gte: p, lt: prefixEnd(p) }, (k) => {
      const n = readU64(k, 21);
      if (n > covered) return null;
      const i = k.readUInt32BE(29);
      const o = k.readUInt32BE(33);
      const v = rocks.get(internalKey(n, i, o));
      if (!v) return null;
      return [
        `{"block":${n},"txIndex":${i},"role":"${ROLES[k[37]]}",${v.toString().slice(1)}`,
        k.subarray(21),
      ];
    }).finish(`"coverage":"retained","coveredToBlock":${covered}`);
  },
});
