/**
 * Issue M part 2, markets: a real chain indexed from any start block. The devnet runs (real
 * Uniswap V2/V3/V4, traffic) until its pools were created and traded, then the indexer starts with
 * START_BLOCK at the head. A pool of a configured factory first seen through its events is
 * registered at that event, verified against its factory (V2 getPair, V3 getPool, V4 its Initialize
 * log) and seeded by eth_call at the block before; its provenance says so. After traffic stops and
 * the index reaches the head, every pool's reserves / slot0 / liquidity equal the node's answers at
 * the anchor block (V4 read with extsload of the PoolManager's Pool.State words).
 */

import { modifyLiquidityTestAbi, npmAbi } from '@chain-indexer/devnet/contracts';
import { encodeAbiParameters, encodeFunctionData, keccak256, toFunctionSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typedClient, walkTyped } from '../harness/client.js';
import { sendAndWait } from '../harness/cohort.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { followThenQuiet, LATE_START_DEVNET, tradeBeforeStart } from '../harness/late-start.js';
import { stopAll } from '../harness/lifecycle.js';
import { jsonRpc } from '../harness/rpc.js';

const topic = (sig: string) => keccak256(new TextEncoder().encode(sig));
const V2_STATE_TOPICS = [
  'Sync(uint112,uint112)',
  'Swap(address,uint256,uint256,uint256,uint256,address)',
  'Mint(address,uint256,uint256)',
  'Burn(address,uint256,uint256,address)',
].map(topic);
const V4_MODIFY = topic('ModifyLiquidity(bytes32,address,int24,int24,int256,bytes32)');
const V3_STATE_TOPICS = [
  'Initialize(uint160,int24)',
  'Swap(address,address,int256,int256,uint160,uint128,int24)',
  'Mint(address,address,int24,int24,uint128,uint256,uint256)',
  'Burn(address,int24,int24,uint128,uint256,uint256)',
  'Collect(address,address,int24,int24,uint128,uint128)',
].map(topic);

let dev: TestDevnet;
let idx: IndexerProcess;
let startBlock = 0;
let quietHead = 0;
const head = async () => Number.parseInt(await jsonRpc<string>(dev.rpcUrl, 'eth_blockNumber', []), 16);
const hex = (n: number) => `0x${n.toString(16)}`;
const words = (r: string) => (r.slice(2).match(/.{64}/g) ?? []).map((w) => BigInt(`0x${w}`));
const int24 = (w: bigint) => {
  const x = Number(w & 0xffffffn);
  return x >= 0x800000 ? x - 0x1000000 : x;
};
const call = (to: string, sig: string, at: string) =>
  jsonRpc<string>(dev.rpcUrl, 'eth_call', [{ to, data: toFunctionSelector(sig) }, at]);

/** v4-core StateLibrary: pools[poolId] is at keccak256(poolId . 6); liquidity at that slot + 3. */
async function v4State(manager: string, poolId: `0x${string}`, at: string) {
  const slot = BigInt(
    keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [poolId, 6n])),
  );
  const load = async (s: bigint) =>
    words(
      await jsonRpc<string>(dev.rpcUrl, 'eth_call', [
        {
          to: manager,
          data: `${toFunctionSelector('function extsload(bytes32)')}${s.toString(16).padStart(64, '0')}`,
        },
        at,
      ]),
    )[0];
  const w0 = await load(slot);
  const wl = await load(slot + 3n);
  return {
    sqrtPriceX96: (w0 & ((1n << 160n) - 1n)).toString(),
    tick: int24(w0 >> 160n),
    liquidity: (wl & ((1n << 128n) - 1n)).toString(),
  };
}

beforeAll(async () => {
  dev = await startTestDevnet(LATE_START_DEVNET);
  startBlock = await tradeBeforeStart(dev);
  idx = await startIndexer({
    rpcUrl: dev.rpcUrl,
    env: { START_BLOCK: String(startBlock), ...devnetIndexerEnv(dev, { launchpad: false }) },
  });
  quietHead = await followThenQuiet(dev, idx, startBlock);
}, 300_000);

afterAll(stopAll(() => [idx, dev]));

type PoolDetail = {
  key: string;
  protocol: 'v2' | 'v3' | 'v4' | 'launchpad';
  contract: string;
  poolId: string | null;
  created: { block: number };
  provenance: {
    discovery: 'factory_event' | 'first_sight';
    verifiedAtBlock: number;
    seededAtBlock: number | null;
    creation: { block: number; txHash: string } | null;
  };
  state: Record<string, unknown>;
};

/**
 * Checks every pool listed by /pools/new of `ix` (indexed from `from`): provenance, and state equal
 * to the node at the response's anchor. Returns the details by pool key.
 */
async function checkPools(ix: IndexerProcess, from: number): Promise<Map<string, PoolDetail>> {
  const api = typedClient(ix);
  const listed = (await walkTyped((cursor) =>
    api.GET('/index/v1/{chain}/pools/new', {
      params: { path: { chain: api.chain }, query: { limit: 500, ...(cursor ? { cursor } : {}) } },
    }),
  )) as unknown as PoolDetail[];
  const out = new Map<string, PoolDetail>();
  for (const row of listed) {
    if (row.protocol === 'launchpad') continue;
    const res =
      row.protocol === 'v4'
        ? await api.GET('/index/v1/{chain}/pools/v4/{manager}/{pool_id}', {
            params: { path: { chain: api.chain, manager: row.contract, pool_id: row.poolId! } },
          })
        : await api.GET('/index/v1/{chain}/pools/{address}', {
            params: { path: { chain: api.chain, address: row.contract } },
          });
    const body = res.data!;
    const p = body.data as unknown as PoolDetail;
    const at = hex(body.anchor.block);
    const label = `${p.protocol} ${p.contract} ${p.poolId ?? ''}`;
    const prov = p.provenance;
    expect(prov.verifiedAtBlock, label).toBeGreaterThanOrEqual(from);
    if (prov.discovery === 'first_sight') {
      expect(prov.verifiedAtBlock, label).toBe(p.created.block);
      expect(prov.seededAtBlock, label).toBe(p.created.block - 1);
      // V4: the creation found by eth_getLogs predates the indexed range.
      if (p.protocol === 'v4') expect(prov.creation!.block, label).toBeLessThan(from);
    } else {
      expect(p.created.block, label).toBeGreaterThanOrEqual(from);
    }
    if (p.protocol === 'v2') {
      const [r0, r1] = words(await call(p.contract, 'function getReserves()', at));
      expect(p.state.reserve0, `${label} reserve0`).toBe(r0.toString());
      expect(p.state.reserve1, `${label} reserve1`).toBe(r1.toString());
    } else if (p.protocol === 'v3') {
      const s0 = words(await call(p.contract, 'function slot0()', at));
      const [liq] = words(await call(p.contract, 'function liquidity()', at));
      expect(p.state.sqrtPriceX96, `${label} sqrtPriceX96`).toBe(s0[0].toString());
      expect(p.state.tick, `${label} tick`).toBe(int24(s0[1]));
      expect(p.state.liquidity, `${label} liquidity`).toBe(liq.toString());
    } else {
      const s = await v4State(p.contract, p.poolId as `0x${string}`, at);
      expect(p.state.sqrtPriceX96, `${label} sqrtPriceX96`).toBe(s.sqrtPriceX96);
      expect(p.state.tick, `${label} tick`).toBe(s.tick);
      expect(p.state.liquidity, `${label} liquidity`).toBe(s.liquidity);
    }
    out.set(p.key, p);
  }
  return out;
}

const keyOf = (d: TestDevnet['deployment']['pools'][number]) =>
  d.protocol === 'uniswap-v4'
    ? `${d.address.toLowerCase()}${d.poolId!.slice(2).toLowerCase()}`
    : `${d.address.toLowerCase()}${'00'.repeat(32)}`;

const DEPLOYER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'; // anvil dev account 0 (unlocked)

describe('markets indexed from a late START_BLOCK', () => {
  it('every pool traded after the start is registered; its state equals the node at the anchor', async () => {
    const pools = await checkPools(idx, startBlock);
    const firstSight = { v2: 0, v3: 0, v4: 0, launchpad: 0 };
    for (const p of pools.values()) if (p.provenance.discovery === 'first_sight') firstSight[p.protocol]++;
    expect(firstSight.v2, 'V2 pools found at first sight').toBeGreaterThan(3);
    expect(firstSight.v3, 'V3 pools found at first sight').toBeGreaterThan(0);
    expect(firstSight.v4, 'V4 pools found at first sight').toBeGreaterThan(0);

    // Completeness: every deployed pool with a state event in the indexed range is listed.
    const to = hex(quietHead);
    let touched = 0;
    for (const d of dev.deployment.pools) {
      const logs =
        d.protocol === 'uniswap-v4'
          ? await jsonRpc<unknown[]>(dev.rpcUrl, 'eth_getLogs', [
              { address: d.address, topics: [null, d.poolId], fromBlock: hex(startBlock), toBlock: to },
            ])
          : await jsonRpc<unknown[]>(dev.rpcUrl, 'eth_getLogs', [
              {
                address: d.address,
                // State events (an LP-token Transfer alone does not make a V2 pair observed).
                topics: [d.protocol === 'uniswap-v2' ? V2_STATE_TOPICS : V3_STATE_TOPICS],
                fromBlock: hex(startBlock),
                toBlock: to,
              },
            ]);
      if (!logs.length) continue;
      touched++;
      const key = keyOf(d);
      expect(pools.has(key), `${d.protocol} ${d.address} ${d.poolId ?? ''} listed`).toBe(true);
      expect(pools.get(key)!.provenance.discovery).toBe('first_sight');
    }
    expect(touched).toBeGreaterThan(5);
  });

  it('a pool first seen through a liquidity-only event is seeded at the block before (no swap to mask it)', async () => {
    // Traffic has stopped: the next indexer starts at the quiet head, and the only events in its
    // range are the ones sent here — V2 sync(), V3 burns of the deployer's full-range positions, V4
    // liquidity removals of the deployment's positions. Their effect on liquidity is only right if
    // the state before them was seeded exactly.
    await idx.stop();
    const from = (await head()) + 1;
    const send = (to: string, data: string) =>
      sendAndWait(dev.rpcUrl, { from: DEPLOYER, to, data, gas: '0x2dc6c0' });
    const v2 = dev.deployment.pools.filter((d) => d.protocol === 'uniswap-v2').slice(0, 3);
    for (const d of v2) await send(d.address, toFunctionSelector('function sync()'));
    const npm = dev.deployment.contracts.nonfungiblePositionManager;
    const burned = new Set<string>();
    for (let tokenId = 1n; tokenId <= 40n && burned.size < 3; tokenId++) {
      const pos = await jsonRpc<string>(dev.rpcUrl, 'eth_call', [
        { to: npm, data: encodeFunctionData({ abi: npmAbi, functionName: 'positions', args: [tokenId] }) },
        'latest',
      ]).catch(() => '0x');
      const w = words(pos);
      if (w.length < 8 || int24(w[5]) > -800_000 || w[7] === 0n) continue; // full range, live
      const owner = words(
        await jsonRpc<string>(dev.rpcUrl, 'eth_call', [
          {
            to: npm,
            data: `${toFunctionSelector('function ownerOf(uint256)')}${tokenId.toString(16).padStart(64, '0')}`,
          },
          'latest',
        ]),
      )[0];
      if (`0x${owner.toString(16).padStart(40, '0')}` !== DEPLOYER) continue;
      const pool = dev.deployment.pools.find(
        (d) =>
          d.protocol === 'uniswap-v3' &&
          BigInt(d.token0) === w[2] &&
          BigInt(d.token1) === w[3] &&
          BigInt(d.fee) === w[4],
      );
      if (!pool || burned.has(pool.address)) continue;
      const params = { tokenId, liquidity: w[7] / 4n, amount0Min: 0n, amount1Min: 0n, deadline: 2n ** 40n };
      await send(npm, encodeFunctionData({ abi: npmAbi, functionName: 'decreaseLiquidity', args: [params] }));
      burned.add(pool.address);
    }
    const removed = new Set<string>();
    for (const d of dev.deployment.pools.filter((p) => p.protocol === 'uniswap-v4')) {
      // The deployment's position: its first ModifyLiquidity (owner = the test router, its salt).
      const [first] = await jsonRpc<Array<{ data: string }>>(dev.rpcUrl, 'eth_getLogs', [
        { address: d.address, topics: [V4_MODIFY, d.poolId], fromBlock: '0x0', toBlock: hex(from - 1) },
      ]);
      const [tl, tu, delta, salt] = words(first.data);
      const key = {
        currency0: d.token0,
        currency1: d.token1,
        fee: d.fee,
        tickSpacing: d.tickSpacing!,
        hooks: d.hooks!,
      };
      const params = {
        tickLower: int24(tl),
        tickUpper: int24(tu),
        liquidityDelta: -(delta / 4n),
        salt: `0x${salt.toString(16).padStart(64, '0')}` as `0x${string}`,
      };
      const data = encodeFunctionData({
        abi: modifyLiquidityTestAbi,
        functionName: 'modifyLiquidity',
        args: [key, params, '0x'],
      });
      await send(dev.deployment.contracts.poolModifyLiquidityTest, data);
      removed.add(keyOf(d));
    }
    expect(burned.size).toBeGreaterThan(0);
    expect(removed.size).toBeGreaterThan(0);
    const quiet = await head();
    const late = await startIndexer({
      rpcUrl: dev.rpcUrl,
      env: { START_BLOCK: String(from), ...devnetIndexerEnv(dev, { launchpad: false }) },
    });
    try {
      await late.waitForHead(quiet, 60_000);
      const pools = await checkPools(late, from);
      for (const d of v2) expect(pools.get(keyOf(d))?.provenance.discovery, d.address).toBe('first_sight');
      const changed = { v3: 0, v4: 0 };
      for (const a of burned) {
        const p = pools.get(keyOf({ protocol: 'uniswap-v3', address: a } as never));
        expect(p?.provenance.discovery, a).toBe('first_sight');
        const before = words(await call(a, 'function liquidity()', hex(from - 1)))[0];
        if (BigInt(p!.state.liquidity as string) !== before) changed.v3++;
      }
      for (const k of removed) {
        const p = pools.get(k);
        expect(p?.provenance.discovery, k).toBe('first_sight');
        const before = await v4State(p!.contract, p!.poolId as `0x${string}`, hex(from - 1));
        if (p!.state.liquidity !== before.liquidity) changed.v4++;
      }
      // The burns moved active liquidity (in range): the seeded value was the base of the exact result.
      expect(changed.v3, 'V3 pools whose active liquidity moved').toBeGreaterThan(0);
      expect(changed.v4, 'V4 pools whose active liquidity moved').toBeGreaterThan(0);
    } finally {
      await late.stop();
    }
  });
});
