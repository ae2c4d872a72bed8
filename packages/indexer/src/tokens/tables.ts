/**
 * Tables of the tokens projection (ids 0x20–0x33). Addresses are raw 20 bytes, blocks u64
 * big-endian, so every index sorts correctly as bytes.
 *
 * Versioned indices (R2: a walk at an older anchor sees that block's order): a `*_CUR` row holds
 * the current version with its `fromBlock`; when it changes, the old version moves to `*_HIST`
 * keyed by sort key + fromBlock with its `toBlock`. A row is valid at anchor A when
 * fromBlock ≤ A < toBlock.
 */
import { KeyBuilder } from '../storage/keys.js';

export const TokenTable = {
  /** addr → TokenRow JSON. */
  TOKEN: 0x20,
  /** firstSeen block u64, txIndex u32, logIndex u32, addr → ∅. Catalogue order. */
  TOKEN_BY_COORD: 0x21,
  /** deployer addr, block u64, txIndex u32, addr → ∅. */
  CREATOR_TOKEN: 0x22,
  /** addr → TokenStats JSON (current). */
  STATS: 0x23,
  /** addr, block u64 → TokenStats JSON as of the end of that block. */
  STATS_HIST: 0x24,
  /** addr, wallet → signed balance, decimal string (current). */
  BALANCE: 0x25,
  /** addr, wallet, block u64 → balance at the end of that block. */
  BALANCE_HIST: 0x26,
  /** addr, 32-byte (2^256-1-balance), wallet → fromBlock u64. Positive, non-sink balances. */
  HOLDER_CUR: 0x27,
  /** addr, inverted balance, wallet, fromBlock → toBlock u64. */
  HOLDER_HIST: 0x28,
  /** addr, walletId u64 → fromBlock u64 + balance string. Every non-zero balance. */
  HOLDER_ID_CUR: 0x29,
  /** addr, walletId u64, fromBlock → toBlock u64 + balance string. */
  HOLDER_ID_HIST: 0x2a,
  /** addr, block u64, logIndex u32 → transfer row JSON. */
  TRANSFER: 0x2b,
  /** addr, block u64, logIndex u32 → authority event JSON. */
  AUTHORITY: 0x2c,
  /** kind byte (1 symbol, 2 name), lowercase term, 0x00, addr → ∅. */
  SEARCH: 0x2d,
  /** wallet → walletId u64 (interned in first-seen order). */
  WALLET_ID: 0x2e,
  /** walletId u64 → wallet. */
  WALLET_BY_ID: 0x2f,
  /** utf8 counter name → u64. */
  COUNTER: 0x30,
  /** token addr, block u64 → launch JSON as of the end of that block. */
  LAUNCH_HIST: 0x31,
  /** pad index u16, block u64, logIndex u32 → token addr. */
  PAD_LAUNCH: 0x32,
  /** addr → reconciliation verdict JSON (node observation, written outside block batches). */
  RECON: 0x33,
} as const;

export const TOKEN_TABLES: number[] = Object.values(TokenTable);

const A = (b: KeyBuilder, a: string) => b.hex(a);
export const tokenKey = (a: string) => A(new KeyBuilder(21).u8(TokenTable.TOKEN), a).done();
export const tokenCoordKey = (block: number, txIndex: number, logIndex: number, a: string) =>
  A(new KeyBuilder(37).u8(TokenTable.TOKEN_BY_COORD).u64(block).u32(txIndex).u32(logIndex), a).done();
export const creatorKey = (deployer: string, block: number, txIndex: number, a: string) =>
  A(A(new KeyBuilder(53).u8(TokenTable.CREATOR_TOKEN), deployer).u64(block).u32(txIndex), a).done();
export const statsKey = (a: string) => A(new KeyBuilder(21).u8(TokenTable.STATS), a).done();
export const statsHistKey = (a: string, block: number) =>
  A(new KeyBuilder(29).u8(TokenTable.STATS_HIST), a).u64(block).done();
export const balanceKey = (a: string, w: string) =>
  A(A(new KeyBuilder(41).u8(TokenTable.BALANCE), a), w).done();
export const balanceHistKey = (a: string, w: string, block: number) =>
  A(A(new KeyBuilder(49).u8(TokenTable.BALANCE_HIST), a), w)
    .u64(block)
    .done();
export const transferKey = (a: string, block: number, logIndex: number) =>
  A(new KeyBuilder(33).u8(TokenTable.TRANSFER), a).u64(block).u32(logIndex).done();
export const authorityKey = (a: string, block: number, logIndex: number) =>
  A(new KeyBuilder(33).u8(TokenTable.AUTHORITY), a).u64(block).u32(logIndex).done();
export const walletIdKey = (w: string) => A(new KeyBuilder(21).u8(TokenTable.WALLET_ID), w).done();
export const walletByIdKey = (id: number) => new KeyBuilder(9).u8(TokenTable.WALLET_BY_ID).u64(id).done();
export const counterKey = (name: string) =>
  Buffer.concat([Buffer.from([TokenTable.COUNTER]), Buffer.from(name)]);
export const launchHistKey = (a: string, block: number) =>
  A(new KeyBuilder(29).u8(TokenTable.LAUNCH_HIST), a).u64(block).done();
export const padLaunchKey = (pad: number, block: number, logIndex: number) =>
  new KeyBuilder(15).u8(TokenTable.PAD_LAUNCH).u16(pad).u64(block).u32(logIndex).done();
export const searchKey = (kind: 1 | 2, term: string, a: string) =>
  Buffer.concat([
    Buffer.from([TokenTable.SEARCH, kind]),
    Buffer.from(term),
    Buffer.from([0]),
    Buffer.from(a.slice(2), 'hex'),
  ]);

/** Per-table prefix of a token (20-byte address after the table id). */
export const tokenPrefix = (table: number, a: string) => A(new KeyBuilder(21).u8(table), a).done();

const MAX_U256 = (1n << 256n) - 1n;
/** 32-byte big-endian of 2^256-1-balance: ascending key order = balance descending. */
export function invertedBalance(balance: bigint): Buffer {
  return Buffer.from((MAX_U256 - balance).toString(16).padStart(64, '0'), 'hex');
}
export function fromInverted(buf: Buffer, offset: number): bigint {
  return MAX_U256 - BigInt(`0x${buf.toString('hex', offset, offset + 32)}`);
}
