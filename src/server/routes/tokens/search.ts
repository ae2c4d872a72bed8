import { Type } from '@sinclair/typebox';
import { prefixEnd } from '../../../storage/keys.js';
import type { TokenRow } from '../../../tokens/model.js';
import { tokenAt } from '../../../tokens/read.js';
import { tokenListRow } from '../../../tokens/render.js';
import { TokenTable, tokenPrefix } from '../../../tokens/tables.js';
import { ApiError } from '../../errors.js';
import { requireProjection } from '../../projections.js';
import { anchorJson, defineRoute } from '../../route.js';
import { TOKENS } from './common.js';

/** Candidates examined per match class: bounds the work of one search. */
const CLASS_SCAN_LIMIT = 500;

/**
 * GET /tokens/search?q=: tokens by symbol, name or address prefix, ranked by a published rule:
 * class 1 exact symbol, 2 exact name, 3 address prefix, 4 symbol prefix, 5 name prefix
 * (case-insensitive); within a class, confirmed ERC-20 before candidates, then first-seen
 * coordinate (older first). One page of at most `limit` (≤ 100) results; no cursor.
 */
export const tokensSearchRoute = defineRoute({
  id: 'tokens.search',
  method: 'GET',
  path: '/tokens/search',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Search by symbol, name or 0x-address prefix. Rank: 1 exact symbol, 2 exact name, 3 address prefix, 4 symbol prefix, 5 name prefix (case-insensitive); then confirmed ERC-20 first; then older first-seen coordinate. Each row carries matchClass. Single page (limit ≤ 100).',
  query: {
    q: Type.String({ minLength: 1, maxLength: 64, description: 'name, symbol or 0x-address prefix' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  response: Type.Object(
    { anchor: Type.Object({}), data: Type.Array(Type.Object({}, { additionalProperties: true })) },
    { additionalProperties: true },
  ),
  errors: ['bad_request', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    requireProjection(ctx.chain, TOKENS);
    const rocks = ctx.chain.store.rocks;
    const A = ctx.anchor.number;
    const q = ctx.query.q.toLowerCase();
    const limit = ctx.query.limit ?? 20;
    const found = new Map<string, { t: TokenRow; cls: number }>();
    const consider = (addr: string, cls: number) => {
      const prev = found.get(addr);
      if (prev && prev.cls <= cls) return;
      const t = tokenAt(ctx.view, addr, A);
      if (t) found.set(addr, { t, cls });
    };
    const byTerm = (kind: 1 | 2, exactCls: number, prefixCls: number) => {
      const lo = Buffer.concat([Buffer.from([TokenTable.SEARCH, kind]), Buffer.from(q)]);
      let n = 0;
      rocks.each({ gte: lo, lt: prefixEnd(lo) }, (k) => {
        const sep = k.indexOf(0, 2);
        const term = k.toString('utf8', 2, sep);
        consider(`0x${k.toString('hex', sep + 1)}`, term === q ? exactCls : prefixCls);
        return ++n < CLASS_SCAN_LIMIT;
      });
    };
    byTerm(1, 1, 4);
    byTerm(2, 2, 5);
    if (/^0x[0-9a-f]{0,40}$/.test(q)) {
      const hex = q.slice(2);
      if (hex.length % 2 === 1 && hex.length > 0) {
        // Odd nibble: scan the byte range covering the half byte.
        const lo = Buffer.concat([Buffer.from([TokenTable.TOKEN]), Buffer.from(`${hex}0`, 'hex')]);
        const hi = Buffer.concat([Buffer.from([TokenTable.TOKEN]), Buffer.from(`${hex}f`, 'hex')]);
        let n = 0;
        rocks.each({ gte: lo, lt: prefixEnd(hi) }, (k) => {
          consider(`0x${k.toString('hex', 1, 21)}`, 3);
          return ++n < CLASS_SCAN_LIMIT;
        });
      } else {
        const lo =
          hex.length === 40
            ? tokenPrefix(TokenTable.TOKEN, q)
            : Buffer.concat([Buffer.from([TokenTable.TOKEN]), Buffer.from(hex, 'hex')]);
        let n = 0;
        rocks.each({ gte: lo, lt: prefixEnd(lo) }, (k) => {
          consider(`0x${k.toString('hex', 1, 21)}`, 3);
          return ++n < CLASS_SCAN_LIMIT;
        });
      }
    } else if (q.startsWith('0x') && q.length > 42) {
      throw new ApiError('bad_request', 'an address prefix has at most 40 hex digits');
    }
    const ranked = [...found.values()].sort(
      (a, b) =>
        a.cls - b.cls ||
        Number(b.t.confirmedAt !== null) - Number(a.t.confirmedAt !== null) ||
        a.t.firstSeen.block - b.t.firstSeen.block ||
        a.t.firstSeen.txIndex - b.t.firstSeen.txIndex ||
        (a.t.firstSeen.logIndex ?? -1) - (b.t.firstSeen.logIndex ?? -1),
    );
    const rows = ranked
      .slice(0, limit)
      .map((r) => JSON.stringify({ matchClass: r.cls, ...tokenListRow(r.t) }));
    return {
      json: `{"anchor":${anchorJson(ctx.anchor)},"data":[${rows.join(',')}],"query":${JSON.stringify(q)},"rankingRule":"matchClass (1 exact symbol, 2 exact name, 3 address prefix, 4 symbol prefix, 5 name prefix), then confirmed ERC-20 first, then older first-seen coordinate","truncated":${ranked.length > limit}}`,
    };
  },
});
