/**
 * Tables of the markets projection (ids 0x60–0x6f). Pool keys are fixed 52 bytes so every index
 * sorts as bytes: v2/v3 = pool address + 32 zero bytes; v4 = PoolManager + poolId;
 * launchpad curve = curve address + token address + 12 zero bytes.
 */

import { K, V } from '../codec.js';
import type { CandleRow, LiquidityEventRow, PoolCum, PoolRow, PoolState, SwapRow } from '../rows/markets.js';
import { defineTable } from '../table.js';

/** Byte width of a pool key. */
export const POOL_KEY_BYTES = 52;
/** 52-byte pool key as 0x hex. */
export const POOL_KEY = K.bytes(POOL_KEY_BYTES);

/**
 * The pool key of a pool (lowercase 0x hex, {@link POOL_KEY_BYTES} bytes): v2/v3 = pool address +
 * 32 zero bytes; v4 = PoolManager + poolId (`b`); launchpad curve = curve address + token address
 * (`b`) + 12 zero bytes.
 */
export function poolKeyOf(protocol: 'v2' | 'v3' | 'v4' | 'launchpad', a: string, b?: string): string {
  const x = a.slice(2).toLowerCase();
  if (protocol === 'v4') return `0x${x}${b!.slice(2).toLowerCase()}`;
  if (protocol === 'launchpad') return `0x${x}${b!.slice(2).toLowerCase()}${'00'.repeat(12)}`;
  return `0x${x}${'00'.repeat(32)}`;
}
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

/** Non-negative bigint as u8 length + big-endian magnitude. */
const bigBytes = (v: bigint): Buffer => {
  if (v === 0n) return Buffer.alloc(0);
  const h = v.toString(16);
  return Buffer.from(h.length & 1 ? `0${h}` : h, 'hex');
};

/**
 * {@link PoolCum} as u32 trades, u32 buys, u32 sells, four (u8 n, n bytes big-endian) volumes
 * (volume0, volume1, buyVolume0, buyVolume1), then open and close as (u16 n, n bytes latin1).
 */
export const poolCumCodec = V.binary<PoolCum>(
  'PoolCum',
  (c) => {
    const vs = [c.volume0, c.volume1, c.buyVolume0, c.buyVolume1].map(bigBytes);
    const b = Buffer.allocUnsafe(
      12 + 4 + vs.reduce((a, x) => a + x.length, 0) + 4 + c.open.length + c.close.length,
    );
    let o = b.writeUInt32BE(c.trades, 0);
    o = b.writeUInt32BE(c.buys, o);
    o = b.writeUInt32BE(c.sells, o);
    for (const x of vs) {
      o = b.writeUInt8(x.length, o);
      o += x.copy(b, o);
    }
    for (const s of [c.open, c.close]) {
      o = b.writeUInt16BE(s.length, o);
      o += b.write(s, o, 'latin1');
    }
    return b;
  },
  (b) => {
    let o = 12;
    const big = () => {
      const n = b[o];
      const v = n ? BigInt(`0x${b.toString('hex', o + 1, o + 1 + n)}`) : 0n;
      o += 1 + n;
      return v;
    };
    const str = () => {
      const n = b.readUInt16BE(o);
      const s = b.toString('latin1', o + 2, o + 2 + n);
      o += 2 + n;
      return s;
    };
    const volume0 = big();
    const volume1 = big();
    const buyVolume0 = big();
    const buyVolume1 = big();
    const open = str();
    return {
      trades: b.readUInt32BE(0),
      buys: b.readUInt32BE(4),
      sells: b.readUInt32BE(8),
      volume0,
      volume1,
      buyVolume0,
      buyVolume1,
      open,
      close: str(),
    };
  },
);

export const POOL_CUM = defineTable({
  id: 0x6b,
  owner: O,
  name: 'pool_cumulative',
  doc: 'running swap totals of a pool through each block it traded in (window stats = difference of two rows)',
  key: [POOL_KEY, K.u64],
  keyNames: ['poolKey', 'block'],
  value: poolCumCodec,
});
export const MINUTE_BLOCK = defineTable({
  id: 0x6c,
  owner: O,
  name: 'minute_first_block',
  doc: 'first block whose timestamp falls in each 1-minute bucket (unix seconds, aligned): window starts as blocks',
  key: [K.u64],
  keyNames: ['minuteStart'],
  value: V.u64,
});
export const TRADER_LAST = defineTable({
  id: 0x6d,
  owner: O,
  name: 'pool_trader_last',
  doc: 'block of the last swap each transaction origin made in a pool',
  key: [POOL_KEY, K.address],
  keyNames: ['poolKey', 'origin'],
  value: V.u64,
});
export const TRADER_BY_LAST = defineTable({
  id: 0x6e,
  owner: O,
  name: 'pool_trader_by_last',
  doc: 'origins of a pool by the block of their last swap (distinct traders since a block = a range count)',
  key: [POOL_KEY, K.u64, K.address],
  keyNames: ['poolKey', 'block', 'origin'],
  value: V.empty,
});
export const TOKEN_POOL_BY_LAST = defineTable({
  id: 0x6f,
  owner: O,
  name: 'token_pool_by_last',
  doc: 'pools of a token (either side) by the block of their last swap: the pools that traded since a block, without visiting idle ones',
  key: [K.address, K.u64, POOL_KEY],
  keyNames: ['token', 'block', 'poolKey'],
  value: V.empty,
});
/** 0x60–0x6f is full: the markets owner grows downwards from 0x5f (0x54–0x5e are free). */
export const POOL_CUM_LAST = defineTable({
  id: 0x5f,
  owner: O,
  name: 'pool_cumulative_last',
  doc: 'block of the latest pool_cumulative row of a pool (a point read for ingest, which never walks rows a pending write may hold)',
  key: [POOL_KEY],
  keyNames: ['poolKey'],
  value: V.u64,
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
  POOL_CUM,
  MINUTE_BLOCK,
  TRADER_LAST,
  TRADER_BY_LAST,
  TOKEN_POOL_BY_LAST,
  POOL_CUM_LAST,
];
