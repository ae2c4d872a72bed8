/**
 * Market hot-read bench: building the big subjects on the devnet (interval mining off: send, then
 * evm_mine until empty) — a token with 500+ V4 pools and a wallet with 10,000+ activity rows.
 */

import type { TokenInfo } from '@chain-indexer/devnet';
import {
  devAccount,
  erc20Abi,
  modifyLiquidityTestAbi,
  poolManagerAbi,
  poolSwapTestAbi,
} from '@chain-indexer/devnet/contracts';
import {
  alignTick,
  liquidityFor,
  MAX_SQRT_PRICE_MINUS_1,
  MIN_SQRT_PRICE_PLUS_1,
  priceToTick,
  rawPrice,
  sqrtPriceX96,
  usdToRaw,
  v4PoolId,
} from '@chain-indexer/devnet/math';
import { type Abi, type Address, encodeFunctionData, type Hex, zeroAddress } from 'viem';
import type { TestDevnet } from '../../test/harness/devnet.js';
import { hex, log, rpc, rpcBatch } from '../lib.js';

/** Fee cap of the bench's own transactions (wei): far above any base fee full blocks can reach here. */
const MAX_FEE = 1_000_000_000_000n;
const TIP = 1_000_000_000n;

export interface Tx {
  from: Address;
  to: Address;
  abi: Abi;
  fn: string;
  args: unknown[];
  gas: bigint;
  value?: bigint;
}

/** Sends txs from unlocked anvil dev accounts with explicit nonces (batched JSON-RPC); returns hashes. */
export async function sendAll(url: string, txs: Tx[]): Promise<Hex[]> {
  const nonces = new Map<Address, number>();
  for (const t of txs)
    if (!nonces.has(t.from))
      nonces.set(t.from, Number(await rpc<string>(url, 'eth_getTransactionCount', [t.from, 'pending'])));
  const hashes: Hex[] = [];
  for (let i = 0; i < txs.length; i += 500) {
    const calls = txs.slice(i, i + 500).map((t): [string, unknown[]] => {
      const nonce = nonces.get(t.from)!;
      nonces.set(t.from, nonce + 1);
      return [
        'eth_sendTransaction',
        [
          {
            from: t.from,
            to: t.to,
            data: encodeFunctionData({ abi: t.abi, functionName: t.fn, args: t.args } as never),
            gas: hex(t.gas),
            nonce: hex(nonce),
            maxFeePerGas: hex(MAX_FEE),
            maxPriorityFeePerGas: hex(TIP),
            value: hex(t.value ?? 0n),
          },
        ],
      ];
    });
    hashes.push(...((await rpcBatch(url, calls)) as Hex[]));
  }
  return hashes;
}

/** Mines blocks until the pool is empty, then checks that every given transaction succeeded. */
export async function mineAll(url: string, check: Hex[], what: string): Promise<void> {
  for (let i = 0; ; i++) {
    const st = await rpc<{ pending: string; queued: string }>(url, 'txpool_status');
    if (Number(st.pending) === 0) break;
    if (i > 10_000) throw new Error(`${what}: ${Number(st.pending)} txs still pending`);
    await rpc(url, 'evm_mine');
  }
  for (let i = 0; i < check.length; i += 500) {
    const rs = (await rpcBatch(
      url,
      check.slice(i, i + 500).map((h): [string, unknown[]] => ['eth_getTransactionReceipt', [h]]),
    )) as Array<{ status: string } | null>;
    const bad = rs.findIndex((r) => r?.status !== '0x1');
    if (bad >= 0) throw new Error(`${what}: tx ${check[i + bad]} ${rs[bad] ? 'reverted' : 'not mined'}`);
  }
}

export interface BigSubjects {
  token: Address;
  tokenSymbol: string;
  pools: Array<{ poolId: Hex; fee: number; tickSpacing: number; traded: boolean }>;
  wallet: Address;
  transfers: number;
  swaps: number;
  buildSeconds: number;
}

/** The big token's pools and the parties of the build: LINK/USDC V4 keys with distinct fee/tickSpacing. */
function bigPlan(dv: TestDevnet, nPools: number) {
  const url = dv.rpcUrl;
  const d = dv.deployment;
  const tok = (k: string) => d.tokens.find((t) => t.key === k)!;
  const link = tok('LINK');
  const usdc = tok('USDC');
  const [x0, x1]: [TokenInfo, TokenInfo] =
    BigInt(link.address) < BigInt(usdc.address) ? [link, usdc] : [usdc, link];
  const deployer = d.deployer;
  const wallet = devAccount(9).address;
  const manager = d.contracts.poolManager;
  const price = rawPrice(x0.usdPrice, x0.decimals, x1.usdPrice, x1.decimals);
  const tick = priceToTick(price);
  const keys = Array.from({ length: nPools }, (_, i) => ({
    currency0: x0.address,
    currency1: x1.address,
    fee: 101 + 37 * i,
    tickSpacing: 1 + ((i * 7) % 200),
    hooks: zeroAddress,
  }));
  const traded = 12;
  const erc = erc20Abi as Abi;
  return { url, d, link, usdc, x0, x1, deployer, wallet, manager, price, tick, keys, traded, erc };
}
type BigPlan = ReturnType<typeof bigPlan>;

/** 1. Fund the big wallet, approvals, pool initializations. */
async function initPools({
  url,
  d,
  x0,
  x1,
  link,
  usdc,
  deployer,
  wallet,
  manager,
  price,
  keys,
  erc,
}: BigPlan): Promise<void> {
  const hashes = await sendAll(url, [
    { from: deployer, to: usdc.address, abi: erc, fn: 'transfer', args: [wallet, 10n ** 12n], gas: 150_000n },
    { from: deployer, to: link.address, abi: erc, fn: 'transfer', args: [wallet, 10n ** 23n], gas: 150_000n },
    ...[usdc, link].map(
      (t): Tx => ({
        from: wallet,
        to: t.address,
        abi: erc,
        fn: 'approve',
        args: [d.contracts.poolSwapTest, 2n ** 255n],
        gas: 100_000n,
      }),
    ),
    ...keys.map(
      (k): Tx => ({
        from: deployer,
        to: manager,
        abi: poolManagerAbi as Abi,
        fn: 'initialize',
        args: [k, sqrtPriceX96(price)],
        gas: 200_000n,
      }),
    ),
  ]);
  await mineAll(url, hashes, 'V4 initialize');
  log(`big token: ${keys.length} V4 ${x0.key}/${x1.key} pools initialized`);
}

/** 2. Liquidity on the first `traded` pools (the deployer approved PoolModifyLiquidityTest). */
async function addLiquidity({ url, d, x0, x1, deployer, price, tick, keys, traded }: BigPlan): Promise<void> {
  const liq: Tx[] = keys.slice(0, traded).map((k) => {
    const tl = alignTick(tick - 2000, k.tickSpacing);
    const tu = alignTick(tick + 2000, k.tickSpacing) + k.tickSpacing;
    const l = liquidityFor(
      price,
      tl,
      tu,
      Number(usdToRaw(200_000, x0.usdPrice, x0.decimals)),
      Number(usdToRaw(200_000, x1.usdPrice, x1.decimals)),
    );
    return {
      from: deployer,
      to: d.contracts.poolModifyLiquidityTest,
      abi: modifyLiquidityTestAbi as Abi,
      fn: 'modifyLiquidity',
      args: [k, { tickLower: tl, tickUpper: tu, liquidityDelta: l, salt: `0x${'0'.repeat(64)}` }, '0x'],
      gas: 1_500_000n,
    };
  });
  const hashes = await sendAll(url, liq);
  await mineAll(url, hashes, 'V4 liquidity');
}

/** 3. Swaps by the big wallet, both directions; returns how many. */
async function swapBig({ url, d, x0, x1, wallet, keys, traded }: BigPlan): Promise<number> {
  const swaps: Tx[] = [];
  for (const k of keys.slice(0, traded))
    for (let j = 0; j < 4; j++) {
      const zeroForOne = j % 2 === 0;
      const tin = zeroForOne ? x0 : x1;
      swaps.push({
        from: wallet,
        to: d.contracts.poolSwapTest,
        abi: poolSwapTestAbi as Abi,
        fn: 'swap',
        args: [
          k,
          {
            zeroForOne,
            amountSpecified: -usdToRaw(300 + 50 * j, tin.usdPrice, tin.decimals),
            sqrtPriceLimitX96: zeroForOne ? MIN_SQRT_PRICE_PLUS_1 : MAX_SQRT_PRICE_MINUS_1,
          },
          { takeClaims: false, settleUsingBurn: false },
          '0x',
        ],
        gas: 450_000n,
      });
    }
  const hashes = await sendAll(url, swaps);
  await mineAll(url, hashes, 'V4 swaps');
  log(`big token: ${traded} pools with liquidity, ${swaps.length} swaps`);
  return swaps.length;
}

/** 4. The big wallet's transfers (200 recipients), mined in chunks of full blocks. */
async function transferBig({ url, usdc, wallet, erc }: BigPlan, nTransfers: number): Promise<void> {
  const to = (i: number) => `0x${(0xb16b00000 + (i % 200)).toString(16).padStart(40, '0')}` as Address;
  for (let i = 0; i < nTransfers; i += 2_000) {
    const n = Math.min(2_000, nTransfers - i);
    const chunk = Array.from(
      { length: n },
      (_, j): Tx => ({
        from: wallet,
        to: usdc.address,
        abi: erc,
        fn: 'transfer',
        args: [to(i + j), 1n + BigInt(j)],
        gas: 80_000n,
      }),
    );
    const hashes = await sendAll(url, chunk);
    await mineAll(url, [hashes[0], hashes[hashes.length - 1]], 'transfers');
    log(`big wallet: ${i + n} transfers mined`);
  }
}

/**
 * Builds the big token (`nPools` V4 LINK/USDC pools, distinct fee/tickSpacing; the first 12 with
 * liquidity from the deployer and 4 swaps each by the big wallet) and the big wallet (dev account 9:
 * `nTransfers` USDC transfers, one tx each). The chain must be frozen (interval mining off).
 */
export async function buildBig(dv: TestDevnet, nPools: number, nTransfers: number): Promise<BigSubjects> {
  const t0 = performance.now();
  const plan = bigPlan(dv, nPools);
  const { link, keys, traded, wallet } = plan;
  await initPools(plan);
  await addLiquidity(plan);
  const swaps = await swapBig(plan);
  await transferBig(plan, nTransfers);
  return {
    token: link.address,
    tokenSymbol: link.symbol,
    pools: keys.map((k, i) => ({
      poolId: v4PoolId(k),
      fee: k.fee,
      tickSpacing: k.tickSpacing,
      traded: i < traded,
    })),
    wallet,
    transfers: nTransfers,
    swaps,
    buildSeconds: (performance.now() - t0) / 1000,
  };
}
