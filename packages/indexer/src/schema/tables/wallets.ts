/**
 * Tables of the wallets projection (ids 0x80–0x8f). Wallet first in every key, so a wallet's rows
 * are one contiguous range in chain-coordinate order.
 */

import { hash } from 'node:crypto';
import { K, V } from '../codec.js';
import { Packer, Unpacker } from '../pack.js';
import type {
  ActivityRefs,
  AddressFlags,
  CohortCandidate,
  FirstFunding,
  FundingEdge,
  Position,
  PositionVersion,
  WalletFirstSeen,
  WalletTransferRow,
} from '../rows/wallets.js';
import { tableDeclarer } from '../table.js';

const O = 'wallets';
const table = tableDeclarer(O);

/** {@link ActivityRefs} as u8 roles, u32 n, n × u32 transfer ordinals, u32 m, m × u32 trade log indexes. */
const activityRefs = V.binary<ActivityRefs>(
  'ActivityRefs',
  (a) => {
    const b = Buffer.allocUnsafe(9 + 4 * (a.transfers.length + a.trades.length));
    let o = b.writeUInt8(a.roles, 0);
    o = b.writeUInt32BE(a.transfers.length, o);
    for (const x of a.transfers) o = b.writeUInt32BE(x, o);
    o = b.writeUInt32BE(a.trades.length, o);
    for (const x of a.trades) o = b.writeUInt32BE(x, o);
    return b;
  },
  (b) => {
    const roles = b.readUInt8(0);
    const n = b.readUInt32BE(1);
    const transfers: number[] = new Array(n);
    let o = 5;
    for (let i = 0; i < n; i++, o += 4) transfers[i] = b.readUInt32BE(o);
    const m = b.readUInt32BE(o);
    o += 4;
    const trades: number[] = new Array(m);
    for (let i = 0; i < m; i++, o += 4) trades[i] = b.readUInt32BE(o);
    return { roles, transfers, trades };
  },
);

/** One byte of role bits: 1 origin, 2 recipient. */
const roleBits = V.binary<number>(
  'u8 roles',
  (v) => Buffer.from([v]),
  (b) => b[0] ?? 0,
);

/** The reserved asset id of native currency in keys (rows say assetKind: native, asset: null). */
export const NATIVE_ASSET = `0x${'00'.repeat(20)}` as const;

/** Version of the cohort admission rule; part of every cohort id (see src/cohorts). */
export const COHORT_RULE_VERSION = 1;

/**
 * Cohort id (the COHORT_ID key): the first 8 bytes of sha256(`token:funder:ruleVersion`), as 16
 * lowercase hex digits without `0x`.
 */
export function cohortIdOf(token: string, funder: string, ruleVersion: number): string {
  // One-shot: no Hash object (and its weak handle for the scavenger) per id; see server/auth.ts hashKey.
  return hash('sha256', `${token}:${funder}:${ruleVersion}`, 'hex').slice(0, 16);
}

// biome-ignore format: the registry keeps one table a line
export const WALLET_TX = table(0x80, 'transaction', [K.address, K.u64, K.u32], ['wallet', 'block', 'txIndex'], roleBits, 'top-level transactions of a wallet; role bits 1 origin, 2 recipient');
const DIRECTIONS = ['in', 'out', 'self'] as const;
/**
 * A log index as its packed u32: 0xffffffff marks a native transfer (no log), so a log index of
 * 0xffffffff cannot be stored.
 * @throws RangeError for a log index outside 0..0xfffffffe.
 */
function logIndexOrNative(logIndex: number | null): number {
  if (logIndex === null) return 0xffff_ffff;
  if (!Number.isInteger(logIndex) || logIndex < 0 || logIndex >= 0xffff_ffff)
    throw new RangeError(`log index ${logIndex} outside 0..0xfffffffe (0xffffffff marks a native transfer)`);
  return logIndex;
}
/**
 * WalletTransferRow packed (schema/pack.ts): block u64, txIndex u32, logIndex u32 (0xffffffff:
 * native), txHash 32 bytes, flags u8 (bit 0 erc20, bits 1–2 direction), asset 20 bytes (ERC-20
 * only), from and to 20 bytes each, value (length-prefixed big-endian) — about 130 bytes instead
 * of ~420 of JSON.
 */
const walletTransferRow = V.binary<WalletTransferRow>(
  'WalletTransferRow',
  (r) => {
    const p = new Packer(8 + 4 + 4 + 32 + 1 + 60 + 33)
      .u64(r.block)
      .u32(r.txIndex)
      .u32(logIndexOrNative(r.logIndex))
      .hex(r.txHash, 32)
      .u8((r.assetKind === 'erc20' ? 1 : 0) | (DIRECTIONS.indexOf(r.direction) << 1));
    if (r.assetKind === 'erc20') p.hex(r.asset as string, 20);
    return p.hex(r.from, 20).hex(r.to, 20).uint(BigInt(r.value)).done();
  },
  (b) => {
    const u = new Unpacker(b);
    const block = u.u64();
    const txIndex = u.u32();
    const li = u.u32();
    const txHash = u.hex(32);
    const flags = u.u8();
    const erc20 = (flags & 1) === 1;
    const asset = erc20 ? u.hex(20) : null;
    const from = u.hex(20);
    const to = u.hex(20);
    const value = u.uint();
    return {
      block,
      txIndex,
      logIndex: li === 0xffff_ffff ? null : li,
      txHash,
      assetKind: erc20 ? 'erc20' : 'native',
      asset,
      from,
      to,
      value,
      direction: DIRECTIONS[(flags >> 1) & 3],
    };
  },
);

// biome-ignore format: the registry keeps one table a line
export const WALLET_TRANSFER = table(0x81, 'transfer', [K.address, K.u64, K.u32], ['wallet', 'block', 'ordinal'], walletTransferRow, 'direction-aware transfers; ordinal = ERC-20 log index, or 2^31 + txIndex for native value');
// biome-ignore format: the registry keeps one table a line
export const WALLET_TRADE = table(0x82, 'trade', [K.address, K.u64, K.u32], ['wallet', 'block', 'logIndex'], V.hex, 'swaps the wallet originated (transaction origin); value = pool key');
// biome-ignore format: the registry keeps one table a line
export const POSITION = table(0x83, 'position', [K.address, K.address, K.address], ['wallet', 'token', 'quote'], V.json<Position>(), 'weighted-average-cost position (exact rationals)');
// biome-ignore format: the registry keeps one table a line
export const DAILY = table(0x84, 'daily_pnl', [K.address, K.address, K.address, K.u32], ['wallet', 'token', 'quote', 'day'], V.text, 'realised PnL of a UTC day, quote base units, exact rational "n/d"');
// biome-ignore format: the registry keeps one table a line
export const FIRST_FUNDING = table(0x85, 'first_funding', [K.address, K.address], ['wallet', 'asset'], V.json<FirstFunding>(), 'first incoming value transfer per asset (native = the zero asset id)');
/**
 * FundingEdge packed (schema/pack.ts): funder 20 bytes, flags u8 (bit 0 erc20), asset 20 bytes
 * (ERC-20 only), first transfer (block u64, txIndex u32, logIndex u32 with 0xffffffff for native,
 * txHash 32 bytes, value), lastBlock u64, count u32, total — a hot row (every funding transfer
 * rewrites it), about 150 bytes instead of ~330 of JSON.
 */
const fundingEdge = V.binary<FundingEdge>(
  'FundingEdge',
  (e) => {
    const p = new Packer(20 + 1 + 20 + 8 + 4 + 4 + 32 + 33 + 8 + 4 + 33)
      .hex(e.funder, 20)
      .u8(e.assetKind === 'erc20' ? 1 : 0);
    if (e.assetKind === 'erc20') p.hex(e.asset as string, 20);
    return p
      .u64(e.first.block)
      .u32(e.first.txIndex)
      .u32(logIndexOrNative(e.first.logIndex))
      .hex(e.first.txHash, 32)
      .uint(BigInt(e.first.value))
      .u64(e.lastBlock)
      .u32(e.count)
      .uint(BigInt(e.total))
      .done();
  },
  (b) => {
    const u = new Unpacker(b);
    const funder = u.hex(20);
    const erc20 = u.u8() === 1;
    const asset = erc20 ? u.hex(20) : null;
    const block = u.u64();
    const txIndex = u.u32();
    const li = u.u32();
    const txHash = u.hex(32);
    const value = u.uint();
    const lastBlock = u.u64();
    const count = u.u32();
    const total = u.uint();
    return {
      funder,
      assetKind: erc20 ? 'erc20' : 'native',
      asset,
      first: { block, txIndex, logIndex: li === 0xffff_ffff ? null : li, txHash, value },
      lastBlock,
      count,
      total,
    };
  },
);

// biome-ignore format: the registry keeps one table a line
export const EDGE_IN = table(0x86, 'funding_edge_in', [K.address, K.address, K.address], ['wallet', 'funder', 'asset'], fundingEdge, 'funder edges into a wallet per asset');
// biome-ignore format: the registry keeps one table a line
export const EDGE_OUT = table(0x87, 'funding_edge_out', [K.address, K.address, K.address], ['funder', 'wallet', 'asset'], V.empty, 'the same edges by funder (everything a wallet funded): an index of funding_edge_in, which holds each edge once');
// biome-ignore format: the registry keeps one table a line
export const FIRST_SEEN = table(0x88, 'first_seen', [K.address], ['wallet'], V.json<WalletFirstSeen>(), 'when and how a wallet was first observed');
// biome-ignore format: the registry keeps one table a line
export const COHORT_CAND = table(0x89, 'cohort_candidate', [K.address, K.address, K.address], ['token', 'funder', 'wallet'], V.json<CohortCandidate>(), 'wallets funded by one funder that bought the token (first buy coordinate)');
// biome-ignore format: the registry keeps one table a line
export const COHORT_ID = table(0x8a, 'cohort', [K.bytes(8)], ['cohortId'], V.json<{ token: string; funder: string }>(), 'cohort id (8 bytes) → its token and funder');
// biome-ignore format: the registry keeps one table a line
export const GENERATION = table(0x8b, 'funding_generation', [K.address], ['token'], V.u64, 'funding generation of a token (bumps when a cohort candidate is added)');
// biome-ignore format: the registry keeps one table a line
export const ADDRESS = table(0x8c, 'address', [K.address], ['address'], V.json<AddressFlags>(), 'address observations: first block as origin, created, emitting logs');
// biome-ignore format: the registry keeps one table a line
export const HOLDING = table(0x8d, 'holding', [K.address, K.address], ['wallet', 'token'], V.empty, 'tokens a wallet ever moved (assets are their non-zero balances)');
// biome-ignore format: the registry keeps one table a line
export const WALLET_COHORT = table(0x8e, 'wallet_cohort', [K.address, K.address, K.address], ['wallet', 'token', 'funder'], V.empty, 'cohort candidacies of a wallet');
// biome-ignore format: the registry keeps one table a line
export const ACTIVITY = table(0x8f, 'activity', [K.address, K.u64, K.u32], ['wallet', 'block', 'txIndex'], activityRefs, 'one row per transaction touching the wallet, naming its child rows (activity feed parents)', { insertOnly: true });

/**
 * {@link PositionVersion} packed: buys u32, sells u32, firstBlock u64, then qty, cost, realised,
 * boughtQty, soldQty and unexplainedSold as (u16 n, n bytes latin1) decimal or "n/d" text (signed,
 * any size) — about 60 bytes against ~300 of the position's JSON.
 */
export const positionVersionCodec = V.binary<PositionVersion>(
  'PositionVersion',
  (p) => {
    const texts = [p.qty, p.cost, p.realised, p.boughtQty, p.soldQty, p.unexplainedSold];
    const b = Buffer.allocUnsafe(16 + texts.reduce((a, t) => a + 2 + t.length, 0));
    let o = b.writeUInt32BE(p.buys, 0);
    o = b.writeUInt32BE(p.sells, o);
    o = b.writeUInt32BE(Math.floor(p.firstBlock / 0x1_0000_0000), o);
    o = b.writeUInt32BE(p.firstBlock >>> 0, o);
    for (const t of texts) {
      o = b.writeUInt16BE(t.length, o);
      o += b.write(t, o, 'latin1');
    }
    return b;
  },
  (b) => {
    let o = 16;
    const text = () => {
      const n = b.readUInt16BE(o);
      const s = b.toString('latin1', o + 2, o + 2 + n);
      o += 2 + n;
      return s;
    };
    const [qty, cost, realised, boughtQty, soldQty, unexplainedSold] = [1, 2, 3, 4, 5, 6].map(text);
    return {
      buys: b.readUInt32BE(0),
      sells: b.readUInt32BE(4),
      firstBlock: b.readUInt32BE(8) * 0x1_0000_0000 + b.readUInt32BE(12),
      qty,
      cost,
      realised,
      boughtQty,
      soldQty,
      unexplainedSold,
    };
  },
);

/** 0x80–0x8f is full: the wallets owner grows upwards from 0x90. */
// biome-ignore format: the registry keeps one table a line
export const POSITION_HIST = table(0x90, 'position_history', [K.address, K.address, K.address, K.u64], ['wallet', 'token', 'quote', 'block'], positionVersionCodec, 'weighted-average-cost position at the end of each block that traded it (block = its lastBlock): positions and PnL as of a block');
// biome-ignore format: the registry keeps one table a line
export const GENERATION_HIST = table(0x91, 'funding_generation_history', [K.address, K.u64], ['token', 'block'], V.u64, 'funding generation of a token at the end of each block that bumped it');

export const WALLETS_TABLES = [
  WALLET_TX,
  WALLET_TRANSFER,
  WALLET_TRADE,
  POSITION,
  DAILY,
  FIRST_FUNDING,
  EDGE_IN,
  EDGE_OUT,
  FIRST_SEEN,
  COHORT_CAND,
  COHORT_ID,
  GENERATION,
  ADDRESS,
  HOLDING,
  WALLET_COHORT,
  ACTIVITY,
  POSITION_HIST,
  GENERATION_HIST,
];
