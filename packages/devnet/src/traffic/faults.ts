/**
 * Deliberately failing traffic, so the indexer sees reverted transactions of several shapes: a
 * plain revert with a reason (ValueForwarder `fail`), a revert after internal value transfers
 * (`splitThenRevert`: traces whose frames are undone), an ERC-20 transfer of more than any balance,
 * and a Uniswap V2 ETH → token swap with an impossible minimum out (slippage revert in the router).
 */
import type { Address } from 'viem';
import { erc20Abi, forwarderAbi, v2RouterAbi } from '../abis.js';
import { FAR_DEADLINE } from '../math.js';
import { MAX, type TrafficGenerator } from './generator.js';

/** One of the four reverting shapes, drawn evenly. */
export async function revert(g: TrafficGenerator) {
  const x = g.wallet();
  const kind = Math.floor(g.rnd() * 4);
  const fwd = g.d.contracts.valueForwarder;
  const send = (
    label: string,
    to: Address,
    abi: readonly unknown[],
    fn: string,
    args: unknown[],
    gas: bigint,
    value = 0n,
  ) => g.call(label, x.w, to, abi, fn, args, gas, value);
  if (kind === 0)
    return send('revert-fail', fwd, forwarderAbi, 'fail', ['devnet: deliberate revert'], 60_000n);
  if (kind === 1) {
    const recips = [g.other(x).w.address, g.other(x).w.address];
    return send('revert-split', fwd, forwarderAbi, 'splitThenRevert', [recips], 150_000n, 10n ** 16n);
  }
  if (kind === 2) {
    const t = g.r(g.tokens.filter((t) => t.kind !== 'weth'));
    return send(
      'revert-overdraw',
      t.address,
      erc20Abi,
      'transfer',
      [g.other(x).w.address, 2n ** 200n],
      100_000n,
    );
  }
  const p = g.r(g.pools('uniswap-v2'));
  const weth = g.tok.get('WETH')!;
  const other = p.token0 === weth.address ? p.token1 : p.token1 === weth.address ? p.token0 : null;
  if (!other) return send('revert-fail', fwd, forwarderAbi, 'fail', ['devnet: no pair'], 60_000n);
  const path = [weth.address, other];
  const fn = 'swapExactETHForTokensSupportingFeeOnTransferTokens';
  const router = g.d.contracts.uniswapV2Router02;
  return send(
    'revert-slippage',
    router,
    v2RouterAbi,
    fn,
    [MAX, path, x.w.address, FAR_DEADLINE],
    300_000n,
    10n ** 16n,
  );
}
