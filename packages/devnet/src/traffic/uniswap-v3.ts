/**
 * Uniswap V3 traffic through the real periphery on the deployment's pools: `exactInputSingle`
 * swaps on the SwapRouter (ETH in where WETH is the input), position mints on the
 * NonfungiblePositionManager around the pool's current tick (`IncreaseLiquidity`, the NFT's
 * `Transfer`; the token id is kept from the receipt), and decrease-and-collect multicalls on those
 * positions (`DecreaseLiquidity`, `Collect`). Exercises the pools' `Swap`, `Mint`, `Burn`, `Collect`.
 */
import { decodeEventLog, encodeFunctionData, type Hex } from 'viem';
import { npmAbi, swapRouterAbi } from '../abis.js';
import { alignTick, FAR_DEADLINE } from '../math.js';
import type { TrafficGenerator } from './generator.js';

/** An exact-in swap of $20–5000 on a random pool. */
export async function v3Swap(g: TrafficGenerator) {
  const { p, x, tin, tout, amountIn } = g.swapDraw('uniswap-v3', 5000);
  const router = g.d.contracts.swapRouter;
  const params = {
    tokenIn: tin.address,
    tokenOut: tout.address,
    fee: p.fee,
    recipient: x.w.address,
    deadline: FAR_DEADLINE,
    amountIn,
    amountOutMinimum: 0n,
    sqrtPriceLimitX96: 0n,
  };
  const ethIn = tin.kind === 'weth' && g.rnd() < 0.5;
  if (!ethIn) await g.ensureApproval(x, tin.address, router);
  const [label, value] = ethIn ? ['v3-swap-eth-in', amountIn] : ['v3-swap', 0n];
  return g.call(label, x.w, router, swapRouterAbi, 'exactInputSingle', [params], 350_000n, value);
}

/** A position of $200–5000 a side, 200–6000 ticks either side of the current tick; its id is kept. */
export async function v3Mint(g: TrafficGenerator) {
  const npm = g.d.contracts.nonfungiblePositionManager;
  const { p, x, t0, t1 } = await g.liquidityDraw('uniswap-v3', npm);
  const slot = await g.read<[bigint, number]>(p.address, (await import('../abis.js')).v3PoolAbi, 'slot0', []);
  const tick = Number(slot[1]);
  const width = Math.floor(g.range(200, 6000));
  const tl = alignTick(tick - width, p.tickSpacing!);
  const tu = alignTick(tick + width, p.tickSpacing!) + p.tickSpacing!;
  const usd = g.range(200, 5000);
  return g.call(
    'v3-mint',
    x.w,
    npm,
    npmAbi,
    'mint',
    [
      {
        token0: t0.address,
        token1: t1.address,
        fee: p.fee,
        tickLower: tl,
        tickUpper: tu,
        amount0Desired: g.usdAmount(t0, usd),
        amount1Desired: g.usdAmount(t1, usd),
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: x.w.address,
        deadline: FAR_DEADLINE,
      },
    ],
    800_000n,
    0n,
    (r) => {
      if (r.status !== '0x1') return;
      for (const l of r.logs) {
        if (l.address.toLowerCase() !== npm.toLowerCase()) continue;
        try {
          const ev = decodeEventLog({ abi: npmAbi, data: l.data, topics: l.topics as [Hex, ...Hex[]] });
          if (ev.eventName === 'IncreaseLiquidity') x.v3Ids.push(ev.args.tokenId);
        } catch {
          /* Transfer etc. */
        }
      }
    },
  );
}

/** Half or all of a position's liquidity taken out and its tokens collected (a mint when nobody has one). */
export async function v3Decrease(g: TrafficGenerator) {
  const x =
    g.wallets.find((w) => w.v3Ids.length > 0 && g.rnd() < 0.5) ?? g.wallets.find((w) => w.v3Ids.length > 0);
  if (!x) return v3Mint(g);
  const id = x.v3Ids[Math.floor(g.rnd() * x.v3Ids.length)];
  const pos = await g.read<readonly unknown[]>(
    g.d.contracts.nonfungiblePositionManager,
    npmAbi,
    'positions',
    [id],
  );
  const liq = pos[7] as bigint;
  const npm = g.d.contracts.nonfungiblePositionManager;
  const full = g.rnd() < 0.4 || liq < 1000n;
  const dec = full ? liq : liq / 2n;
  const calls: Hex[] = [];
  if (dec > 0n)
    calls.push(
      encodeFunctionData({
        abi: npmAbi,
        functionName: 'decreaseLiquidity',
        args: [{ tokenId: id, liquidity: dec, amount0Min: 0n, amount1Min: 0n, deadline: FAR_DEADLINE }],
      }),
    );
  calls.push(
    encodeFunctionData({
      abi: npmAbi,
      functionName: 'collect',
      args: [
        { tokenId: id, recipient: x.w.address, amount0Max: 2n ** 128n - 1n, amount1Max: 2n ** 128n - 1n },
      ],
    }),
  );
  if (full) x.v3Ids = x.v3Ids.filter((i) => i !== id);
  return g.call('v3-decrease-collect', x.w, npm, npmAbi, 'multicall', [calls], 500_000n);
}
