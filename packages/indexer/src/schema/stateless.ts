/**
 * The rows a block implies whatever the state of the index: one per transfer-family log in the
 * tokens projection (TRANSFER), and the wallets projection's per-wallet transaction and transfer
 * rows (WALLET_TX, WALLET_TRANSFER). Part of the ingest→projection contract: the decode worker
 * encodes them for a live ingest (workers/decode/rows.ts, handed over as transferable buffers),
 * and a projection rebuilding from stored blocks writes them itself through the same functions,
 * so both write the same bytes.
 *
 * Every row is keyed by the block's number: absent before the block (an insert).
 */
import type { BlockDelta, EventDelta } from './delta.js';
import type { TransferRow } from './rows/tokens.js';
import { ZERO } from './rows/tokens.js';
import type { WalletTransferRow } from './rows/wallets.js';
import type { Table } from './table.js';
import { BALANCE, COUNTER, STATS, TOKEN, TRANSFER, WALLET_ID } from './tables/tokens.js';
import {
  ADDRESS,
  EDGE_IN,
  FIRST_FUNDING,
  FIRST_SEEN,
  HOLDING,
  NATIVE_ASSET,
  WALLET_TRANSFER,
  WALLET_TX,
} from './tables/wallets.js';

type Hex = `0x${string}`;

/** Where a stateless row goes: a batch's insert, or a worker's row encoder. */
export type RowSink = <K extends unknown[], V>(t: Table<K, V>, key: K, value: V) => void;

/**
 * The (from, to, value, kind) a transfer-family log moves, or null for other logs: ERC-20
 * `Transfer(from, to, value)`, WETH `Deposit(dst, wad)` (a mint) and `Withdrawal(src, wad)` (a
 * burn). Addresses lowercase, value in base units.
 */
export function transferOf(
  e: EventDelta,
): { from: string; to: string; value: bigint; kind: TransferRow['kind'] } | null {
  if (e.standard === 'erc20' && e.event === 'Transfer')
    return {
      from: String(e.args.from),
      to: String(e.args.to),
      value: BigInt(String(e.args.value)),
      kind: 'transfer',
    };
  if (e.standard === 'weth' && (e.event === 'Deposit' || e.event === 'Withdrawal')) {
    const who = String(e.event === 'Deposit' ? e.args.dst : e.args.src);
    const value = BigInt(String(e.args.wad));
    return e.event === 'Deposit'
      ? { from: ZERO, to: who, value, kind: 'mint' }
      : { from: who, to: ZERO, value, kind: 'burn' };
  }
  return null;
}

/** The TRANSFER row of a transfer-family log (the tokens projection's and its frame's body). */
export function transferRowOf(
  d: BlockDelta,
  e: EventDelta,
  m: NonNullable<ReturnType<typeof transferOf>>,
): TransferRow {
  return {
    block: d.number,
    txIndex: e.txIndex,
    logIndex: e.logIndex,
    txHash: d.txs[e.txIndex].hash,
    from: m.from,
    to: m.to,
    value: m.value.toString(),
    kind: m.kind,
  };
}

/** The tokens projection's stateless rows of `d`: a TRANSFER row per transfer-family log. */
export function tokenRows(d: BlockDelta, put: RowSink): void {
  for (const e of d.events) {
    const m = transferOf(e);
    if (m) put(TRANSFER, [e.address, d.number, e.logIndex], transferRowOf(d, e, m));
  }
}

/** Native transfer ordinals sort after every log index of the block. */
export const NATIVE_ORD = 0x8000_0000;

/**
 * The wallets projection's stateless rows of `d`: each transaction under its origin (role 1) and
 * recipient (role 2), native value sent by a successful top-level transaction under both sides,
 * and ERC-20/WETH transfers by direction (`self` when a wallet sends to itself).
 */
export function walletRows(d: BlockDelta, put: RowSink): void {
  for (let i = 0; i < d.txs.length; i++) {
    const tx = d.txs[i];
    put(WALLET_TX, [tx.from, d.number, i], 1);
    if (tx.to && tx.to !== tx.from) put(WALLET_TX, [tx.to, d.number, i], 2);
    const value = BigInt(tx.value);
    if (tx.status === 1 && value > 0n && tx.to) {
      const row = {
        block: d.number,
        txIndex: i,
        logIndex: null,
        txHash: tx.hash,
        assetKind: 'native' as const,
        asset: null,
        from: tx.from,
        to: tx.to,
        value: value.toString(),
      };
      put(WALLET_TRANSFER, [tx.from, d.number, NATIVE_ORD + i], {
        ...row,
        direction: 'out',
      } as WalletTransferRow);
      put(WALLET_TRANSFER, [tx.to, d.number, NATIVE_ORD + i], {
        ...row,
        direction: 'in',
      } as WalletTransferRow);
    }
  }
  for (const e of d.events) {
    const m = transferOf(e);
    if (!m) continue;
    const { from, to } = m;
    const row = {
      block: d.number,
      txIndex: e.txIndex,
      logIndex: e.logIndex,
      txHash: d.txs[e.txIndex].hash,
      assetKind: 'erc20' as const,
      asset: e.address,
      from,
      to,
      value: m.value.toString(),
    };
    if (from !== ZERO)
      put(WALLET_TRANSFER, [from as Hex, d.number, e.logIndex], {
        ...row,
        direction: from === to ? 'self' : 'out',
      } as WalletTransferRow);
    if (to !== ZERO && to !== from)
      put(WALLET_TRANSFER, [to as Hex, d.number, e.logIndex], {
        ...row,
        direction: 'in',
      } as WalletTransferRow);
  }
}

/** Where a state key goes: a batch's prefetch, or a worker's key list. */
export type KeySink = <K extends unknown[], V>(t: Table<K, V>, key: K) => void;

/**
 * The state rows the tokens and wallets projections read first for block `d` (before any write of
 * the block): the token rows and counters, the balances and wallet ids of every transfer party,
 * and the wallets' first-seen rows, address flags, holdings, first fundings and funding edges.
 * The decode worker lists them for each block so ingest reads every miss of a decode task in one
 * multi-get; the projections prefetch the same list when they run without it (rebuilds).
 */
export function stateKeys(d: BlockDelta, add: KeySink): void {
  const funding = (w: string, funder: string, a: string) => {
    if (funder === ZERO || w === funder) return;
    add(FIRST_FUNDING, [w as Hex, a as Hex]);
    add(EDGE_IN, [w as Hex, funder as Hex, a as Hex]);
  };
  for (const tx of d.txs) {
    add(FIRST_SEEN, [tx.from]);
    add(ADDRESS, [tx.from]);
    if (tx.contractAddress && tx.status === 1) add(ADDRESS, [tx.contractAddress]);
    if (tx.status === 1 && tx.to && BigInt(tx.value) > 0n) {
      add(FIRST_SEEN, [tx.to]);
      funding(tx.to, tx.from, NATIVE_ASSET);
    }
  }
  let lastEmitter = '';
  for (const l of d.logs) if (l.address !== lastEmitter) add(ADDRESS, [(lastEmitter = l.address)]);
  let counter = false;
  for (const e of d.events) {
    const m = transferOf(e);
    if (!m) continue;
    const token = e.address;
    add(TOKEN, [token]);
    add(STATS, [token]);
    for (const w of [m.from, m.to]) {
      if (w === ZERO) continue;
      add(HOLDING, [w as Hex, token]);
      add(BALANCE, [token, w as Hex]);
      add(WALLET_ID, [w as Hex]);
      counter = true;
    }
    if (m.to !== ZERO) add(FIRST_SEEN, [m.to as Hex]);
    funding(m.to, m.from, token);
  }
  if (counter) add(COUNTER, ['wallet']);
}
