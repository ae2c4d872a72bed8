import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, keccak256, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestDevnet, type TestDevnet } from '../../../test/harness/devnet.js';
import { v2PairAbi, v3PoolAbi } from './abis.js';
import { rpc } from './anvil.js';

const ev = (sig: string) => keccak256(toHex(sig));
const TOPIC = {
  v4Swap: ev('Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)'),
  launchCreated: ev('LaunchCreated(address,address,uint256,string,string,string,string)'),
  curveTrade: ev('CurveTrade(address,address,bool,uint256,uint256,uint256,uint256)'),
  graduated: ev('Graduated(address,address,uint256,uint256)'),
};

interface Frame {
  type: string;
  value?: Hex;
  calls?: Frame[];
}

describe('devnet (real anvil)', () => {
  let d: TestDevnet;
  const call = async <T>(
    to: Address,
    abi: readonly unknown[],
    functionName: string,
    block: string,
  ): Promise<T> => {
    const data = encodeFunctionData({ abi, functionName } as never);
    const out = await rpc<Hex>(d.rpcUrl, 'eth_call', [{ to, data }, block]);
    return decodeFunctionResult({ abi, functionName, data: out } as never) as T;
  };

  beforeAll(async () => {
    d = await startTestDevnet({ blockTimeMs: 500, seed: 7, txPerSecond: 20 });
    await d.traffic!.ready;
  });
  afterAll(async () => {
    await d?.stop();
  });

  test('traffic fills blocks and moves V2, V3 and V4 state', async () => {
    const start = Number(await rpc<Hex>(d.rpcUrl, 'eth_blockNumber'));
    // ~10 blocks of traffic at 500 ms.
    await new Promise((r) => setTimeout(r, 5_500));
    const end = Number(await rpc<Hex>(d.rpcUrl, 'eth_blockNumber'));
    expect(end - start).toBeGreaterThanOrEqual(8);

    const blocks = await Promise.all(
      Array.from({ length: end - start }, (_, i) =>
        rpc<{ transactions: Hex[] }>(d.rpcUrl, 'eth_getBlockByNumber', [toHex(start + 1 + i), false]),
      ),
    );
    const counts = blocks.map((b) => b.transactions.length);
    expect(counts.filter((c) => c >= 2).length).toBeGreaterThanOrEqual(Math.floor(counts.length / 2));

    const v2 = d.deployment.pools.find(
      (p) => (p.protocol === 'uniswap-v2' && p.token0Key === 'WETH') || p.token1Key === 'WETH',
    )!;
    /** Per pool of `protocol`: whether the first word `fn` returns moved from `start` to latest. */
    const moved = (protocol: string, abi: readonly unknown[], fn: string) =>
      Promise.all(
        d.deployment.pools
          .filter((p) => p.protocol === protocol)
          .map(async (p) => {
            const a = await call<readonly bigint[]>(p.address, abi, fn, toHex(start));
            const b = await call<readonly bigint[]>(p.address, abi, fn, 'latest');
            return a[0] !== b[0];
          }),
      );
    const changedV2 = await moved('uniswap-v2', v2PairAbi, 'getReserves');
    expect(v2).toBeDefined();
    expect(changedV2.some(Boolean)).toBe(true);
    const changedV3 = await moved('uniswap-v3', v3PoolAbi, 'slot0');
    expect(changedV3.some(Boolean)).toBe(true);

    const logs = await rpc<{ topics: Hex[]; transactionHash: Hex }[]>(d.rpcUrl, 'eth_getLogs', [
      {
        fromBlock: '0x0',
        toBlock: 'latest',
        address: d.deployment.contracts.poolManager,
        topics: [TOPIC.v4Swap],
      },
    ]);
    expect(logs.length).toBeGreaterThan(0);
  });

  test('reverted txs, internal value transfers and launchpad events exist', async () => {
    const head = Number(await rpc<Hex>(d.rpcUrl, 'eth_blockNumber'));
    let reverted = 0;
    let internalValue = false;
    for (let n = head; n > head - 25 && n > 0 && !(reverted > 0 && internalValue); n--) {
      const receipts = await rpc<{ status: Hex; transactionHash: Hex; to: Address | null }[]>(
        d.rpcUrl,
        'eth_getBlockReceipts',
        [toHex(n)],
      );
      reverted += receipts.filter((r) => r.status === '0x0').length;
      for (const r of receipts) {
        if (
          internalValue ||
          r.to?.toLowerCase() !== d.deployment.contracts.valueForwarder.toLowerCase() ||
          r.status !== '0x1'
        )
          continue;
        const t = await rpc<Frame>(d.rpcUrl, 'debug_traceTransaction', [
          r.transactionHash,
          { tracer: 'callTracer' },
        ]);
        const walk = (f: Frame): boolean =>
          (f.calls ?? []).some(
            (c) =>
              (['CALL', 'CREATE', 'CREATE2'].includes(c.type) && BigInt(c.value ?? '0x0') > 0n) || walk(c),
          );
        internalValue = walk(t);
      }
    }
    expect(reverted).toBeGreaterThan(0);
    expect(internalValue).toBe(true);

    const lp = d.deployment.launchpad.address;
    const get = (topic: Hex) =>
      rpc<unknown[]>(d.rpcUrl, 'eth_getLogs', [
        { fromBlock: '0x0', toBlock: 'latest', address: lp, topics: [topic] },
      ]);
    expect((await get(TOPIC.launchCreated)).length).toBeGreaterThan(0);
    expect((await get(TOPIC.curveTrade)).length).toBeGreaterThan(0);
    expect((await get(TOPIC.graduated)).length).toBeGreaterThan(0); // the seeded instant graduation
  });

  test('anvil test RPCs work through rpcUrl', async () => {
    const before = Number(await rpc<Hex>(d.rpcUrl, 'eth_blockNumber'));
    await rpc(d.rpcUrl, 'evm_mine');
    expect(Number(await rpc<Hex>(d.rpcUrl, 'eth_blockNumber'))).toBeGreaterThan(before);
  });
});
