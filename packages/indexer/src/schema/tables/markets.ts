/**
 * Tables of the markets projection (ids 0x60–0x6f). Pool keys are fixed 52 bytes so every index
 * sorts as bytes: v2/v3 = pool address + 32 zero bytes; v4 = PoolManager + poolId;
 * launchpad curve = curve address + token address + 12 zero bytes.
 */

import { K, V } from '../codec.js';
import type { CandleRow, LiquidityEventRow, PoolCum, PoolRow, PoolState, SwapRow } from '../rows/markets.js';
import { tableDeclarer } from '../table.js';

const O = 'markets';
const table = tableDeclarer(O);

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

export const POOL = table(0x60, 'pool', [POOL_KEY], ['poolKey'], V.json<PoolRow>(), 'registered pool');
// biome-ignore format: the registry keeps one table a line
export const POOL_BY_COORD = table(0x61, 'pool_by_coordinate', [K.u64, K.u32, POOL_KEY], ['block', 'logIndex', 'poolKey'], V.empty, 'new-pools feed by creation coordinate');
// biome-ignore format: the registry keeps one table a line
export const POOL_BY_CURRENCY = table(0x62, 'pool_by_currency', [K.address, POOL_KEY], ['currency', 'poolKey'], V.empty, 'pools holding a currency on either side');
// biome-ignore format: the registry keeps one table a line
export const STATE = table(0x63, 'state', [POOL_KEY], ['poolKey'], V.json<PoolState>(), 'exact protocol-native pool state (current)');
// biome-ignore format: the registry keeps one table a line
export const STATE_HIST = table(0x64, 'state_history', [POOL_KEY, K.u64], ['poolKey', 'block'], V.json<PoolState>(), 'pool state at the end of each block that changed it');
// biome-ignore format: the registry keeps one table a line
export const SWAP = table(0x65, 'swap', [POOL_KEY, K.u64, K.u32], ['poolKey', 'block', 'logIndex'], V.json<SwapRow>(), 'swaps of a pool in chain order (pool perspective)');
// biome-ignore format: the registry keeps one table a line
export const CANDLE = table(0x66, 'candle', [POOL_KEY, K.u8, K.u64], ['poolKey', 'frame', 'bucketStart'], V.json<CandleRow>(), 'candles per frame (1 1s, 2 30s, 3 1m, 4 1h, 5 1d) by bucket start');
// biome-ignore format: the registry keeps one table a line
export const LIQ_EVENT = table(0x67, 'liquidity_event', [POOL_KEY, K.u64, K.u32], ['poolKey', 'block', 'logIndex'], V.json<LiquidityEventRow>(), 'liquidity events of a pool in chain order');
// biome-ignore format: the registry keeps one table a line
export const POOL_BY_ADDRESS = table(0x68, 'pool_by_address', [K.address], ['address'], V.hex, 'pool key of a v2/v3 pool contract (lookup of emitters)');
// biome-ignore format: the registry keeps one table a line
export const TOKEN_SWAP = table(0x69, 'token_swap', [K.address, K.u64, K.u32], ['token', 'block', 'logIndex'], V.hex, 'swaps of a token across its pools in chain order; value = pool key');
// biome-ignore format: the registry keeps one table a line
export const BLOCK_SWAP = table(0x6a, 'block_swap', [K.u64, K.u32], ['block', 'logIndex'], V.hex, 'swaps of a block; value = pool key (for projections rebuilt after markets)');

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

// biome-ignore format: the registry keeps one table a line
export const POOL_CUM = table(0x6b, 'pool_cumulative', [POOL_KEY, K.u64], ['poolKey', 'block'], poolCumCodec, 'running swap totals of a pool through each block it traded in (window stats = difference of two rows)');
// biome-ignore format: the registry keeps one table a line
export const MINUTE_BLOCK = table(0x6c, 'minute_first_block', [K.u64], ['minuteStart'], V.u64, 'first block whose timestamp falls in each 1-minute bucket (unix seconds, aligned): window starts as blocks');
// biome-ignore format: the registry keeps one table a line
export const TRADER_LAST = table(0x6d, 'pool_trader_last', [POOL_KEY, K.address], ['poolKey', 'origin'], V.u64, 'block of the last swap each transaction origin made in a pool');
// biome-ignore format: the registry keeps one table a line
export const TRADER_BY_LAST = table(0x6e, 'pool_trader_by_last', [POOL_KEY, K.u64, K.address], ['poolKey', 'block', 'origin'], V.empty, 'origins of a pool by the block of their last swap (distinct traders since a block = a range count)');
// biome-ignore format: the registry keeps one table a line
export const TOKEN_POOL_BY_LAST = table(0x6f, 'token_pool_by_last', [K.address, K.u64, POOL_KEY], ['token', 'block', 'poolKey'], V.empty, 'pools of a token (either side) by the block of their last swap: the pools that traded since a block, without visiting idle ones');
/** 0x60–0x6f is full: the markets owner grows downwards from 0x5f (0x54–0x5e are free). */
// biome-ignore format: the registry keeps one table a line
export const POOL_CUM_LAST = table(0x5f, 'pool_cumulative_last', [POOL_KEY], ['poolKey'], V.u64, 'block of the latest pool_cumulative row of a pool (a point read for ingest, which never walks rows a pending write may hold)');

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
