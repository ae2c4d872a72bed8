/**
 * Release bench, section 7: the market point routes on real Uniswap V2/V3/V4 traffic, on the
 * embedded devnet. bench/market-reads.ts measures these routes and more against issue K's budgets,
 * with big subjects built on the devnet; this phase keeps the release report's trend figures (the
 * bench chain holds no token or pool, so token detail/overview, pool stats and wallet overview are
 * measured on a devnet run with its traffic generator, then frozen).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { devnetIndexerEnv, startTestDevnet } from '../../test/harness/devnet.js';
import { log, onCleanup, rpc, sleep, startIndexerChild, waitAnchor } from '../lib.js';
import { CHAIN, type Release } from './context.js';
import type { PointRead } from './point-reads.js';

export async function devnetMarketsSection(r: Release, point: PointRead) {
  const { args, P, ixEnv, hardFailures, notes } = r;
  log('devnet: token detail/overview, pool stats and wallet overview point reads');
  const dv = await startTestDevnet({ blockTimeMs: 500, traffic: true, txPerSecond: 25, seed: args.seed });
  onCleanup(() => dv.stop());
  await dv.traffic?.ready;
  await sleep(P.devnetTrafficMs);
  await dv.traffic?.stop();
  await rpc(dv.rpcUrl, 'evm_setIntervalMining', [0]);
  await rpc(dv.rpcUrl, 'evm_mine');
  const dvHead = Number.parseInt(await rpc<string>(dv.rpcUrl, 'eth_blockNumber'), 16);
  const dvDir = mkdtempSync(join(os.tmpdir(), 'indexer-bench-devnet-'));
  onCleanup(() => rmSync(dvDir, { recursive: true, force: true }));
  const ixD = await startIndexerChild({
    rpcUrl: dv.rpcUrl,
    chain: CHAIN,
    dataDir: dvDir,
    env: { ...ixEnv, ...devnetIndexerEnv(dv, { chain: CHAIN }) },
  });
  onCleanup(() => ixD.stop());
  await waitAnchor(ixD, dvHead, 180_000);
  const dvPools = ((await ixD.get('/pools/new?limit=1000')).body?.data ?? []) as Array<{
    address: string | null;
    currency0: string;
    currency1: string;
  }>;
  const bySwaps: Array<{ address: string; currency0: string; currency1: string; swaps: number }> = [];
  for (const p of dvPools) {
    if (!p.address) continue;
    const d = await ixD.get(`/pools/${p.address}`);
    bySwaps.push({ ...p, address: p.address, swaps: d.body?.data?.state?.swaps ?? 0 });
  }
  bySwaps.sort((a, b) => b.swaps - a.swaps);
  const busy = bySwaps.filter((p) => p.swaps > 0).slice(0, 8);
  if (!busy.length) hardFailures.push('devnet: no pool traded');
  else {
    const tokens = [...new Set(busy.flatMap((p) => [p.currency0, p.currency1]))];
    const traders = new Map<string, number>();
    for (const p of busy.slice(0, 3))
      for (const s of ((await ixD.get(`/pools/${p.address}/swaps?limit=1000`)).body?.data ?? []) as Array<{
        origin: string;
      }>)
        traders.set(s.origin, (traders.get(s.origin) ?? 0) + 1);
    const topTraders = [...traders.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([w]) => w);
    notes.push(
      `devnet phase: ${dvHead} blocks of traffic, ${bySwaps.length} V2/V3 pools (${busy.length} busiest measured, ${busy.reduce((a, p) => a + p.swaps, 0)} swaps), ${tokens.length} tokens, ${topTraders.length} traders`,
    );
    const G = 'Point read (devnet markets)';
    await point(
      'token detail',
      tokens.map((t) => `/tokens/${t}`),
      G,
      ixD,
    );
    await point(
      'token overview',
      tokens.map((t) => `/tokens/${t}/overview`),
      G,
      ixD,
    );
    await point(
      'pool stats',
      busy.map((p) => `/pools/${p.address}/stats`),
      G,
      ixD,
    );
    await point(
      'wallet overview',
      topTraders.map((w) => `/wallets/${w}/overview`),
      G,
      ixD,
    );
  }
  await ixD.stop();
  await dv.stop();
}
