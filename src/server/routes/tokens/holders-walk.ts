/**
 * The two holder walks of a token at an anchor:
 *  - by balance: the exact balance-descending index (positive balances, burn sinks excluded),
 *    cursor key = (inverted balance, wallet, rank) — shared by /holders?sort=balance and
 *    /top-holders, so their cursors are interchangeable;
 *  - by wallet id: the complete non-zero set (negatives and burn sinks included) in interned
 *    wallet-id order.
 * Both read block-versioned rows, so a walk keeps the order of its anchor block (R2).
 */

import { walkVersioned } from '../../../projections/versioned.js';
import { KeyBuilder } from '../../../storage/keys.js';
import type { TokenRow, TokenStats } from '../../../tokens/model.js';
import { fromInverted, statsKey, TokenTable, tokenPrefix, walletByIdKey } from '../../../tokens/tables.js';
import { PageBuilder, type PageRequest } from '../../page.js';
import type { Ctx } from '../../route.js';

/** Route tag shared by the balance-ordered holder cursors. */
export const BALANCE_WALK = 'tokens.holders.balance';

export function lastChangeOf(ctx: Ctx<unknown, unknown>, token: string): number {
  const v = ctx.chain.store.rocks.get(statsKey(token));
  return v ? (JSON.parse(v.toString()) as TokenStats).lastChangeBlock : 0;
}

/** Pushes balance-ordered holder rows; `render` builds each row from (wallet, balance, rank). */
export function walkByBalance(
  ctx: Ctx<unknown, unknown>,
  t: TokenRow,
  req: PageRequest,
  render: (wallet: string, balance: bigint, rank: number) => string,
): PageBuilder {
  const builder = new PageBuilder(ctx, req);
  const after = req.after ? req.after.subarray(0, 52) : null;
  let rank = req.after ? req.after.readUInt32BE(52) : 0;
  const rows = walkVersioned(ctx.chain.store.rocks, {
    curPrefix: tokenPrefix(TokenTable.HOLDER_CUR, t.address),
    histPrefix: tokenPrefix(TokenTable.HOLDER_HIST, t.address),
    sortKeyLen: 52,
    anchor: req.anchor.number,
    after,
    reverse: false,
    want: req.limit + 1,
    lastChangeBlock: lastChangeOf(ctx, t.address),
  });
  for (const r of rows) {
    rank++;
    const wallet = `0x${r.sortKey.toString('hex', 32, 52)}`;
    const key = Buffer.concat([r.sortKey, new KeyBuilder(4).u32(rank).done()]);
    if (!builder.push(render(wallet, fromInverted(r.sortKey, 0), rank), key)) break;
  }
  return builder;
}

/** Pushes wallet-id ordered rows (every non-zero balance, negatives and burn sinks included). */
export function walkByWalletId(ctx: Ctx<unknown, unknown>, t: TokenRow, req: PageRequest): PageBuilder {
  const builder = new PageBuilder(ctx, req);
  const rocks = ctx.chain.store.rocks;
  const rows = walkVersioned(rocks, {
    curPrefix: tokenPrefix(TokenTable.HOLDER_ID_CUR, t.address),
    histPrefix: tokenPrefix(TokenTable.HOLDER_ID_HIST, t.address),
    sortKeyLen: 8,
    anchor: req.anchor.number,
    after: req.after,
    reverse: req.order === 'desc',
    want: req.limit + 1,
    lastChangeBlock: lastChangeOf(ctx, t.address),
  });
  for (const r of rows) {
    const id = r.sortKey.readUInt32BE(0) * 0x1_0000_0000 + r.sortKey.readUInt32BE(4);
    const w = rocks.get(walletByIdKey(id));
    const row = `{"walletId":${id},"wallet":"0x${w?.toString('hex')}","balance":"${r.payload.toString()}"}`;
    if (!builder.push(row, r.sortKey)) break;
  }
  return builder;
}
