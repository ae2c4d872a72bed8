/**
 * Tables of the wallets projection (ids 0x80–0x8f). Wallet first in every key, so a wallet's rows
 * are one contiguous range in chain-coordinate order.
 */
import { KeyBuilder } from '../storage/keys.js';

export const WalletTable = {
  /** wallet, block u64, txIndex u32 → role bits (1 origin, 2 recipient). */
  TX: 0x80,
  /** wallet, block u64, ordinal u32 → transfer row JSON (ERC-20 by log index; native at 2^31 + txIndex). */
  TRANSFER: 0x81,
  /** wallet (tx origin), block u64, logIndex u32 → poolKey: swaps the wallet originated. */
  TRADE: 0x82,
  /** wallet, token, quote → Position JSON (weighted-average cost, exact rationals). */
  POSITION: 0x83,
  /** wallet, token, quote, day u32 → realised PnL of that UTC day (rational "n/d", quote base units). */
  DAILY: 0x84,
  /** wallet, asset (20 bytes; native = 0x00…00 with kind) → first incoming value transfer JSON. */
  FIRST_FUNDING: 0x85,
  /** wallet, funder, asset → funder edge JSON {first, last, count, total}. */
  EDGE_IN: 0x86,
  /** funder, wallet, asset → same edge (everything a wallet funded). */
  EDGE_OUT: 0x87,
  /** wallet → first-seen JSON. */
  FIRST_SEEN: 0x88,
  /** token, funder, wallet → first buy coordinate JSON: cohort candidates (funded by one funder, bought the token). */
  COHORT_CAND: 0x89,
  /** cohort id (8 bytes) → {token, funder}. */
  COHORT_ID: 0x8a,
  /** token → funding generation u64 (bumps when a cohort candidate is added). */
  GENERATION: 0x8b,
  /** address → kind flags JSON (origin seen, contract created, emitted logs). */
  ADDRESS: 0x8c,
  /** wallet, token → ∅: tokens the wallet ever moved (assets are their non-zero balances). */
  HOLDING: 0x8d,
  /** wallet, token, funder → ∅: cohort candidacies of a wallet. */
  WALLET_COHORT: 0x8e,
  /**
   * wallet, block u64, txIndex u32 → {@link ActivityRefs} (binary): one row per transaction touching
   * the wallet (origin, recipient, transfer party or swap origin), naming its child rows in TX,
   * TRANSFER and TRADE, so the activity feed pages one row per parent (page work ∝ page size).
   */
  ACTIVITY: 0x8f,
} as const;

export const WALLET_TABLES = Object.values(WalletTable);
/** The reserved asset id of native currency in keys (rows say assetKind: native, asset: null). */
export const NATIVE_ASSET = `0x${'00'.repeat(20)}`;

const W = (t: number, a: string, extra = 0) => new KeyBuilder(21 + extra).u8(t).hex(a);
export const walletTxKey = (w: string, block: number, txIndex: number) =>
  W(WalletTable.TX, w, 12).u64(block).u32(txIndex).done();
export const walletTransferKey = (w: string, block: number, ord: number) =>
  W(WalletTable.TRANSFER, w, 12).u64(block).u32(ord).done();
export const walletTradeKey = (w: string, block: number, logIndex: number) =>
  W(WalletTable.TRADE, w, 12).u64(block).u32(logIndex).done();
export const positionKey = (w: string, token: string, quote: string) =>
  W(WalletTable.POSITION, w, 40).hex(token).hex(quote).done();
export const dailyKey = (w: string, token: string, quote: string, day: number) =>
  W(WalletTable.DAILY, w, 44).hex(token).hex(quote).u32(day).done();
export const firstFundingKey = (w: string, asset: string) =>
  W(WalletTable.FIRST_FUNDING, w, 20).hex(asset).done();
export const edgeInKey = (w: string, funder: string, asset: string) =>
  W(WalletTable.EDGE_IN, w, 40).hex(funder).hex(asset).done();
export const edgeOutKey = (funder: string, w: string, asset: string) =>
  W(WalletTable.EDGE_OUT, funder, 40).hex(w).hex(asset).done();
export const firstSeenKey = (w: string) => W(WalletTable.FIRST_SEEN, w).done();
export const cohortCandKey = (token: string, funder: string, w: string) =>
  W(WalletTable.COHORT_CAND, token, 40).hex(funder).hex(w).done();
export const cohortIdKey = (id: string) =>
  new KeyBuilder(9).u8(WalletTable.COHORT_ID).bytes(Buffer.from(id, 'hex')).done();
export const generationKey = (token: string) => W(WalletTable.GENERATION, token).done();
export const addressKey = (a: string) => W(WalletTable.ADDRESS, a).done();
export const walletPrefix = (t: number, w: string) => W(t, w).done();
export const holdingKey = (w: string, token: string) => W(WalletTable.HOLDING, w, 20).hex(token).done();
export const walletActivityKey = (w: string, block: number, txIndex: number) =>
  W(WalletTable.ACTIVITY, w, 12).u64(block).u32(txIndex).done();

/**
 * Children of one activity parent `(wallet, block, txIndex)`: the wallet's role bits in the
 * transaction (1 origin, 2 recipient; 0 when it is only a transfer party or swap origin), the
 * ordinals of its TRANSFER rows in that transaction (ascending: ERC-20 log indexes, then the native
 * ordinal 2^31 + txIndex) and the log indexes of its TRADE rows (ascending).
 */
export interface ActivityRefs {
  roles: number;
  transfers: number[];
  trades: number[];
}

/** Encodes {@link ActivityRefs}: u8 roles, u32 n, n × u32 ordinals, u32 m, m × u32 log indexes. */
export function encodeActivity(a: ActivityRefs): Buffer {
  const b = Buffer.allocUnsafe(9 + 4 * (a.transfers.length + a.trades.length));
  let o = b.writeUInt8(a.roles, 0);
  o = b.writeUInt32BE(a.transfers.length, o);
  for (const x of a.transfers) o = b.writeUInt32BE(x, o);
  o = b.writeUInt32BE(a.trades.length, o);
  for (const x of a.trades) o = b.writeUInt32BE(x, o);
  return b;
}

/** Inverse of {@link encodeActivity}. */
export function decodeActivity(b: Buffer): ActivityRefs {
  const roles = b.readUInt8(0);
  const n = b.readUInt32BE(1);
  const transfers: number[] = [];
  let o = 5;
  for (let i = 0; i < n; i++, o += 4) transfers.push(b.readUInt32BE(o));
  const m = b.readUInt32BE(o);
  o += 4;
  const trades: number[] = [];
  for (let i = 0; i < m; i++, o += 4) trades.push(b.readUInt32BE(o));
  return { roles, transfers, trades };
}
export const walletCohortKey = (w: string, token: string, funder: string) =>
  W(WalletTable.WALLET_COHORT, w, 40).hex(token).hex(funder).done();
