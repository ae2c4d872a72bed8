/**
 * The wallets projection: per-wallet transactions (origin or recipient), direction-aware
 * transfers (ERC-20 `Transfer`, WETH deposit/withdrawal, and top-level native value with the
 * reserved asset kind `native`), trades (the wallet is the transaction origin, never the router
 * recipient), weighted-average-cost positions with exact rational cost and realised PnL, daily
 * realised PnL, the funding graph (first incoming transfer per asset, every funder edge, both
 * directions), cohort candidates (wallets funded by one funder that bought the same token), and
 * address observations (origin, created, emitted logs).
 */
import keccak from 'node:crypto';
import type { BlockDelta } from '../ingest/delta.js';
import type { PoolRow } from '../markets/model.js';
import { add, rational, ratParse, ratStr, sub } from '../markets/rational.js';
import { drain, type Projection } from '../projections/index.js';
import type { BlockBatch } from '../storage/index.js';
import { KeyBuilder, readU64 as readU64At } from '../storage/keys.js';
import { BLOCK_SWAP, POOL, SWAP } from '../storage/tables/markets.js';

const readU64 = (b: Buffer) => readU64At(b, 0);

import { transferOf } from '../tokens/apply/transfers.js';
import { ZERO } from '../tokens/model.js';
import type { FundingEdge, Position } from './model.js';
import {
  addressKey,
  cohortCandKey,
  cohortIdKey,
  dailyKey,
  edgeInKey,
  edgeOutKey,
  encodeActivity,
  firstFundingKey,
  firstSeenKey,
  generationKey,
  holdingKey,
  NATIVE_ASSET,
  positionKey,
  walletActivityKey,
  walletCohortKey,
  walletTradeKey,
  walletTransferKey,
  walletTxKey,
} from './tables.js';

const json = (v: unknown) => Buffer.from(JSON.stringify(v));
const EMPTY = Buffer.alloc(0);
const u64 = (n: number) => new KeyBuilder(8).u64(n).done();
/** Rows (transactions, transfer events, trades, activity rows) per slice of a live commit. */
const SLICE_ROWS = 16;
/** Native transfer ordinals sort after every log index of the block. */
const NATIVE_ORD = 0x8000_0000;

/** Cohort id: first 8 bytes of sha256(token ‖ funder ‖ rule version), 16 hex digits. */
export function cohortIdOf(token: string, funder: string, ruleVersion: number): string {
  return keccak.createHash('sha256').update(`${token}:${funder}:${ruleVersion}`).digest('hex').slice(0, 16);
}
export const COHORT_RULE_VERSION = 1;

export function createWalletsProjection(deps: { quoteAssets: string[] }): Projection {
  const priority = new Map(deps.quoteAssets.map((a, i) => [a, i]));

  /** Which side of a pool is the quote for positions: the higher-priority quote asset, else currency1. */
  const sidesOf = (p: PoolRow): { token: string; quote: string } => {
    const p0 = priority.get(p.currency0);
    const p1 = priority.get(p.currency1);
    if (p0 !== undefined && (p1 === undefined || p0 < p1)) return { token: p.currency1, quote: p.currency0 };
    return { token: p.currency0, quote: p.currency1 };
  };

  /**
   * Wallet-keyed state rows this block reads before writing (first sight, address flags, holdings,
   * funding), fetched in one multi-get: a 50-transfer block reads ~400 of them, and one native call
   * per key was the projection's main cost.
   */
  const prefetchState = (batch: BlockBatch, d: BlockDelta) => {
    const keys: Buffer[] = [];
    const funding = (w: string, funder: string, a: string) => {
      if (funder === ZERO || w === funder) return;
      keys.push(firstFundingKey(w, a), edgeInKey(w, funder, a), edgeOutKey(funder, w, a));
    };
    for (const tx of d.txs) {
      keys.push(firstSeenKey(tx.from), addressKey(tx.from));
      if (tx.contractAddress && tx.status === 1) keys.push(addressKey(tx.contractAddress));
      if (tx.status === 1 && tx.to && BigInt(tx.value) > 0n) {
        keys.push(firstSeenKey(tx.to));
        funding(tx.to, tx.from, NATIVE_ASSET);
      }
    }
    let lastEmitter = '';
    for (const l of d.logs) if (l.address !== lastEmitter) keys.push(addressKey((lastEmitter = l.address)));
    for (const e of d.events) {
      const m = transferOf(e);
      if (!m) continue;
      if (m.from !== ZERO) keys.push(holdingKey(m.from, e.address));
      if (m.to !== ZERO) keys.push(holdingKey(m.to, e.address), firstSeenKey(m.to));
      funding(m.to, m.from, e.address);
    }
    batch.prefetchRaw(keys);
  };

  /**
   * The block's writes, yielding every {@link SLICE_ROWS} transactions, transfer events, trades or
   * activity rows (a 150-transaction block would otherwise hold the thread for one long stage).
   */
  function* steps(batch: BlockBatch, d: BlockDelta): Generator<void, void, void> {
    prefetchState(batch, d);
    let rows = 0;
    // Activity parents of this block: (wallet, txIndex) → roles and child row references. Every
    // key of the ACTIVITY table carries this block's number, so rows are written once, at the end.
    const acts = new Map<
      string,
      { w: string; i: number; roles: number; transfers: Set<number>; trades: number[] }
    >();
    const act = (w: string, i: number) => {
      const id = `${w}:${i}`;
      let a = acts.get(id);
      if (!a) {
        a = { w, i, roles: 0, transfers: new Set(), trades: [] };
        acts.set(id, a);
      }
      return a;
    };
    const seen = new Set<string>();
    const firstSeen = (w: string, evidence: string, txIndex: number, logIndex: number | null) => {
      if (w === ZERO || seen.has(w)) return;
      seen.add(w);
      const k = firstSeenKey(w);
      if (!batch.getRaw(k))
        batch.putRaw(
          k,
          json({
            block: d.number,
            txIndex,
            logIndex,
            txHash: d.txs[txIndex].hash,
            timestamp: d.timestamp,
            evidence,
          }),
        );
    };
    const addrFlags = new Map<string, { origin?: number; created?: number; emitted?: number }>();
    const flag = (a: string, f: 'origin' | 'created' | 'emitted') => {
      let cur = addrFlags.get(a);
      if (!cur) {
        const v = batch.getRaw(addressKey(a));
        cur = v ? JSON.parse(v.toString()) : {};
        addrFlags.set(a, cur!);
      }
      if (cur![f] === undefined) {
        cur![f] = d.number;
        batch.putRaw(addressKey(a), json(cur));
      }
    };

    const recordFunding = (
      w: string,
      funder: string,
      assetKind: 'native' | 'erc20',
      asset: string | null,
      value: bigint,
      txIndex: number,
      logIndex: number | null,
    ) => {
      if (funder === ZERO || w === funder || value === 0n) return;
      const a = asset ?? NATIVE_ASSET;
      const first = {
        block: d.number,
        txIndex,
        logIndex,
        txHash: d.txs[txIndex].hash,
        value: value.toString(),
      };
      const fk = firstFundingKey(w, a);
      if (!batch.getRaw(fk)) batch.putRaw(fk, json({ funder, assetKind, asset, ...first }));
      const ek = edgeInKey(w, funder, a);
      const have = batch.getRaw(ek);
      const edge: FundingEdge = have
        ? JSON.parse(have.toString())
        : { funder, assetKind, asset, first, lastBlock: d.number, count: 0, total: '0' };
      edge.count++;
      edge.lastBlock = d.number;
      edge.total = (BigInt(edge.total) + value).toString();
      const v = json(edge);
      batch.putRaw(ek, v);
      batch.putRaw(edgeOutKey(funder, w, a), json({ ...edge, wallet: w }));
    };

    // Transactions: origin and recipient; native value transfers; address observations.
    for (let i = 0; i < d.txs.length; i++) {
      if (++rows % SLICE_ROWS === 0) yield;
      const tx = d.txs[i];
      // Rows keyed by this block's number are absent before it: insert (no undo read).
      batch.insertRaw(walletTxKey(tx.from, d.number, i), Buffer.from([1]));
      act(tx.from, i).roles |= 1;
      firstSeen(tx.from, 'transaction_origin', i, null);
      flag(tx.from, 'origin');
      if (tx.to && tx.to !== tx.from) {
        // (tx.to, block, i) is written by no other role of this block: to ≠ from.
        batch.insertRaw(walletTxKey(tx.to, d.number, i), Buffer.from([2]));
        act(tx.to, i).roles |= 2;
      }
      if (tx.contractAddress && tx.status === 1) flag(tx.contractAddress, 'created');
      const value = BigInt(tx.value);
      if (tx.status === 1 && value > 0n && tx.to) {
        const row = {
          block: d.number,
          txIndex: i,
          logIndex: null,
          txHash: tx.hash,
          assetKind: 'native',
          asset: null,
          from: tx.from,
          to: tx.to,
          value: value.toString(),
        };
        batch.insertRaw(
          walletTransferKey(tx.from, d.number, NATIVE_ORD + i),
          json({ ...row, direction: 'out' }),
        );
        batch.insertRaw(
          walletTransferKey(tx.to, d.number, NATIVE_ORD + i),
          json({ ...row, direction: 'in' }),
        );
        act(tx.from, i).transfers.add(NATIVE_ORD + i);
        act(tx.to, i).transfers.add(NATIVE_ORD + i);
        firstSeen(tx.to, 'incoming_native_transfer', i, null);
        recordFunding(tx.to, tx.from, 'native', null, value, i, null);
      }
    }
    for (const l of d.logs) flag(l.address, 'emitted');

    // ERC-20 transfers (and WETH deposits/withdrawals) by direction.
    for (const e of d.events) {
      if (++rows % SLICE_ROWS === 0) yield;
      let from: string;
      let to: string;
      let value: bigint;
      if (e.standard === 'erc20' && e.event === 'Transfer') {
        from = String(e.args.from);
        to = String(e.args.to);
        value = BigInt(String(e.args.value));
      } else if (e.standard === 'weth' && (e.event === 'Deposit' || e.event === 'Withdrawal')) {
        const who = String(e.event === 'Deposit' ? e.args.dst : e.args.src);
        value = BigInt(String(e.args.wad));
        [from, to] = e.event === 'Deposit' ? [ZERO, who] : [who, ZERO];
      } else continue;
      const row = {
        block: d.number,
        txIndex: e.txIndex,
        logIndex: e.logIndex,
        txHash: d.txs[e.txIndex].hash,
        assetKind: 'erc20',
        asset: e.address,
        from,
        to,
        value: value.toString(),
      };
      if (from !== ZERO) {
        batch.insertRaw(
          walletTransferKey(from, d.number, e.logIndex),
          json({ ...row, direction: from === to ? 'self' : 'out' }),
        );
        act(from, e.txIndex).transfers.add(e.logIndex);
        const hk = holdingKey(from, e.address);
        if (!batch.getRaw(hk)) batch.putRaw(hk, EMPTY);
      }
      if (to !== ZERO) {
        const hk = holdingKey(to, e.address);
        if (!batch.getRaw(hk)) batch.putRaw(hk, EMPTY);
      }
      if (to !== ZERO && to !== from) {
        batch.insertRaw(walletTransferKey(to, d.number, e.logIndex), json({ ...row, direction: 'in' }));
        act(to, e.txIndex).transfers.add(e.logIndex);
      }
      if (to !== ZERO) firstSeen(to, 'incoming_token_transfer', e.txIndex, e.logIndex);
      recordFunding(to, from, 'erc20', e.address, value, e.txIndex, e.logIndex);
    }

    // Trades: the wallet is the transaction origin. Positions at weighted-average cost.
    let swaps = d.derived?.swaps;
    if (!swaps) {
      // Rebuilt after markets: read this block's swaps from the markets tables.
      const found: NonNullable<NonNullable<BlockDelta['derived']>['swaps']> = [];
      swaps = found;
      batch.each(BLOCK_SWAP, { prefix: [d.number] }, (pk, [, logIndex]) => {
        const row = batch.get(SWAP, pk, d.number, logIndex);
        const pool = batch.get(POOL, pk);
        if (!row || !pool)
          throw new Error(`wallets rebuild: swap ${pk}/${d.number}/${logIndex} without its row or pool`);
        found.push({ poolKey: pk, row, pool });
      });
    }
    const day = Math.floor(d.timestamp / 86400);
    for (const s of swaps) {
      if (++rows % SLICE_ROWS === 0) yield;
      const w = s.row.origin;
      batch.putRaw(walletTradeKey(w, d.number, s.row.logIndex), Buffer.from(s.poolKey.slice(2), 'hex'));
      act(w, s.row.txIndex).trades.push(s.row.logIndex);
      const { token, quote } = sidesOf(s.pool);
      const tokenIs0 = s.pool.currency0 === token;
      // Pool perspective → trader perspective: the trader receives −amount.
      const gotToken = -BigInt(tokenIs0 ? s.row.amount0 : s.row.amount1);
      const gotQuote = -BigInt(tokenIs0 ? s.row.amount1 : s.row.amount0);
      const pk = positionKey(w, token, quote);
      const have = batch.getRaw(pk);
      const pos: Position = have
        ? JSON.parse(have.toString())
        : {
            token,
            quote,
            qty: '0',
            cost: '0/1',
            realised: '0/1',
            buys: 0,
            sells: 0,
            boughtQty: '0',
            soldQty: '0',
            unexplainedSold: '0',
            firstBlock: d.number,
            lastBlock: d.number,
          };
      pos.lastBlock = d.number;
      let qty = BigInt(pos.qty);
      let cost = ratParse(pos.cost);
      let realisedDelta = rational(0n, 1n);
      if (gotToken > 0n) {
        // Buy: the trader paid −gotQuote of the quote.
        pos.buys++;
        pos.boughtQty = (BigInt(pos.boughtQty) + gotToken).toString();
        qty += gotToken;
        cost = add(cost, rational(-gotQuote, 1n));
        if (!have || BigInt(JSON.parse(have.toString()).boughtQty) === 0n) {
          // First buy of this token: a cohort candidate under the wallet's first native funder.
          const f = batch.getRaw(firstFundingKey(w, NATIVE_ASSET));
          if (f) {
            const funder = (JSON.parse(f.toString()) as { funder: string }).funder;
            const ck = cohortCandKey(token, funder, w);
            if (!batch.getRaw(ck)) {
              batch.putRaw(
                ck,
                json({
                  block: d.number,
                  txIndex: s.row.txIndex,
                  logIndex: s.row.logIndex,
                  txHash: s.row.txHash,
                }),
              );
              const gk = generationKey(token);
              const g = batch.getRaw(gk);
              batch.putRaw(gk, u64((g ? readU64(g) : 0) + 1));
              batch.putRaw(walletCohortKey(w, token, funder), EMPTY);
              const id = cohortIdOf(token, funder, COHORT_RULE_VERSION);
              const ik = cohortIdKey(id);
              if (!batch.getRaw(ik)) batch.putRaw(ik, json({ token, funder }));
            }
          }
        }
      } else if (gotToken < 0n) {
        const sold = -gotToken;
        pos.sells++;
        pos.soldQty = (BigInt(pos.soldQty) + sold).toString();
        const covered = sold <= qty ? sold : qty;
        const excess = sold - covered;
        const costOut = qty > 0n ? rational(cost.n * covered, cost.d * qty) : rational(0n, 1n);
        realisedDelta = sub(rational(gotQuote, 1n), costOut);
        cost = sub(cost, costOut);
        qty -= covered;
        if (excess > 0n) pos.unexplainedSold = (BigInt(pos.unexplainedSold) + excess).toString();
      }
      pos.qty = qty.toString();
      pos.cost = ratStr(cost);
      pos.realised = ratStr(add(ratParse(pos.realised), realisedDelta));
      batch.putRaw(pk, json(pos));
      if (realisedDelta.n !== 0n) {
        const dk = dailyKey(w, token, quote, day);
        const prev = batch.getRaw(dk);
        batch.putRaw(
          dk,
          Buffer.from(ratStr(add(prev ? ratParse(prev.toString()) : rational(0n, 1n), realisedDelta))),
        );
      }
    }

    // Keys carry this block's number, so they are absent before it: insert (no prior read).
    for (const a of acts.values()) {
      if (++rows % SLICE_ROWS === 0) yield;
      const transfers = [...a.transfers].sort((x, y) => x - y);
      const trades = [...new Set(a.trades)].sort((x, y) => x - y);
      batch.insertRaw(
        walletActivityKey(a.w, d.number, a.i),
        encodeActivity({ roles: a.roles, transfers, trades }),
      );
    }
  }

  return {
    name: 'wallets',
    // 2: ACTIVITY index (one row per activity parent, so the feed pages in O(page)).
    version: 2,
    backs: ['Wallets', 'Cohorts', 'Addresses'],
    apply: (batch, d) => drain(steps(batch, d)),
    steps,
  };
}
