/**
 * Tables of the markets projection (ids 0x60–0x6f). Pool keys are fixed 52 bytes so every index
 * sorts as bytes: v2/v3 = pool address + 32 zero bytes; v4 = PoolManager + poolId;
 * launchpad curve = curve address + token address + 12 zero bytes.
 */
import { KeyBuilder } from '../storage/keys.js';

export const MarketTable = {
  /** poolKey → PoolRow JSON. */
  POOL: 0x60,
  /** block u64, logIndex u32, poolKey → ∅ (new-pools feed). */
  POOL_BY_COORD: 0x61,
  /** currency, poolKey → ∅. */
  POOL_BY_CURRENCY: 0x62,
  /** poolKey → PoolState JSON (current). */
  STATE: 0x63,
  /** poolKey, block u64 → PoolState JSON at the end of that block. */
  STATE_HIST: 0x64,
  /** poolKey, block u64, logIndex u32 → SwapRow JSON. */
  SWAP: 0x65,
  /** poolKey, frame u8, bucket start u64 → CandleRow JSON. */
  CANDLE: 0x66,
  /** poolKey, block u64, logIndex u32 → liquidity event JSON. */
  LIQ_EVENT: 0x67,
  /** v2/v3 pool address → poolKey (lookup of emitters). */
  POOL_BY_ADDRESS: 0x68,
  /** token (either currency), block u64, logIndex u32 → poolKey. Swaps of a token across its pools. */
  TOKEN_SWAP: 0x69,
  /** block u64, logIndex u32 → poolKey. Swaps of a block (for projections rebuilt after markets). */
  BLOCK_SWAP: 0x6a,
} as const;

export const MARKET_TABLES = Object.values(MarketTable);

export const POOL_KEY_BYTES = 52;

export function poolKeyOf(protocol: 'v2' | 'v3' | 'v4' | 'launchpad', a: string, b?: string): string {
  const x = a.slice(2).toLowerCase();
  if (protocol === 'v4') return `0x${x}${b!.slice(2).toLowerCase()}`;
  if (protocol === 'launchpad') return `0x${x}${b!.slice(2).toLowerCase()}${'00'.repeat(12)}`;
  return `0x${x}${'00'.repeat(32)}`;
}

const K = (t: number, poolKey: string, extra = 0) =>
  new KeyBuilder(1 + POOL_KEY_BYTES + extra).u8(t).hex(poolKey);
export const poolKey = (k: string) => K(MarketTable.POOL, k).done();
export const poolByCoordKey = (block: number, logIndex: number, k: string) =>
  new KeyBuilder(13 + POOL_KEY_BYTES).u8(MarketTable.POOL_BY_COORD).u64(block).u32(logIndex).hex(k).done();
export const poolByCurrencyKey = (currency: string, k: string) =>
  new KeyBuilder(21 + POOL_KEY_BYTES).u8(MarketTable.POOL_BY_CURRENCY).hex(currency).hex(k).done();
export const stateKey = (k: string) => K(MarketTable.STATE, k).done();
export const stateHistKey = (k: string, block: number) => K(MarketTable.STATE_HIST, k, 8).u64(block).done();
export const swapKey = (k: string, block: number, logIndex: number) =>
  K(MarketTable.SWAP, k, 12).u64(block).u32(logIndex).done();
export const candleKey = (k: string, frame: number, t: number) =>
  K(MarketTable.CANDLE, k, 9).u8(frame).u64(t).done();
export const liqKey = (k: string, block: number, logIndex: number) =>
  K(MarketTable.LIQ_EVENT, k, 12).u64(block).u32(logIndex).done();
export const poolByAddressKey = (a: string) =>
  new KeyBuilder(21).u8(MarketTable.POOL_BY_ADDRESS).hex(a).done();
/** Prefix of a per-pool table. */
export const poolPrefix = (t: number, k: string) => K(t, k).done();
export const tokenSwapKey = (token: string, block: number, logIndex: number) =>
  new KeyBuilder(33).u8(MarketTable.TOKEN_SWAP).hex(token).u64(block).u32(logIndex).done();
export const blockSwapKey = (block: number, logIndex: number) =>
  new KeyBuilder(13).u8(MarketTable.BLOCK_SWAP).u64(block).u32(logIndex).done();
