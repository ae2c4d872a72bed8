/**
 * Uniswap V2 traffic through the real Router02 on the deployment's pairs: exact-in swaps (token →
 * token, ETH in, ETH out; the fee-on-transfer-safe variants), liquidity adds and removals
 * (`addLiquidity`/`removeLiquidity`), with the approvals they need. Exercises the pairs' `Swap`,
 * `Sync`, `Mint`, `Burn` and LP-token `Transfer` events, and WETH's deposit/withdrawal on the ETH legs.
 */
import { v2PairAbi, v2RouterAbi } from '../abis.js';
import { FAR_DEADLINE } from '../math.js';
import type { TrafficGenerator } from './generator.js';

/** An exact-in swap of $20–3000 on a random pair, with ETH in or out where WETH is a side. */
export async function v2Swap(g: TrafficGenerator) {
  const { x, tin, tout, amountIn } = g.swapDraw('uniswap-v2', 3000);
  const router = g.d.contracts.uniswapV2Router02;
  const tail = [[tin.address, tout.address], x.w.address, FAR_DEADLINE];
  const ethIn = tin.kind === 'weth' && g.rnd() < 0.6;
  if (!ethIn) await g.ensureApproval(x, tin.address, router);
  const ethOut = !ethIn && tout.kind === 'weth' && g.rnd() < 0.5;
  const label = ethIn ? 'v2-swap-eth-in' : ethOut ? 'v2-swap-eth-out' : 'v2-swap';
  const fn = `swapExact${ethIn ? 'ETH' : 'Tokens'}For${ethOut ? 'ETH' : 'Tokens'}SupportingFeeOnTransferTokens`;
  const [args, value] = ethIn ? [[0n, ...tail], amountIn] : [[amountIn, 0n, ...tail], 0n];
  return g.call(label, x.w, router, v2RouterAbi, fn, args, 300_000n, value);
}

/** Liquidity worth $200–4000 a side added to a random pair. */
export async function v2Add(g: TrafficGenerator) {
  const router = g.d.contracts.uniswapV2Router02;
  const { x, t0, t1 } = await g.liquidityDraw('uniswap-v2', router);
  const usd = g.range(200, 4000);
  const [a0, a1] = [g.usdAmount(t0, usd), g.usdAmount(t1, usd)];
  const args = [t0.address, t1.address, a0, a1, 0n, 0n, x.w.address, FAR_DEADLINE];
  return g.call('v2-add-liquidity', x.w, router, v2RouterAbi, 'addLiquidity', args, 400_000n);
}

/** 20–100 % of a wallet's LP tokens of a random pair removed (an add when it holds none). */
export async function v2Remove(g: TrafficGenerator) {
  const p = g.r(g.pools('uniswap-v2'));
  const x = g.wallet();
  const lp = await g.read<bigint>(p.address, v2PairAbi, 'balanceOf', [x.w.address]);
  if (lp === 0n) return v2Add(g);
  const router = g.d.contracts.uniswapV2Router02;
  await g.ensureApproval(x, p.address, router);
  const share = (lp * BigInt(Math.floor(g.range(20, 100)))) / 100n;
  const args = [p.token0, p.token1, share, 0n, 0n, x.w.address, FAR_DEADLINE];
  return g.call('v2-remove-liquidity', x.w, router, v2RouterAbi, 'removeLiquidity', args, 400_000n);
}
