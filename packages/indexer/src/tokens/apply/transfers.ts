/**
 * Transfers and balances (R9: balances are the running signed sum of decoded transfers, never
 * balanceOf): ERC-20 `Transfer(from, to, value)` and WETH `Deposit(dst, wad)` (a mint) /
 * `Withdrawal(src, wad)` (a burn). Each log writes its transfer row and frame; the block's balance
 * changes are netted per (token, wallet) into a {@link TransferTally}, which fold.ts keeps for the
 * batch and writes (balances, the two holder indices versioned by block, R2, and the per-token
 * counters) when the batch is sealed.
 *
 * Supply semantics: a transfer from the zero address mints, one to it burns; `Transfer(0x0, 0x0,
 * v)` is a mint to the zero address (Uniswap V2's MINIMUM_LIQUIDITY lock), which credits the zero
 * address like any recipient — it stays a burn sink, excluded from holder rankings.
 */

import type { EventDelta } from '../../schema/delta.js';
import { type TransferRow, ZERO } from '../../schema/rows/tokens.js';
import { transferOf, transferRowOf } from '../../schema/stateless.js';
import { COUNTER, WALLET_BY_ID, WALLET_ID } from '../../schema/tables/tokens.js';
import type { BlockBatch } from '../../storage/index.js';
import { checkPostCreationMint } from './authority.js';
import { coordOf, saveToken, type TokensBlock, tokenOf } from './block.js';
import { register } from './registry.js';

type Hex = `0x${string}`;

/** What one block's transfers changed: net balance change per (token, wallet), and per-token tallies. */
export interface TransferTally {
  deltas: Map<string, Map<string, bigint>>;
  touched: Map<string, { transfers: number; minted: bigint; burned: bigint }>;
}

export const newTally = (): TransferTally => ({ deltas: new Map(), touched: new Map() });

/** The (from, to, value, kind) a transfer-family log moves (schema/stateless.ts). */
export { transferOf };

/**
 * Applies one transfer-family log: registers or confirms the token, records the transfer row and
 * frame, a post-creation mint, and the balance changes it implies (netted per block).
 */
export function onTransfer(
  b: TokensBlock,
  e: EventDelta,
  m: NonNullable<ReturnType<typeof transferOf>>,
  tally: TransferTally,
  creationOf: (token: string) => import('../../schema/rows/tokens.js').TokenRow['creation'],
): void {
  const at = coordOf(b, e.txIndex, e.logIndex);
  const token = e.address;
  const row =
    tokenOf(b, token) ??
    register(b, token, at, e.standard === 'weth' ? 'weth_deposit' : 'transfer_log', creationOf(token))!;
  if (!row.confirmedAt) saveToken(b, { ...row, confirmedAt: at });
  const { from, to, value } = m;
  if (from === ZERO) checkPostCreationMint(b, row, e, to, value);
  // The TRANSFER row is stateless (schema/stateless.ts): the decode worker encoded it with the
  // block's rows, or the projection writes them all at the block's start (tokens/projection.ts).
  if (b.emit) {
    const tr: TransferRow = transferRowOf(b.d, e, m);
    b.emit({
      topic: 'transfers',
      event: 'transfer',
      json: JSON.stringify({ token, ...tr }),
      keys: { tokens: [token], wallets: [from, to] },
    });
  }
  let t = tally.touched.get(token);
  if (!t) tally.touched.set(token, (t = { transfers: 0, minted: 0n, burned: 0n }));
  t.transfers++;
  let dm = tally.deltas.get(token);
  if (!dm) tally.deltas.set(token, (dm = new Map()));
  const add = (w: string, v: bigint) => dm.set(w, (dm.get(w) ?? 0n) + v);
  if (from === ZERO && to === ZERO) {
    // A mint to the zero address: UniswapV2Pair.mint() locks MINIMUM_LIQUIDITY with
    // `_mint(address(0), MINIMUM_LIQUIDITY)`, whose ERC-20 `_mint` adds to totalSupply and to
    // balanceOf[address(0)]. Supply and the zero address's balance go up; it is never a burn.
    t.minted += value;
    add(ZERO, value);
    return;
  }
  // Otherwise the zero address is the mint source and burn sink, never a holder: its running sum
  // would be minus the supply. Other sinks (0x…dead) are real recipients.
  if (from === ZERO) t.minted += value;
  if (to === ZERO) t.burned += value;
  if (from !== to) {
    if (from !== ZERO) add(from, -value);
    if (to !== ZERO) add(to, value);
  }
}

/**
 * Interned wallet id of `w` (first-seen order; WALLET_ID, WALLET_BY_ID and the `wallet` COUNTER),
 * allocated on first sight.
 */
export function internWallet(batch: BlockBatch, w: string): number {
  const have = batch.get(WALLET_ID, w as Hex);
  if (have !== undefined) return have;
  const id = batch.get(COUNTER, 'wallet') ?? 0;
  batch.put(COUNTER, ['wallet'], id + 1);
  batch.put(WALLET_ID, [w as Hex], id);
  batch.insert(WALLET_BY_ID, [id], w as Hex); // ids are allocated once: a new key
  return id;
}
