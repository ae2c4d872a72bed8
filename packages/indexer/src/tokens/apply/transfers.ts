/**
 * Transfers and balances (R9: balances are the running signed sum of decoded transfers, never
 * balanceOf): ERC-20 `Transfer(from, to, value)` and WETH `Deposit(dst, wad)` (a mint) /
 * `Withdrawal(src, wad)` (a burn). Each log writes its transfer row and frame; balances, the two
 * holder indices (block-versioned, R2) and the per-token counters change once per (token, wallet)
 * per block, after every log of the block.
 *
 * Supply semantics: a transfer from the zero address mints, one to it burns; `Transfer(0x0, 0x0,
 * v)` is a mint to the zero address (Uniswap V2's MINIMUM_LIQUIDITY lock), which credits the zero
 * address like any recipient — it stays a burn sink, excluded from holder rankings.
 */

import type { EventDelta } from '../../schema/delta.js';
import { BURN_SINKS, type TokenStats, type TransferRow, ZERO } from '../../schema/rows/tokens.js';
import { transferOf, transferRowOf } from '../../schema/stateless.js';
import {
  BALANCE,
  BALANCE_HIST,
  COUNTER,
  HOLDER_CUR,
  HOLDER_HIST,
  HOLDER_ID_CUR,
  HOLDER_ID_HIST,
  STATS,
  STATS_HIST,
  WALLET_BY_ID,
  WALLET_ID,
} from '../../schema/tables/tokens.js';
import { checkPostCreationMint } from './authority.js';
import { coordOf, saveToken, type TokensBlock, tokenOf } from './block.js';
import { register } from './registry.js';
import type { TokenSeeds } from './seeds.js';

type Hex = `0x${string}`;

/** What one block's transfers changed: net balance change per (token, wallet), and per-token tallies. */
export interface TransferTally {
  deltas: Map<string, Map<string, bigint>>;
  touched: Map<string, { transfers: number; minted: bigint; burned: bigint }>;
}

export const newTally = (): TransferTally => ({ deltas: new Map(), touched: new Map() });

/** Class of a (wallet, balance) for holder counting. */
function holderClass(wallet: string, bal: bigint): 'none' | 'holder' | 'sink' | 'negative' {
  if (bal === 0n) return 'none';
  if (BURN_SINKS.has(wallet)) return 'sink';
  return bal > 0n ? 'holder' : 'negative';
}

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

/** Interned wallet id (first-seen order), allocated on first sight. */
function internWallet(b: TokensBlock, w: string): number {
  const have = b.batch.get(WALLET_ID, w as Hex);
  if (have !== undefined) return have;
  const id = b.batch.get(COUNTER, 'wallet') ?? 0;
  b.batch.put(COUNTER, ['wallet'], id + 1);
  b.batch.put(WALLET_ID, [w as Hex], id);
  b.batch.insert(WALLET_BY_ID, [id], w as Hex); // ids are allocated once: a new key
  return id;
}

/**
 * Reads every row {@link flushBalanceSteps} reads, in one multi-get per table instead of one native
 * call per row: the token stats, balances and wallet ids first (unless the decode worker's key
 * list brought them), then the current holder rows those name.
 */
function prefetchBalances(b: TokensBlock, tally: TransferTally): void {
  const stats: Array<[Hex]> = [];
  const balances: Array<[Hex, Hex]> = [];
  const ids = new Set<string>();
  for (const [token, deltas] of tally.deltas) {
    stats.push([token as Hex]);
    for (const [w, dv] of deltas) {
      if (dv === 0n) continue;
      balances.push([token as Hex, w as Hex]);
      ids.add(w);
    }
  }
  // The decode worker listed these rows (schema/stateless.ts stateKeys) and ingest read them into
  // the state cache with the task (store.prefetchEncoded): looking them up again here only costs.
  // Without its list (a rebuild from stored blocks) they are read here in one multi-get per table.
  if (!b.d.stateKeys) {
    b.batch.prefetch(STATS, stats);
    b.batch.prefetch(BALANCE, balances);
    b.batch.prefetch(
      WALLET_ID,
      [...ids].map((w) => [w as Hex]),
    );
    b.batch.prefetch(COUNTER, [['wallet']]);
  }
  const holders: Array<[Hex, bigint, Hex]> = [];
  const holderIds: Array<[Hex, number]> = [];
  for (const [tk, w] of balances) {
    const before = b.batch.get(BALANCE, tk, w);
    if (before !== undefined && before > 0n && !BURN_SINKS.has(w)) holders.push([tk, before, w]);
    const wid = b.batch.get(WALLET_ID, w);
    if (wid !== undefined) holderIds.push([tk, wid]);
  }
  b.batch.prefetch(HOLDER_CUR, holders);
  b.batch.prefetch(HOLDER_ID_CUR, holderIds);
}

/** Wallet balance changes per slice of {@link flushBalanceSteps}. */
const SLICE_WALLETS = 16;

/**
 * Writes the block's balance changes: balances and their history, the balance-ranked index
 * (positive non-sink balances) and the wallet-id index (every non-zero balance), retiring the
 * previous versions into history (valid until this block), and the per-token counters. Yields
 * every {@link SLICE_WALLETS} balance changes, so a live commit can let HTTP reads run between
 * slices (the writes stay in the block's batch until it commits).
 */
export function* flushBalanceSteps(
  b: TokensBlock,
  tally: TransferTally,
  seeds: TokenSeeds | null,
): Generator<void, void, void> {
  const n = b.d.number;
  prefetchBalances(b, tally);
  let changed = 0;
  for (const [token, t] of tally.touched) {
    const tk = token as Hex;
    const seededSupply = seeds?.supplies[token];
    const stats: TokenStats = b.batch.get(STATS, tk) ?? {
      holders: 0,
      burnSinkHolders: 0,
      negativeBalances: 0,
      transfers: 0,
      // A token that predates START_BLOCK starts from its totalSupply() at the block before.
      supplyFromTransfers: seededSupply ?? '0',
      lastChangeBlock: n,
      ...(seededSupply !== undefined ? { seededAtBlock: seeds!.atBlock } : {}),
    };
    const failures = seeds?.unavailable.filter((u) => u === token || u.startsWith(`${token}:`)).length ?? 0;
    if (failures) stats.seedFailures = (stats.seedFailures ?? 0) + failures;
    const seeded = seeds?.balances[token];
    stats.transfers += t.transfers;
    stats.supplyFromTransfers = (BigInt(stats.supplyFromTransfers) + t.minted - t.burned).toString();
    stats.lastChangeBlock = n;
    const count = { holder: 0, sink: 0, negative: 0, none: 0 };
    for (const [wallet, dv] of tally.deltas.get(token) ?? []) {
      if (dv === 0n) continue;
      if (++changed % SLICE_WALLETS === 0) yield;
      const w = wallet as Hex;
      const stored = b.batch.get(BALANCE, tk, w);
      // A first-sight seed (balanceOf at the block before) is the balance the wallet came in with;
      // it was never counted, so it leaves no holder class behind.
      const seed =
        stored === undefined && seeded?.[wallet] !== undefined ? BigInt(seeded[wallet]) : undefined;
      const before = stored ?? seed ?? 0n;
      const after = before + dv;
      if (seed === undefined) count[holderClass(wallet, before)]--;
      else count.none--;
      count[holderClass(wallet, after)]++;
      if (after === 0n) b.batch.del(BALANCE, tk, w);
      else b.batch.put(BALANCE, [tk, w], after);
      // Keys carrying this block's number (and versions retired now) are new: insert, no undo read.
      b.batch.insert(BALANCE_HIST, [tk, w, n], after);
      const wid = internWallet(b, wallet);
      const sink = BURN_SINKS.has(wallet);
      // Balance-ranked index: positive, non-sink balances only.
      if (before > 0n && !sink) {
        const from = b.batch.get(HOLDER_CUR, tk, before, w);
        if (from !== undefined) {
          b.batch.del(HOLDER_CUR, tk, before, w);
          if (from < n) b.batch.insert(HOLDER_HIST, [tk, before, w, from], n);
        }
      }
      // One current row per (token, wallet), and after ≠ before: (token, after, wallet) is absent.
      if (after > 0n && !sink) b.batch.insert(HOLDER_CUR, [tk, after, w], n);
      // Wallet-id index: every non-zero balance, negatives and sinks included.
      const cur = b.batch.get(HOLDER_ID_CUR, tk, wid);
      if (cur) {
        // The row is rewritten below when the balance stays non-zero: delete only otherwise.
        if (after === 0n) b.batch.del(HOLDER_ID_CUR, tk, wid);
        if (cur.block < n)
          b.batch.insert(HOLDER_ID_HIST, [tk, wid, cur.block], { block: n, balance: cur.balance });
      }
      if (after !== 0n) b.batch.put(HOLDER_ID_CUR, [tk, wid], { block: n, balance: after });
    }
    stats.holders += count.holder;
    stats.burnSinkHolders += count.sink;
    stats.negativeBalances += count.negative;
    b.batch.put(STATS, [tk], stats);
    b.batch.insert(STATS_HIST, [tk, n], stats);
  }
}
