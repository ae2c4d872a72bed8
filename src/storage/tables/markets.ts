/**
 * Tables of the markets projection (ids 0x60–0x6f). Pool keys are fixed 52 bytes so every index
 * sorts as bytes: v2/v3 = pool address + 32 zero bytes; v4 = PoolManager + poolId;
 * launchpad curve = curve address + token address + 12 zero bytes.
 */
import type { CandleRow, LiquidityEventRow, PoolRow, PoolState, SwapRow } from '../../markets/model.js';
import { K, V } from '../codec.js';
import { defineTable } from '../table.js';

/** 52-byte pool key as 0x hex. */
export const POOL_KEY = K.bytes(52);
const O = 'markets';

export const POOL = defineTable({
  id: 0x60,
  owner: O,
  name: 'pool',
  doc: 'registered pool',
  key: [POOL_KEY],
  keyNames: ['poolKey'],
  value: V.json<PoolRow>(),
});
export const POOL_BY_COORD = defineTable({
  id: 0x61,
  owner: O,
  name: 'pool_by_coordinate',
  doc: 'new-pools feed by creation coordinate',
  key: [K.u64, K.u32, POOL_KEY],
  keyNames: ['block', 'logIndex', 'poolKey'],
  value: V.empty,
});
export const POOL_BY_CURRENCY = defineTable({
  id: 0x62,
  owner: O,
  name: 'pool_by_currency',
  doc: 'pools holding a currency on either side',
  key: [K.address, POOL_KEY],
  keyNames: ['currency', 'poolKey'],
  value: V.empty,
});
export const STATE = defineTable({
  id: 0x63,
  owner: O,
  name: 'state',
  doc: 'exact protocol-native pool state (current)',
  key: [POOL_KEY],
  keyNames: ['poolKey'],
  value: V.json<PoolState>(),
});
export const STATE_HIST = defineTable({
  id: 0x64,
  owner: O,
  name: 'state_history',
  doc: 'pool state at the end of each block that changed it',
  key: [POOL_KEY, K.u64],
  keyNames: ['poolKey', 'block'],
  value: V.json<PoolState>(),
});
export const SWAP = defineTable({
  id: 0x65,
  owner: O,
  name: 'swap',
  doc: 'swaps of a pool in chain order (pool perspective)',
  key: [POOL_KEY, K.u64, K.u32],
  keyNames: ['poolKey', 'block', 'logIndex'],
  value: V.json<SwapRow>(),
});
export const CANDLE = defineTable({
  id: 0x66,
  owner: O,
  name: 'candle',
  doc: 'candles per frame (1 1s, 2 30s, 3 1m, 4 1h, 5 1d) by bucket start',
  key: [POOL_KEY, K.u8, K.u64],
  keyNames: ['poolKey', 'frame', 'bucketStart'],
  value: V.json<CandleRow>(),
});
export const LIQ_EVENT = defineTable({
  id: 0x67,
  owner: O,
  name: 'liquidity_event',
  doc: 'liquidity events of a pool in chain order',
  key: [POOL_KEY, K.u64, K.u32],
  keyNames: ['poolKey', 'block', 'logIndex'],
  value: V.json<LiquidityEventRow>(),
});
export const POOL_BY_ADDRESS = defineTable({
  id: 0x68,
  owner: O,
  name: 'pool_by_address',
  doc: 'pool key of a v2/v3 pool contract (lookup of emitters)',
  key: [K.address],
  keyNames: ['address'],
  value: V.hex,
});
export const TOKEN_SWAP = defineTable({
  id: 0x69,
  owner: O,
  name: 'token_swap',
  doc: 'swaps of a token across its pools in chain order; value = pool key',
  key: [K.address, K.u64, K.u32],
  keyNames: ['token', 'block', 'logIndex'],
  value: V.hex,
});
export const BLOCK_SWAP = defineTable({
  id: 0x6a,
  owner: O,
  name: 'block_swap',
  doc: 'swaps of a block; value = pool key (for projections rebuilt after markets)',
  key: [K.u64, K.u32],
  keyNames: ['block', 'logIndex'],
  value: V.hex,
});

export const MARKETS_TABLES = [
  POOL,
  POOL_BY_COORD,
  POOL_BY_CURRENCY,
  STATE,
  STATE_HIST,
  SWAP,
  CANDLE,
  LIQ_EVENT,
  POOL_BY_ADDRESS,
  TOKEN_SWAP,
  BLOCK_SWAP,
];
