/**
 * Issues D, E and F end-to-end: reorgs on the full devnet (real Uniswap V2/V3/V4, launchpad,
 * tokens, funding traffic) leave every projection — balances and holders, candles and stats,
 * positions and PnL, the funding graph and cohorts — equal to a fresh index of the final chain.
 *
 * The indexer under test (A) follows the devnet while the traffic generator runs and a seeded
 * sequence of `anvil_reorg` calls (depths 1–24, replacement transactions that move native value
 * to fresh wallets) drops blocks full of swaps, transfers and launches. After the chain settles, a
 * second indexer (B) indexes the final chain from scratch. Then:
 *  - route by route, A and B answer byte-identical bodies at the same anchor (holders and
 *    top-holders walks, balances, transfers, token stats and candles, pool identity, stats,
 *    liquidity, candles and swaps, trader positions/PnL, funding edges, cohorts);
 *  - A's balances of every holder it lists equal `balanceOf` at the anchor block (tokens whose
 *    balances do not follow their events are skipped: the reconcile status says which);
 *  - the stores' projection digests are equal table by table (stream history left out: a store
 *    that lived through reorgs has reorg frames a fresh one never has).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { differing, digestOf, tempDir, waitConverged } from '../faults/lib.js';
import { scriptCohort } from '../harness/cohort.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { jsonRpc } from '../harness/rpc.js';
import { mulberry32 } from '../harness/rpc-proxy.js';

const SEED = Number(process.env.REORG_SEED ?? 7);
const DEPTHS = [1, 3, 24, 2, 9, 5];
/** The devnet's block period, ms. */
const BLOCK_MS = 400;
/** anvil's default-mnemonic accounts 8 and 9: unlocked, funded, unused by the devnet's traffic. */
const REPLACERS = [
  '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f',
  '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
];

let dev: TestDevnet;
let A: IndexerProcess;
let B: IndexerProcess;
let head = 0;
let headHash = '';
const dirs: string[] = [];
/** Launch tokens of the scripted cohort scenarios (the second one is dropped by a reorg). */
const cohortTokens: string[] = [];

const rpc = <T = any>(method: string, params: unknown[] = []): Promise<T> =>
  jsonRpc<T>(dev.rpcUrl, method, params);
const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A funding cohort in the making (launch, fresh funder, `members` funded wallets that each buy
 * it), from replacer account 8. Returns the launch token.
 */
const cohortScenario = async (tag: number, members: number): Promise<string> =>
  (
    await scriptCohort(dev, {
      from: REPLACERS[0],
      label: `Reorg Cohort ${tag}`,
      freshBase: 0xc0c0000 + tag * 100,
      members,
    })
  ).token;

/** Every row of a PAGE route (limit 1000, cursors followed), with the first page's anchor. */
async function walk(idx: IndexerProcess, path: string): Promise<{ rows: any[]; anchor: any }> {
  const rows: any[] = [];
  let cursor: string | null = null;
  let anchor: any = null;
  for (let pages = 0; pages < 200; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await idx.get(`${path}${sep}limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status, `${path}: ${r.text.slice(0, 300)}`).toBe(200);
    anchor ??= r.body.anchor;
    rows.push(...r.body.data);
    cursor = r.body.page?.nextCursor ?? null;
    if (!cursor) break;
  }
  return { rows, anchor };
}

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: BLOCK_MS, traffic: true, txPerSecond: 25, seed: 3 });
  const env = { ...devnetIndexerEnv(dev), TRACES: 'off' };
  const dirA = tempDir('idx-reorgproj-a-');
  dirs.push(dirA);
  A = await startIndexer({ rpcUrl: dev.rpcUrl, dataDir: dirA, env });
  await dev.traffic?.ready;
  await A.waitForHead(Number.parseInt(await rpc<string>('eth_blockNumber', []), 16) + 20, 120_000);

  // A cohort that survives every reorg, then seeded reorgs while the traffic generator keeps
  // sending swaps, transfers and launches; before the deepest one, a second cohort it drops.
  cohortTokens.push(await cohortScenario(1, 3));
  // Bury it deeper than the deepest reorg.
  for (let i = 0; i < Math.max(...DEPTHS) + 8; i++) await rpc('evm_mine', []);
  const rand = mulberry32(SEED);
  for (const depth of DEPTHS) {
    if (depth === Math.max(...DEPTHS)) cohortTokens.push(await cohortScenario(2, 2));
    // The miner pauses while A catches up to the head the reorg replaces: a block mined between
    // reading the head and the reorg would be one A never saw, and a depth-1 reorg of it no reorg
    // to A at all (the assertion below counts the reorgs A logged).
    await rpc('evm_setIntervalMining', [0]);
    const h = Number.parseInt(await rpc<string>('eth_blockNumber', []), 16);
    await A.waitForHead(h, 60_000);
    const txs: Array<[Record<string, string>, number]> = [];
    for (let i = 0; i < 1 + Math.floor(rand() * 3); i++) {
      const fresh = hex(0xfeed00000000n * BigInt(depth) + BigInt(Math.floor(rand() * 1e9))).padEnd(42, '7');
      txs.push([
        { from: REPLACERS[i % 2], to: fresh, value: hex(10n ** 15n + BigInt(i)) },
        Math.floor(rand() * depth),
      ]);
    }
    await rpc('anvil_reorg', [depth, txs]);
    await rpc('evm_setIntervalMining', [BLOCK_MS / 1000]);
    await sleep(2_500);
  }
  await dev.traffic?.stop();
  // Freeze the chain (interval mining off) so both indexers converge on one head.
  await rpc('evm_setIntervalMining', [0]);
  await rpc('evm_mine', []);
  head = Number.parseInt(await rpc<string>('eth_blockNumber', []), 16);
  headHash = (await rpc<{ hash: string }>('eth_getBlockByNumber', [hex(head), false])).hash;
  await waitConverged(A, head, headHash, 120_000);
  expect(A.logs()).toMatch(/reorg/i);

  const dirB = tempDir('idx-reorgproj-b-');
  dirs.push(dirB);
  B = await startIndexer({ rpcUrl: dev.rpcUrl, dataDir: dirB, env });
  await waitConverged(B, head, headHash, 180_000);
}, 420_000);

afterAll(async () => {
  await A?.stop();
  await B?.stop();
  await dev?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * Fields that record the process's own history, not the chain: the reconciler's last eth_call
 * check and the live metadata re-probe (when they ran depends on the process; outside the digest too).
 */
const PROCESS_FIELDS = new Set([
  'reconciliation',
  'reconciliationReason',
  'balancesFollowEvents',
  'metadataNow',
]);
const chainOnly = (x: any): any =>
  Array.isArray(x)
    ? x.map(chainOnly)
    : x && typeof x === 'object'
      ? Object.fromEntries(
          Object.entries(x)
            .filter(([k]) => !PROCESS_FIELDS.has(k))
            .map(([k, v]) => [k, chainOnly(v)]),
        )
      : x;

/** Both indexers answer `path` with the same status and body (process-history fields aside). */
async function same(path: string): Promise<any> {
  const [a, b] = await Promise.all([A.get(path), B.get(path)]);
  expect(a.body?.anchor?.block ?? head, path).toBe(head);
  expect({ path, status: a.status, body: chainOnly(a.body) }).toEqual({
    path,
    status: b.status,
    body: chainOnly(b.body),
  });
  return b.body;
}

/** Both indexers walk `path` to the same rows. */
async function sameWalk(path: string): Promise<any[]> {
  const [a, b] = await Promise.all([walk(A, path), walk(B, path)]);
  expect(a.anchor, path).toEqual(b.anchor);
  expect(a.rows.length, path).toBe(b.rows.length);
  expect(chainOnly(a.rows), path).toEqual(chainOnly(b.rows));
  return b.rows;
}

describe('after seeded reorgs on the full devnet, routes equal a fresh index', () => {
  it('the chain actually reorganised under the indexer', async () => {
    const lines = A.logs()
      .split('\n')
      .filter((l) => /reorg/i.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(DEPTHS.length);
  });

  it('tokens: holders, top holders, balances, transfers equal; balances equal balanceOf', async () => {
    const tokens = await sameWalk('/tokens');
    expect(tokens.length).toBeGreaterThan(5);
    let checked = 0;
    let statsSeen = 0;
    for (const t of tokens) {
      const a = t.address;
      const tokenDetail = await same(`/tokens/${a}`);
      if (tokenDetail.data.statsReason === null) statsSeen++;
      const holders = await sameWalk(`/tokens/${a}/holders`);
      await sameWalk(`/tokens/${a}/holders?sort=wallet_id`);
      await same(`/tokens/${a}/top-holders?limit=100`);
      await sameWalk(`/tokens/${a}/transfers`);
      // Balances are checked against balanceOf only for tokens whose reconciliation says exact
      // (fee-on-transfer and rebasing test tokens say diverges); wait for the first check.
      let detail = (await A.get(`/tokens/${a}`)).body.data;
      for (let i = 0; i < 100 && detail?.reconciliation?.status === 'not_yet_checked'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        detail = (await A.get(`/tokens/${a}`)).body.data;
      }
      const odd = detail?.reconciliation?.status !== 'exact';
      for (const h of holders.slice(0, 25)) {
        const wallet = h.wallet ?? h.address;
        await same(`/tokens/${a}/balance/${wallet}`);
        if (odd || !detail?.confirmedErc20) continue;
        const data = `0x70a08231${wallet.slice(2).toLowerCase().padStart(64, '0')}`;
        const onChain = BigInt(await rpc<string>('eth_call', [{ to: a, data }, hex(head)]));
        expect({ token: a, wallet, balance: BigInt(h.balance) }).toEqual({
          token: a,
          wallet,
          balance: onChain,
        });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(statsSeen).toBeGreaterThan(3);
  }, 300_000);

  it('markets: pool identity, stats, liquidity, swaps and candles equal; token stats and candles equal', async () => {
    const pools = await sameWalk('/pools/new');
    expect(pools.length).toBeGreaterThan(3);
    let swapsSeen = 0;
    // Launchpad curves are not addressable by the pool routes (their trades show at token grain).
    for (const p of pools.filter((x) => x.protocol !== 'launchpad')) {
      const base =
        p.protocol === 'v4' ? `/pools/v4/${p.contract ?? p.manager}/${p.poolId}` : `/pools/${p.address}`;
      const id = await same(base);
      await same(`${base}/stats`);
      await same(`${base}/liquidity`);
      const swaps = await sameWalk(`${base}/swaps`);
      swapsSeen += swaps.length;
      const created = Number(id?.data?.createdAt ?? id?.data?.identity?.createdAt ?? 0);
      const to = Number((await B.get(`/blocks/${head}`)).body.data.timestamp);
      const from = Math.max(created, to - 3 * 86_400);
      for (const frame of ['1m', '1h']) {
        const f = frame === '1m' ? 60 : 3600;
        await sameWalk(
          `${base}/ohlcv?frame=${frame}&from=${Math.floor(Math.max(from, to - 900 * f) / f) * f}&to=${to}`,
        );
      }
    }
    expect(swapsSeen).toBeGreaterThan(20);
    const tokens = await sameWalk('/tokens');
    for (const t of tokens.slice(0, 12)) {
      await same(`/tokens/${t.address}/stats`);
      await same(`/tokens/${t.address}/overview`);
    }
  }, 300_000);

  it('wallets: positions, PnL, trades, funding edges and cohorts equal', async () => {
    const tokens = await sameWalk('/tokens');
    const traders = new Set<string>();
    const pools = await sameWalk('/pools/new');
    for (const p of pools.filter((x) => x.protocol !== 'launchpad').slice(0, 8)) {
      const base =
        p.protocol === 'v4' ? `/pools/v4/${p.contract ?? p.manager}/${p.poolId}` : `/pools/${p.address}`;
      for (const s of (await walk(B, `${base}/swaps`)).rows) if (s.origin) traders.add(s.origin);
    }
    expect(traders.size).toBeGreaterThan(3);
    for (const w of [...traders].slice(0, 30)) {
      await sameWalk(`/wallets/${w}/positions`);
      await same(`/wallets/${w}/pnl`);
      await sameWalk(`/wallets/${w}/trades`);
      await sameWalk(`/wallets/${w}/funded-by`);
      await same(`/wallets/${w}/funded-by-all`);
      await sameWalk(`/wallets/${w}/funder-of`);
      await same(`/wallets/${w}/cohorts`);
    }
    let cohorts = 0;
    const cohortSubjects = [...new Set([...cohortTokens, ...tokens.slice(0, 20).map((t) => t.address)])];
    for (const t of cohortSubjects.map((address) => ({ address }))) {
      // The dropped scenario's token no longer exists: both answer the same typed refusal.
      const first = await same(`/cohorts?token=${t.address}`);
      if (!Array.isArray(first?.data)) continue;
      const rows = await sameWalk(`/cohorts?token=${t.address}`);
      for (const c of rows.slice(0, 5)) {
        await same(`/cohorts/${c.id}`);
        await sameWalk(`/cohorts/${c.id}/members`);
        await sameWalk(`/cohorts/${c.id}/edges`);
        cohorts++;
      }
    }
    // The surviving scripted cohort is found on both with its three members.
    expect(cohorts).toBeGreaterThan(0);
    const survivor = (await walk(A, `/cohorts?token=${cohortTokens[0]}`)).rows;
    expect(survivor.map((c) => c.size)).toContain(3);
    const dropped = await A.get(`/cohorts?token=${cohortTokens[1]}`);
    expect(dropped.status === 404 || dropped.body.data.length === 0, dropped.text).toBe(true);
  }, 300_000);

  it('the stores are equal table by table (stream history aside)', async () => {
    await A.stop();
    await B.stop();
    const [a, b] = await Promise.all([digestOf(A.dataDir), digestOf(B.dataDir)]);
    expect(a.head).toEqual(b.head);
    expect(differing(a, b)).toEqual([]);
  }, 120_000);
});
