/** Pool pricing helpers (floats only for seeding prices/liquidity; amounts stay bigint). */
import {
  type Address,
  encodeAbiParameters,
  encodePacked,
  getCreate2Address,
  type Hex,
  keccak256,
} from 'viem';

export const MIN_TICK = -887272;
export const MAX_TICK = 887272;
export const MIN_SQRT_PRICE_PLUS_1 = 4295128740n;
export const MAX_SQRT_PRICE_MINUS_1 = 1461446703485210103287273052203988822378723970341n;
/** Deadline far in the future (2100-01-01), seconds. */
export const FAR_DEADLINE = 4_102_444_800n;
const Q96 = 2 ** 96;
/** Reference USD price of ETH the devnet seeds its pools with. */
export const ETH_USD = 3000;

/** Native ETH as a token (V4 pools use the zero address for it). */
export const NATIVE_ETH = {
  key: 'ETH',
  address: '0x0000000000000000000000000000000000000000',
  name: 'Ether',
  symbol: 'ETH',
  decimals: 18,
  kind: 'weth',
  usdPrice: ETH_USD,
} as const satisfies import('./types.js').TokenInfo;

/** Raw amount of a token worth `usd` at `usdPrice` with `decimals`. */
export function usdToRaw(usd: number, usdPrice: number, decimals: number): bigint {
  const units = usd / usdPrice; // whole tokens
  const scaled = BigInt(Math.round(units * 1e6));
  return (scaled * 10n ** BigInt(decimals)) / 1_000_000n;
}

/** Price of token0 in token1 raw units (raw1 per raw0). */
export function rawPrice(p0usd: number, d0: number, p1usd: number, d1: number): number {
  return (p0usd / p1usd) * 10 ** (d1 - d0);
}

export function sqrtPriceX96(price: number): bigint {
  return BigInt(Math.floor(Math.sqrt(price) * Q96));
}

export function priceToTick(price: number): number {
  return Math.floor(Math.log(price) / Math.log(1.0001));
}

export function alignTick(t: number, spacing: number): number {
  const a = Math.floor(t / spacing) * spacing;
  return Math.max(
    Math.ceil(MIN_TICK / spacing) * spacing,
    Math.min(Math.floor(MAX_TICK / spacing) * spacing, a),
  );
}

/** Liquidity for amounts (raw) over [tl, tu] at `price` (raw1 per raw0), scaled down 2 % for rounding. */
export function liquidityFor(
  price: number,
  tl: number,
  tu: number,
  amount0: number,
  amount1: number,
): bigint {
  const sp = Math.sqrt(price);
  const sa = 1.0001 ** (tl / 2);
  const sb = 1.0001 ** (tu / 2);
  let l: number;
  if (sp <= sa) l = (amount0 * sa * sb) / (sb - sa);
  else if (sp >= sb) l = amount1 / (sb - sa);
  else l = Math.min((amount0 * sp * sb) / (sb - sp), amount1 / (sp - sa));
  return BigInt(Math.floor(l * 0.98));
}

/** Amounts (raw, floats) needed for liquidity `l` over [tl, tu] at `price`. */
export function amountsFor(price: number, tl: number, tu: number, l: number): [number, number] {
  const sp = Math.sqrt(price);
  const sa = 1.0001 ** (tl / 2);
  const sb = 1.0001 ** (tu / 2);
  if (sp <= sa) return [(l * (sb - sa)) / (sa * sb), 0];
  if (sp >= sb) return [0, l * (sb - sa)];
  return [(l * (sb - sp)) / (sp * sb), l * (sp - sa)];
}

export function sortPair(a: Address, b: Address): [Address, Address] {
  return a.toLowerCase() < b.toLowerCase() ? [a, b] : [b, a];
}

export function v2PairAddress(factory: Address, initCodeHash: Hex, a: Address, b: Address): Address {
  const [t0, t1] = sortPair(a, b);
  return getCreate2Address({
    from: factory,
    salt: keccak256(encodePacked(['address', 'address'], [t0, t1])),
    bytecodeHash: initCodeHash,
  });
}

export function v3PoolAddress(
  factory: Address,
  initCodeHash: Hex,
  a: Address,
  b: Address,
  fee: number,
): Address {
  const [t0, t1] = sortPair(a, b);
  const salt = keccak256(
    encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'uint24' }], [t0, t1, fee]),
  );
  return getCreate2Address({ from: factory, salt, bytecodeHash: initCodeHash });
}

export interface PoolKey {
  currency0: Address;
  currency1: Address;
  fee: number;
  tickSpacing: number;
  hooks: Address;
}

export function v4PoolId(k: PoolKey): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'address' }, { type: 'address' }, { type: 'uint24' }, { type: 'int24' }, { type: 'address' }],
      [k.currency0, k.currency1, k.fee, k.tickSpacing, k.hooks],
    ),
  );
}
