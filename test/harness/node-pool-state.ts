/**
 * A Uniswap pool's native state as the devnet node holds it at a block, read by `eth_call` at that
 * block (anvil keeps every block's state): V2 `getReserves()`, V3 `slot0()` and `liquidity()`,
 * V4 the PoolManager's `Pool.State` words through `extsload` (StateLibrary: `pools` at slot 6,
 * word 0 = slot0 with sqrtPriceX96 in the low 160 bits and the tick in the next 24, word 3 = the
 * in-range liquidity). The as-of suites compare the index's answers at N with it.
 */
import { keccak256 } from 'viem';
import { hex } from '../faults/lib.js';
import { jsonRpc } from './rpc.js';

/** A pool as the routes name it: protocol, contract (V4: the PoolManager) and V4 pool id. */
export interface NodePool {
  protocol: 'v2' | 'v3' | 'v4';
  address: string;
  poolId?: string | null;
}

/**
 * Native state as the routes render it (V2 reserves in base units; V3/V4 sqrtPriceX96 Q64.96, tick,
 * in-range liquidity L), null fields where the pool has none yet.
 */
export type NativeState = { reserve0?: string | null; reserve1?: string | null } & {
  sqrtPriceX96?: string | null;
  tick?: number | null;
  liquidity?: string | null;
};

/** An exact rational n/d (d > 0). */
export interface Ratio {
  n: bigint;
  d: bigint;
}

const pad = (v: bigint | string) => (typeof v === 'bigint' ? v.toString(16) : v.slice(2)).padStart(64, '0');
const int24 = (w: bigint) => Number(BigInt.asIntN(24, w));
const U160 = (1n << 160n) - 1n;
const U128 = (1n << 128n) - 1n;
const Q96 = 1n << 96n;

/** The 32-byte words `to` answers to `data` at block n on the node at `url`. */
export async function callWords(url: string, to: string, data: string, n: number): Promise<bigint[]> {
  const out = await jsonRpc<string>(url, 'eth_call', [{ to, data }, hex(n)]);
  return (out.slice(2).match(/.{64}/g) ?? []).map((w) => BigInt(`0x${w}`));
}

/** The state of pool `p` the node at `url` holds at the end of block n (module note). */
export async function nodePoolState(url: string, p: NodePool, n: number): Promise<NativeState> {
  if (p.protocol === 'v2') {
    const [r0, r1] = await callWords(url, p.address, '0x0902f1ac', n);
    return r0 === 0n && r1 === 0n
      ? { reserve0: null, reserve1: null }
      : { reserve0: r0.toString(), reserve1: r1.toString() };
  }
  let sqrt: bigint;
  let tick: number;
  let liq: bigint;
  if (p.protocol === 'v3') {
    const s0 = await callWords(url, p.address, '0x3850c7bd', n);
    [sqrt, tick] = [s0[0], int24(s0[1])];
    [liq] = await callWords(url, p.address, '0x1a686502', n);
  } else {
    const slot = BigInt(keccak256(`0x${pad(p.poolId!)}${pad(6n)}`));
    const [w0] = await callWords(url, p.address, `0x1e2eaeaf${pad(slot)}`, n);
    const [wl] = await callWords(url, p.address, `0x1e2eaeaf${pad(slot + 3n)}`, n);
    [sqrt, tick, liq] = [w0 & U160, int24(w0 >> 160n), wl & U128];
  }
  if (sqrt === 0n) return { sqrtPriceX96: null, tick: null, liquidity: null };
  return { sqrtPriceX96: sqrt.toString(), tick, liquidity: liq.toString() };
}

/**
 * The pool's marginal price in state `s`, currency1 base units per currency0 base unit: V2
 * reserve1 / reserve0, V3/V4 sqrtPriceX96² / 2^192; null without reserves or price.
 */
export function nativePrice(s: NativeState): Ratio | null {
  if (s.reserve0 !== undefined) {
    if (!s.reserve0 || !s.reserve1 || BigInt(s.reserve0) === 0n) return null;
    return { n: BigInt(s.reserve1), d: BigInt(s.reserve0) };
  }
  if (!s.sqrtPriceX96) return null;
  const q = BigInt(s.sqrtPriceX96);
  return { n: q * q, d: Q96 * Q96 };
}

/**
 * The pool's liquidity amounts in state `s` (currency0, currency1 base units): V2 the reserves,
 * V3/V4 the in-range virtual reserves L·2^96/√P and L·√P/2^96; null without them.
 */
export function nativeAmounts(s: NativeState): [Ratio, Ratio] | null {
  if (s.reserve0 !== undefined) {
    if (!s.reserve0 || !s.reserve1) return null;
    return [
      { n: BigInt(s.reserve0), d: 1n },
      { n: BigInt(s.reserve1), d: 1n },
    ];
  }
  if (!s.sqrtPriceX96 || s.liquidity === null || s.liquidity === undefined) return null;
  const [q, l] = [BigInt(s.sqrtPriceX96), BigInt(s.liquidity)];
  return [
    { n: l * Q96, d: q },
    { n: l * q, d: Q96 },
  ];
}

/** Whether two rationals are equal (cross-multiplied, exact). */
export const sameRatio = (a: Ratio, b: Ratio): boolean => a.n * b.d === b.n * a.d;

/** The inverse of a non-zero rational. */
export const invertRatio = (a: Ratio): Ratio => ({ n: a.d, d: a.n });
