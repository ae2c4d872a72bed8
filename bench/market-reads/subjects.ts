/**
 * Market hot-read bench, sections 1 and 2: the devnet with traffic, then frozen, the big subjects
 * on top (big.ts); the indexer catching up; then the subjects measured — the small ones the
 * busiest devnet pools, token and trader after the traffic.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type { Address } from 'viem';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../../test/harness/devnet.js';
import { type IndexerChild, log, onCleanup, rpc, sleep, startIndexerChild, waitAnchor } from '../lib.js';
import { buildBig, mineAll } from './big.js';
import { type Args, CHAIN, type Params } from './context.js';

export interface SmallSubjects {
  token: Address;
  tokenSymbol: string;
  v2: { address: string; swaps: number };
  v3: { address: string; swaps: number };
  v4: { manager: string; poolId: string; swaps: number };
  wallet: string;
  walletTrades: number;
}

export async function pickSmall(ix: IndexerChild, dv: TestDevnet, bigToken: Address): Promise<SmallSubjects> {
  const d = dv.deployment;
  const pools: Array<{ protocol: string; path: string; token0: string; token1: string; swaps: number }> = [];
  for (const p of d.pools) {
    const path = p.protocol === 'uniswap-v4' ? `/pools/v4/${p.address}/${p.poolId}` : `/pools/${p.address}`;
    const r = await ix.get(path);
    pools.push({
      protocol: p.protocol,
      path,
      token0: p.token0,
      token1: p.token1,
      swaps: r.body?.data?.state?.swaps ?? 0,
    });
  }
  pools.sort((a, b) => b.swaps - a.swaps);
  const best = (proto: string) => {
    const p = pools.find((x) => x.protocol === proto);
    if (!p) throw new Error(`no ${proto} pool on the devnet`);
    return p;
  };
  const [v2, v3, v4] = [best('uniswap-v2'), best('uniswap-v3'), best('uniswap-v4')];
  // The small token: the non-quote token with the most swaps over its pools (the big token excluded).
  const swapsOf = new Map<string, number>();
  for (const p of pools)
    for (const t of [p.token0, p.token1])
      swapsOf.set(t.toLowerCase(), (swapsOf.get(t.toLowerCase()) ?? 0) + p.swaps);
  const candidates = d.tokens
    .filter(
      (t) =>
        (t.kind === 'standard' || t.kind === 'ownable') && t.address.toLowerCase() !== bigToken.toLowerCase(),
    )
    .sort(
      (a, b) => (swapsOf.get(b.address.toLowerCase()) ?? 0) - (swapsOf.get(a.address.toLowerCase()) ?? 0),
    );
  const token = candidates[0];
  // The small wallet: the most frequent swap origin over the three busiest pools.
  const traders = new Map<string, number>();
  for (const p of pools.slice(0, 3))
    for (const s of ((await ix.get(`${p.path}/swaps?limit=1000`)).body?.data ?? []) as Array<{
      origin: string;
    }>)
      traders.set(s.origin, (traders.get(s.origin) ?? 0) + 1);
  const [wallet, walletTrades] = [...traders.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
  if (!wallet) throw new Error('no trader found on the devnet pools');
  const v4d = d.pools.find((p) => `/pools/v4/${p.address}/${p.poolId}` === v4.path)!;
  return {
    token: token.address,
    tokenSymbol: token.symbol,
    v2: { address: v2.path.slice('/pools/'.length), swaps: v2.swaps },
    v3: { address: v3.path.slice('/pools/'.length), swaps: v3.swaps },
    v4: { manager: v4d.address, poolId: v4d.poolId!, swaps: v4.swaps },
    wallet,
    walletTrades,
  };
}

/** Counts a wallet's activity rows by walking its pages (limit 1000). */
export async function countActivity(ix: IndexerChild, w: string): Promise<number> {
  let n = 0;
  let path = `/wallets/${w}/activity?limit=1000`;
  for (let i = 0; i < 100; i++) {
    const r = await ix.get(path);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    n += r.body.data.length;
    const next = r.body.page?.nextCursor as string | null | undefined;
    if (!next) break;
    path = `/wallets/${w}/activity?limit=1000&cursor=${encodeURIComponent(next)}`;
  }
  return n;
}

/** Sections 1 and 2: the devnet, the big subjects, the indexer at head, the subjects picked. */
export async function prepare(args: Args, P: Params, notes: string[]) {
  // 1. Devnet with traffic, then frozen; the big subjects on top.
  log(`devnet: ${P.trafficMs / 1000} s of traffic`);
  const dv = await startTestDevnet({ blockTimeMs: 500, traffic: true, txPerSecond: 25, seed: args.seed });
  onCleanup(() => dv.stop());
  await dv.traffic?.ready;
  await sleep(P.trafficMs);
  await dv.traffic?.stop();
  await sleep(1500);
  await rpc(dv.rpcUrl, 'evm_setIntervalMining', [0]);
  await mineAll(dv.rpcUrl, [], 'traffic tail');
  const trafficHead = Number.parseInt(await rpc<string>(dv.rpcUrl, 'eth_blockNumber'), 16);
  log(`traffic done at block ${trafficHead}; building big subjects`);
  const big = await buildBig(dv, args.pools, args.transfers);
  const head = Number.parseInt(await rpc<string>(dv.rpcUrl, 'eth_blockNumber'), 16);
  log(`big subjects built in ${big.buildSeconds.toFixed(0)} s, head ${head}`);

  // 2. The indexer catches up.
  const dataDir = mkdtempSync(join(os.tmpdir(), 'market-reads-data-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { TRACES: 'off', ...devnetIndexerEnv(dv, { chain: CHAIN }) };
  const tIx = performance.now();
  const ix = await startIndexerChild({ rpcUrl: dv.rpcUrl, chain: CHAIN, dataDir, env });
  onCleanup(() => ix.stop());
  await waitAnchor(ix, head, 600_000, 100);
  log(`indexer at head ${head} in ${((performance.now() - tIx) / 1000).toFixed(1)} s`);

  const small = await pickSmall(ix, dv, big.token);
  const overviewBig = await ix.get(`/tokens/${big.token}/overview`);
  const activityRows = await countActivity(ix, big.wallet);
  // The report keeps the traded pools only (the untraded ones differ by fee/tickSpacing alone).
  const bigOut = {
    ...big,
    pools: big.pools.filter((p) => p.traded),
    poolCount: big.pools.length,
    activityRows,
    poolsConsidered: overviewBig.body?.data?.poolsConsidered ?? null,
  };
  log(
    `small token ${small.tokenSymbol}, small wallet ${small.wallet}; big token poolsConsidered ${JSON.stringify(bigOut.poolsConsidered)}, big wallet ${activityRows} activity rows`,
  );
  if (activityRows < 10_000 && args.transfers >= 10_000)
    notes.push(`the big wallet shows ${activityRows} activity rows, fewer than the 10,000 the budget names`);
  return { dv, trafficHead, big, head, dataDir, env, ix, small, bigOut };
}
