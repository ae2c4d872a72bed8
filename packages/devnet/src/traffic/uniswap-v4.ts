/**
 * Uniswap V4 traffic through the v4-core test routers on the deployment's PoolManager pools
 * (native ETH pools included): swaps on PoolSwapTest (`Swap`) and liquidity adds and removals on
 * PoolModifyLiquidityTest (`ModifyLiquidity`, salt = the wallet), with the approvals they need.
 * The positions added are remembered per wallet so removals take out exactly what was put in.
 */
import { toHex, zeroAddress } from 'viem';
import { modifyLiquidityTestAbi, poolSwapTestAbi } from '../abis.js';
import { alignTick, MAX_SQRT_PRICE_MINUS_1, MIN_SQRT_PRICE_PLUS_1 } from '../math.js';
import type { ReceiptLite } from '../signer.js';
import type { PoolInfo } from '../types.js';
import type { TrafficGenerator, Wallet } from './generator.js';

/** The V4 PoolKey of `p`. */
function poolKey(p: PoolInfo) {
  return {
    currency0: p.token0,
    currency1: p.token1,
    fee: p.fee,
    tickSpacing: p.tickSpacing!,
    hooks: p.hooks ?? zeroAddress,
  };
}

/** An exact-in swap of $20–3000 on a random pool, to the price limit. */
export async function v4Swap(g: TrafficGenerator) {
  const { p, x, zeroIn: zeroForOne, tin, amountIn } = g.swapDraw('uniswap-v4', 3000);
  const router = g.d.contracts.poolSwapTest;
  const native = tin.address === zeroAddress;
  if (!native) await g.ensureApproval(x, tin.address, router);
  return g.call(
    'v4-swap',
    x.w,
    router,
    poolSwapTestAbi,
    'swap',
    [
      poolKey(p),
      {
        zeroForOne,
        amountSpecified: -amountIn,
        sqrtPriceLimitX96: zeroForOne ? MIN_SQRT_PRICE_PLUS_1 : MAX_SQRT_PRICE_MINUS_1,
      },
      { takeClaims: false, settleUsingBurn: false },
      '0x',
    ],
    450_000n,
    native ? amountIn : 0n,
  );
}

/** A small position ($100–2000 a side) 4000–8000 ticks either side of the seeded price; kept once mined. */
export async function v4Add(g: TrafficGenerator) {
  const { p, x, t0, t1 } = await g.liquidityDraw('uniswap-v4', g.d.contracts.poolModifyLiquidityTest);
  // Small full-ish range position around the seeded price: amounts stay well under balances.
  const { amountsFor, liquidityFor, priceToTick, rawPrice } = await import('../math.js');
  const price = rawPrice(t0.usdPrice, t0.decimals, t1.usdPrice, t1.decimals);
  const tick = priceToTick(price);
  const s = p.tickSpacing!;
  const tl = alignTick(tick - 4000 - Math.floor(g.rnd() * 4000), s);
  const tu = alignTick(tick + 4000 + Math.floor(g.rnd() * 4000), s);
  const usd = g.range(100, 2000);
  const liq = liquidityFor(price, tl, tu, Number(g.usdAmount(t0, usd)), Number(g.usdAmount(t1, usd))) / 2n;
  if (liq <= 0n) return null;
  const [need0] = amountsFor(price, tl, tu, Number(liq));
  const value = t0.address === zeroAddress ? BigInt(Math.ceil(need0 * 3)) + 10n ** 15n : 0n;
  return modifyV4(g, 'v4-add-liquidity', x, { pool: p, tl, tu, liq }, value, (r) => {
    if (r.status === '0x1') x.v4.push({ pool: p, tl, tu, liq });
  });
}

/** A V4 liquidity change of `x`'s position `pos` (salt = the wallet) by `pos.liq` (negative: removal). */
function modifyV4(
  g: TrafficGenerator,
  label: string,
  x: Wallet,
  pos: Wallet['v4'][number],
  value = 0n,
  onReceipt?: (r: ReceiptLite) => void,
) {
  const salt = toHex(BigInt(x.w.address), { size: 32 });
  const change = { tickLower: pos.tl, tickUpper: pos.tu, liquidityDelta: pos.liq, salt };
  const router = g.d.contracts.poolModifyLiquidityTest;
  const args = [poolKey(pos.pool), change, '0x'];
  return g.call(
    label,
    x.w,
    router,
    modifyLiquidityTestAbi,
    'modifyLiquidity',
    args,
    700_000n,
    value,
    onReceipt,
  );
}

/** A wallet's oldest V4 position taken out whole (an add when nobody has one). */
export async function v4Remove(g: TrafficGenerator) {
  const x = g.wallets.find((w) => w.v4.length > 0 && g.rnd() < 0.5) ?? g.wallets.find((w) => w.v4.length > 0);
  if (!x) return v4Add(g);
  const pos = x.v4.shift()!;
  return modifyV4(g, 'v4-remove-liquidity', x, { ...pos, liq: -pos.liq });
}
