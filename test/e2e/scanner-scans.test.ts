import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { poolSwapTestAbi } from '@chain-indexer/devnet/contracts';
import { MAX_SQRT_PRICE_MINUS_1, MIN_SQRT_PRICE_PLUS_1 } from '@chain-indexer/devnet/math';
import { ENDPOINTS } from '@chain-indexer/scanner/testing';
import { Value } from '@sinclair/typebox/value';
import { encodeFunctionData, keccak256, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendAndWait } from '../harness/cohort.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { jsonRpc } from '../harness/rpc.js';
import { type Answer, httpRequest, scannerCli, startScanner } from '../harness/scanner.js';

const CLI = new URL('../../packages/scanner/dist/cli.js', import.meta.url).pathname;
const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const PAD_ABI = parseAbi([
  'function createLaunch(string name, string symbol, string metadataUri, string imageUri) returns (address)',
  'function buy(address token, uint256 minTokensOut) payable returns (uint256)',
  'function sell(address token, uint256 tokenIn, uint256 minEthOut) returns (uint256)',
  'function approve(address spender, uint256 amount) returns (bool)',
]);
const ERC20 = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function approve(address spender, uint256 amount) returns (bool)',
]);
const NATIVE = '0x0000000000000000000000000000000000000000';

const IMPL_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';
const ownable = () => dev.deployment.tokens.find((t) => t.kind === 'ownable')!.address.toLowerCase();

let dev: TestDevnet;
let idx: IndexerProcess;
let url = '';
let key = '';
let acc = '';
const fresh = (i: number) => `0x${(0x5ca000 + i).toString(16).padStart(40, '0')}`;
const wei = (milli: bigint) => `0x${(milli * 10n ** 15n).toString(16)}`;
const EX = fresh(1);
const [A, B, C] = [fresh(2), fresh(3), fresh(4)];
const F = fresh(10);
/** H holds USDC, LINK and WETH (USD marks); V buys and sells PEPE on the V4 ETH/PEPE pool. */
const [H, V] = [fresh(20), fresh(21)];
const tok = (key: string) => dev.deployment.tokens.find((t) => t.key === key)!.address.toLowerCase();
const [M1, M2, M3] = [fresh(11), fresh(12), fresh(13)];
/** What the script made. */
const made = {
  hops: {} as Record<string, { txHash: string; block: number; value: bigint }>,
  token: '',
  launchBlock: 0,
  buys: {} as Record<string, { block: number; txIndex: number; txHash: string }>,
  /** The V4 ETH/PEPE pool key (manager ‖ pool id). */
  pepePool: '',
};

const rpc = <T = any>(method: string, params: unknown[] = []) => jsonRpc<T>(dev.rpcUrl, method, params);
const call = async (to: string, data: string, block: number) =>
  BigInt(await rpc<string>('eth_call', [{ to, data }, `0x${block.toString(16)}`]));
const balanceOf = (token: string, w: string, block: number) =>
  call(
    token,
    encodeFunctionData({ abi: ERC20, functionName: 'balanceOf', args: [w as `0x${string}`] }),
    block,
  );
const totalSupply = (token: string, block: number) =>
  call(token, encodeFunctionData({ abi: ERC20, functionName: 'totalSupply' }), block);

/** Runs the operator CLI on the in-process scanner's store (through its admin socket). */
const cli = scannerCli(CLI, () => join(idx.dataDir, 'scanner'));

const published = new Map(ENDPOINTS.map((e) => [`${e.spec.method} ${e.spec.path}`, e.publishedResponse]));
/** A scanner request; a 200 body must match the endpoint's published response schema. */
async function ask(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  const a = await httpRequest(url, method, path, { key, body });
  if (a.status === 200) {
    const schema = published.get(`${method} ${path.split('?')[0]}`)!;
    const errs = [...Value.Errors(schema, a.body)].slice(0, 3);
    expect(
      errs.map((e) => `${e.path}: ${e.message}`),
      `${path} schema`,
    ).toEqual([]);
  } else expect(a.body).toMatchObject({ code: expect.any(String), requestId: a.headers['x-request-id'] });
  return a;
}
/** The anchor must be the node's canonical block. */
async function expectNodeAnchor(anchor: { chain: string; block: number; hash: string }) {
  const b = await rpc<any>('eth_getBlockByNumber', [`0x${anchor.block.toString(16)}`, false]);
  expect(anchor.hash).toBe(b.hash);
  expect(anchor.chain).toBe('testnet');
}

async function send(tx: Record<string, string>) {
  const rc = await sendAndWait(dev.rpcUrl, { gas: '0x200000', ...tx });
  return {
    txHash: rc.transactionHash as string,
    block: Number(rc.blockNumber),
    txIndex: Number(rc.transactionIndex),
  };
}
const buyData = (token: string) =>
  encodeFunctionData({ abi: PAD_ABI, functionName: 'buy', args: [token as `0x${string}`, 0n] });

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 500, traffic: false });
  const labels = join(dev.stateDir, 'labels.json');
  writeFileSync(labels, JSON.stringify({ [EX]: ['exchange'], [M1]: ['kol:alice'] }));
  idx = await startIndexer({
    rpcUrl: dev.rpcUrl,
    env: {
      ...devnetIndexerEnv(dev),
      TRACES: 'off',
      SCANNER: 'on',
      SCANNER_PORT: '0',
      SMTP_URL: '',
      LABELS_FILE: labels,
    },
  });
  url = `http://127.0.0.1:${/scanner API listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(idx.logs())?.[1]}`;
  acc = (await cli('create-account', '--email', 'scans@example.com')).account.id;
  await cli('set-plan', '--account', acc, '--plan', 'enterprise');
  await cli('grant-credits', '--account', acc, '--scans', '20');
  key = (await cli('create-key', '--account', acc, '--name', 'scans')).secret;

  // One transaction per block from here on; the bundle's two buys share one mined block.
  await rpc('evm_setIntervalMining', [0]);
  await rpc('evm_setAutomine', [true]);
  // The value forwarder becomes an EIP-1967 proxy of the ownable token (state carried by later blocks).
  await rpc('anvil_setStorageAt', [
    dev.deployment.contracts.valueForwarder,
    IMPL_SLOT,
    `0x${ownable().slice(2).padStart(64, '0')}`,
  ]);
  const hop = async (from: string, to: string, milli: bigint) => {
    await rpc('anvil_impersonateAccount', [from]);
    made.hops[to] = { ...(await send({ from, to, value: wei(milli) })), value: milli * 10n ** 15n };
  };
  await hop(DEV0, EX, 100_000n);
  await hop(EX, A, 10_000n);
  await hop(A, B, 5_000n);
  await hop(B, C, 2_000n);
  const rc = await sendAndWait(dev.rpcUrl, {
    from: DEV0,
    to: dev.deployment.launchpad.address,
    data: encodeFunctionData({
      abi: PAD_ABI,
      functionName: 'createLaunch',
      args: ['Scan Target', 'SCAN', 'ipfs://ipfs/bafyscan', 'https://gw.example/ipfs/bafyscanimg'],
    }),
    gas: '0x800000',
  });
  made.launchBlock = Number(rc.blockNumber);
  const pad = dev.deployment.launchpad.address.toLowerCase();
  made.token = `0x${rc.logs.find((l: any) => l.address.toLowerCase() === pad).topics[1].slice(26)}`;
  await hop(DEV0, F, 10_000n);
  for (const m of [M1, M2, M3]) await hop(F, m, 1_000n);
  // The bundle: M1 and M2 buy in one block.
  await rpc('evm_setAutomine', [false]);
  for (const m of [M1, M2]) await rpc('anvil_impersonateAccount', [m]);
  const hashes = await Promise.all(
    [M1, M2].map((m) =>
      rpc<string>('eth_sendTransaction', [
        { from: m, to: pad, value: wei(100n), data: buyData(made.token), gas: '0x200000' },
      ]),
    ),
  );
  await rpc('evm_mine', []);
  await rpc('evm_setAutomine', [true]);
  for (const [i, m] of [M1, M2].entries()) {
    const r = await rpc<any>('eth_getTransactionReceipt', [hashes[i]]);
    expect(r.status).toBe('0x1');
    made.buys[m] = { txHash: hashes[i], block: Number(r.blockNumber), txIndex: Number(r.transactionIndex) };
  }
  for (const [m, milli] of [
    [M3, 300n],
    [C, 50n],
  ] as const) {
    await rpc('anvil_impersonateAccount', [m]);
    made.buys[m] = await send({ from: m, to: pad, value: wei(milli), data: buyData(made.token) });
  }
  // M3 sells half back to the curve: a realised PnL for the finder, alpha and win rate.
  const half = (await balanceOf(made.token, M3, Number(await rpc<string>('eth_blockNumber')))) / 2n;
  await rpc('anvil_impersonateAccount', [M3]);
  await send({
    from: M3,
    to: made.token,
    data: encodeFunctionData({ abi: PAD_ABI, functionName: 'approve', args: [pad as `0x${string}`, half] }),
  });
  await send({
    from: M3,
    to: pad,
    data: encodeFunctionData({
      abi: PAD_ABI,
      functionName: 'sell',
      args: [made.token as `0x${string}`, half, 0n],
    }),
  });
  // H: USDC (at par), LINK (USDC venue) and WETH (a deposit; USDC venue) to mark in USD.
  await hop(DEV0, H, 3_000n);
  await rpc('anvil_impersonateAccount', [H]);
  await send({ from: H, to: dev.deployment.contracts.weth9, value: wei(2_000n), data: '0xd0e30db0' }); // deposit()
  for (const [k, amount] of [
    ['USDC', 1_234_500_000n],
    ['LINK', 10n ** 19n],
  ] as const)
    await send({
      from: dev.deployment.admin,
      to: tok(k),
      data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [H as `0x${string}`, amount] }),
    });
  // V: buys PEPE with native ETH on the V4 ETH/PEPE pool (tokens leave the PoolManager, which
  // carries no venue label), then sells half back: a swap-only buyer with a realised PnL in native.
  const pool = dev.deployment.pools.find(
    (p) => p.protocol === 'uniswap-v4' && p.token0 === NATIVE && p.token1Key === 'PEPE',
  )!;
  made.pepePool = `${pool.address.toLowerCase()}${pool.poolId!.slice(2)}`;
  const v4Swap = (zeroForOne: boolean, amountIn: bigint) =>
    encodeFunctionData({
      abi: poolSwapTestAbi,
      functionName: 'swap',
      args: [
        {
          currency0: pool.token0,
          currency1: pool.token1,
          fee: pool.fee,
          tickSpacing: pool.tickSpacing!,
          hooks: pool.hooks ?? NATIVE,
        },
        {
          zeroForOne,
          amountSpecified: -amountIn,
          sqrtPriceLimitX96: zeroForOne ? MIN_SQRT_PRICE_PLUS_1 : MAX_SQRT_PRICE_MINUS_1,
        },
        { takeClaims: false, settleUsingBurn: false },
        '0x',
      ],
    });
  await hop(DEV0, V, 1_000n);
  await rpc('anvil_impersonateAccount', [V]);
  const swapper = dev.deployment.contracts.poolSwapTest;
  made.buys[V] = await send({ from: V, to: swapper, value: wei(10n), data: v4Swap(true, 10n ** 16n) });
  const pepe = (await balanceOf(tok('PEPE'), V, made.buys[V].block)) / 2n;
  expect(pepe).toBeGreaterThan(0n);
  await send({
    from: V,
    to: tok('PEPE'),
    data: encodeFunctionData({ abi: ERC20, functionName: 'approve', args: [swapper, pepe] }),
  });
  await send({ from: V, to: swapper, data: v4Swap(false, pepe) });
  const head = Number(await rpc<string>('eth_blockNumber'));
  await idx.waitForHead(head, 120_000);
}, 400_000);

afterAll(stopAll(() => [idx, dev]));

describe('funding chain', () => {
  it('hops closest first with tx, block, asset and amount; stops at the exchange label; equals funded-by', async () => {
    const r = await ask('GET', `/v1/funding-chain?address=${C.toUpperCase().replace('0X', '0x')}`);
    expect(r.status, r.text).toBe(200);
    await expectNodeAnchor(r.body.anchor);
    const fc = r.body.fundingChain;
    expect(fc).toMatchObject({ address: C, depth: 5, stoppedBy: 'labelled_exchange', stoppedAt: EX });
    expect(fc.hops.map((h: any) => [h.wallet, h.funder])).toEqual([
      [C, B],
      [B, A],
      [A, EX],
    ]);
    for (const h of fc.hops) {
      const want = made.hops[h.wallet];
      expect(h).toMatchObject({
        assetKind: 'native',
        asset: null,
        amount: want.value.toString(),
        txHash: want.txHash,
        block: want.block,
      });
      // The indexer's own route agrees at the same (frozen) head.
      const fb = await idx.get(`/wallets/${h.wallet}/funded-by`);
      const native = fb.body.data.find((x: any) => x.assetKind === 'native');
      expect(native.funder.toLowerCase()).toBe(h.funder);
      expect(native.txHash).toBe(h.txHash);
      expect(fb.body.anchor.number ?? fb.body.anchor.block).toBe(r.body.anchor.block);
    }
    expect(fc.hops[2].funderLabels).toContainEqual({ label: 'exchange', evidence: 'labels_file' });
    const short = await ask('GET', `/v1/funding-chain?address=${C}&depth=2`);
    expect(short.body.fundingChain).toMatchObject({ stoppedBy: 'depth_reached', stoppedAt: A });
    expect(short.body.fundingChain.hops).toHaveLength(2);
    // Free: nothing charged.
    expect(r.headers['x-scans-charged']).toBeUndefined();
  });

  it('refuses bad input with INVALID_INPUT', async () => {
    expect((await ask('GET', '/v1/funding-chain?address=0x12')).status).toBe(400);
    expect((await ask('GET', `/v1/funding-chain?address=${C}&depth=11`)).body.code).toBe('INVALID_INPUT');
  });
});

describe('token findings', () => {
  it('/bundles: the same-block buyers funded by one funder, with evidence and share of supply (eth_call at the anchor)', async () => {
    const r = await ask('GET', `/v1/bundles?token=${made.token}`);
    expect(r.status, r.text).toBe(200);
    const at = r.body.anchor.block;
    await expectNodeAnchor(r.body.anchor);
    const b = r.body.bundles;
    const supply = await totalSupply(made.token, at);
    expect(b.supply).toBe(supply.toString());
    expect(b.bundles).toHaveLength(1);
    const [bundle] = b.bundles;
    expect(bundle).toMatchObject({ funder: F, block: made.buys[M1].block, size: 2 });
    expect(made.buys[M2].block).toBe(made.buys[M1].block);
    let sum = 0n;
    for (const m of bundle.members) {
      expect([M1, M2]).toContain(m.wallet);
      const bal = await balanceOf(made.token, m.wallet, at);
      expect(m.balance).toBe(bal.toString());
      sum += bal;
      expect(m.buy.txHash).toBe(made.buys[m.wallet].txHash);
      expect(m.funding).toMatchObject({ from: F, to: m.wallet, txHash: made.hops[m.wallet].txHash });
    }
    expect(bundle.balance).toBe(sum.toString());
    expect(bundle.shareOfSupply).toEqual({
      numerator: sum.toString(),
      denominator: supply.toString(),
      bps: Number((sum * 10_000n) / supply),
    });
    expect(b).toMatchObject({ wallets: 2, balance: sum.toString(), complete: true });
    // The cohort behind it is the indexer's cohort of (token, F): M3 is a member, not in the bundle.
    const cohorts = await idx.get(`/cohorts?token=${made.token}`);
    expect(cohorts.body.data.map((c: any) => [c.id, c.funder.toLowerCase(), c.size])).toEqual([
      [bundle.cohortId, F, 3],
    ]);
  });

  it('/bundles of an address that is no indexed token is NOT_FOUND', async () => {
    const r = await ask('GET', `/v1/bundles?token=${fresh(99)}`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('NOT_FOUND');
  });

  it('/detect: bundles, snipers (after the launch block) and fresh wallets, each with rule and inputs', async () => {
    const r = await ask('GET', `/v1/detect?token=${made.token}&sniperBlocks=5&freshBlocks=6`);
    expect(r.status, r.text).toBe(200);
    const d = r.body.detection;
    expect(d.bundles).toMatchObject({ flagged: true, count: 1, wallets: 2 });
    expect(d.snipers.inputs).toEqual({
      reference: 'launch_created',
      referenceBlock: made.launchBlock,
      pool: null,
      launchBlock: made.launchBlock,
      withinBlocks: 5,
    });
    const buyers = [M1, M2, M3, C];
    const wantSnipers = buyers.filter((w) => made.buys[w].block - made.launchBlock <= 5);
    expect(d.snipers.wallets.map((w: any) => w.wallet).sort()).toEqual([...wantSnipers].sort());
    expect(wantSnipers.length).toBeGreaterThan(0);
    expect(wantSnipers.length).toBeLessThan(buyers.length);
    for (const s of d.snipers.wallets) expect(s.blocksAfterLaunch).toBe(s.block - made.launchBlock);
    // Fresh: first seen (the indexer's first-seen route) at most 6 blocks before the first buy.
    const wantFresh: string[] = [];
    for (const w of buyers) {
      const fs = await idx.get(`/wallets/${w}/first-seen`);
      if (made.buys[w].block - fs.body.data.block <= 6) wantFresh.push(w);
    }
    expect(d.freshWallets.wallets.map((w: any) => w.wallet).sort()).toEqual(wantFresh.sort());
    expect(wantFresh).toContain(M1);
    expect(wantFresh).not.toContain(C);
    expect(d.freshWallets.inputs).toEqual({ withinBlocks: 6, buyersExamined: 4 });
    expect(d.buys).toMatchObject({ transfersRead: expect.any(Number), complete: true });
  });

  it('/detect of a token without a launch: the sniper window starts at its first registered pool (the indexer’s pool routes)', async () => {
    const pepe = tok('PEPE');
    const r = await ask('GET', `/v1/detect?token=${pepe}&sniperBlocks=5`);
    expect(r.status, r.text).toBe(200);
    const s = r.body.detection.snipers;
    // Every PEPE pool of the deployment, registered as the indexer's pool routes have them.
    const created: Array<[string, number, number]> = [];
    for (const p of dev.deployment.pools.filter((x) => x.token0Key === 'PEPE' || x.token1Key === 'PEPE')) {
      const d = await idx.get(
        p.protocol === 'uniswap-v4' ? `/pools/v4/${p.address}/${p.poolId}` : `/pools/${p.address}`,
      );
      expect(d.status, d.text).toBe(200);
      created.push([d.body.data.key, d.body.data.created.block, d.body.data.created.logIndex ?? -1]);
    }
    created.sort((x, y) => x[1] - y[1] || x[2] - y[2]);
    expect(created.length).toBeGreaterThanOrEqual(2);
    expect(s).toMatchObject({ evaluated: true, notEvaluatedReason: null });
    expect(s.inputs).toMatchObject({
      reference: 'first_pool_registered',
      referenceBlock: created[0][1],
      pool: { key: created[0][0], registeredBy: 'factory_event' },
      launchBlock: null,
      withinBlocks: 5,
    });
  });

  it('POST /scan of a token: the token scan for 1 scan, numbers against the node and the indexer', async () => {
    const r = await ask('POST', '/v1/scan', { address: made.token, depth: 'max' });
    expect(r.status, r.text).toBe(200);
    expect(r.headers['x-scans-charged']).toBe('1');
    const at = r.body.anchor.block;
    await expectNodeAnchor(r.body.anchor);
    const s = r.body.scan;
    expect(s).toMatchObject({ kind: 'token', address: made.token, symbol: 'SCAN', name: 'Scan Target' });
    expect(s.supply).toBe((await totalSupply(made.token, at)).toString());
    const detail = await idx.get(`/tokens/${made.token}`);
    expect(s.holders).toEqual(detail.body.data.holderCount);
    // Concentration: the pad (a venue) is excluded; the top holders are the buyers by balanceOf.
    const pad = dev.deployment.launchpad.address.toLowerCase();
    expect(s.concentration.excluded.map((e: any) => e.wallet)).toEqual([pad]);
    const bals = await Promise.all(
      [M1, M2, M3, C].map(async (w) => [w, await balanceOf(made.token, w, at)] as const),
    );
    bals.sort((x, y) => (y[1] > x[1] ? 1 : y[1] < x[1] ? -1 : 0));
    expect(s.concentration.top.map((t: any) => [t.wallet, t.balance])).toEqual(
      bals.map(([w, b]) => [w, b.toString()]),
    );
    const sum = bals.reduce((t, [, b]) => t + b, 0n);
    expect(s.concentration.topShare.numerator).toBe(sum.toString());
    expect(s.holders.value).toBe(5); // the pad and the four buyers
    // Creator and launch as the indexer has them.
    const creator = await idx.get(`/tokens/${made.token}/creator`);
    expect(s.creator.deployer).toBe(creator.body.data.deployer.toLowerCase());
    expect(s.launch).toMatchObject({ state: 'new', creator: DEV0 });
    expect(s.launch.created.block).toBe(made.launchBlock);
    // First buyers in chain order, bundle included.
    expect(s.firstBuyers.rows.map((b: any) => b.wallet)).toEqual(
      [M1, M2, M3, C].sort(
        (x, y) => made.buys[x].block - made.buys[y].block || made.buys[x].txIndex - made.buys[y].txIndex,
      ),
    );
    for (const b of s.firstBuyers.rows) expect(b.venue).toBe(pad);
    expect(s.bundles.bundles).toHaveLength(1);
    // Venues and liquidity: the curve against native, as the indexer's price and liquidity routes.
    expect(s.venues.quotes.map((q: any) => q.quote)).toEqual([NATIVE]);
    const [v] = s.venues.quotes;
    const price = await idx.get(`/tokens/${made.token}/price?quote=${NATIVE}`);
    expect(price.body.anchor.number ?? price.body.anchor.block).toBe(at);
    // A curve has no pool contract of its own: its contract is the pad; the key is the indexer's.
    expect(v.venue).toEqual({
      pool: null,
      poolId: null,
      contract: pad,
      protocol: 'launchpad',
      poolKey: price.body.data.venue.pool,
    });
    expect(v.price).toEqual({
      numerator: price.body.data.price.priceNumerator,
      denominator: price.body.data.price.priceDenominator,
    });
    const liq = await idx.get(`/tokens/${made.token}/liquidity?quote=${NATIVE}`);
    expect(v.liquidity).toMatchObject({
      tokenReserve: liq.body.data.reserves.tokenReserve,
      quoteReserve: liq.body.data.reserves.quoteReserve,
      reservesPools: liq.body.data.reserves.pools,
      concentratedPools: [],
    });
    // The curve's native reserve is the pad's ETH for this token: the buys minus the sell.
    expect(BigInt(v.liquidity.quoteReserve)).toBeGreaterThan(0n);
    expect(v.liquidity.quoteReserveUsd).not.toBeNull();
    expect(s.venues.usd).toMatchObject({ marked: true, mark: { method: 'venue_price_via_quote' } });
  });
});

describe('wallet findings', () => {
  it('POST /scan of a wallet: depth prices quick 1 / deep 2 / max 4, funding hops 1 / 3 / 3 (exchange), cached answers free', async () => {
    const quick = await ask('POST', '/v1/scan', { address: C, depth: 'quick' });
    expect(quick.status, quick.text).toBe(200);
    expect(quick.headers['x-scans-charged']).toBe('1');
    expect(quick.body.scan).toMatchObject({ kind: 'wallet', address: C, depth: 'quick' });
    expect(quick.body.scan.fundingChain.hops).toHaveLength(1);
    const deep = await ask('POST', '/v1/scan', { address: C, depth: 'deep' });
    expect(deep.headers['x-scans-charged']).toBe('2');
    expect(deep.body.scan.fundingChain.hops).toHaveLength(3);
    const max = await ask('POST', '/v1/scan', { address: C, depth: 'max' });
    expect(max.headers['x-scans-charged']).toBe('4');
    expect(max.body.scan.fundingChain).toMatchObject({ stoppedBy: 'labelled_exchange' });
    const again = await ask('POST', '/v1/scan', { address: C, depth: 'max' });
    expect(again.headers['x-scans-charged']).toBe('0');
    expect(again.body).toEqual({ ...max.body, cached: true });
    const s = max.body.scan;
    const at = max.body.anchor.block;
    // First seen, holdings and PnL as the indexer's routes have them at the same head.
    const fs = await idx.get(`/wallets/${C}/first-seen`);
    expect(s.firstSeen).toMatchObject({ block: fs.body.data.block, txHash: fs.body.data.txHash });
    expect(s.firstSeen.txHash).toBe(made.hops[C].txHash);
    const held = s.holdings.assets.find((a: any) => a.token === made.token);
    expect(held.balance).toBe((await balanceOf(made.token, C, at)).toString());
    const pnl = await idx.get(`/wallets/${C}/pnl`);
    expect(s.pnl.realisedByQuote).toEqual(pnl.body.data.realisedByQuote);
    // Counterparties: B funded it, the pad sold to it.
    const cp = Object.fromEntries(s.counterparties.rows.map((c: any) => [c.address, c]));
    expect(cp[B]).toMatchObject({ transfersIn: 1, assets: [null] });
    expect(cp[dev.deployment.launchpad.address.toLowerCase()].transfersIn).toBe(1);
    // M1's cohort membership with the token.
    const m1 = await ask('POST', '/v1/scan', { address: M1, depth: 'quick' });
    expect(m1.body.scan.cohorts.memberships).toEqual([
      expect.objectContaining({ token: made.token, funder: F, size: 3 }),
    ]);
    // …and the bundle it is in, with its evidence edges (M3 is in the cohort, not in the bundle).
    expect(m1.body.scan.bundles.rows).toEqual([
      expect.objectContaining({ token: made.token, funder: F, block: made.buys[M1].block, size: 2 }),
    ]);
    expect(
      m1.body.scan.bundles.rows[0].members.map((m: any) => [m.wallet, m.buy.txHash, m.funding.txHash]).sort(),
    ).toEqual([M1, M2].map((w) => [w, made.buys[w].txHash, made.hops[w].txHash]).sort());
    expect(s.bundles.rows).toEqual([]);
  });

  it('/holdings: every holding marked in USD through the markets reader; each leg is the indexer price route at the same anchor, balances eth_call', async () => {
    const r = await ask('GET', `/v1/holdings?address=${H}`);
    expect(r.status, r.text).toBe(200);
    const at = r.body.anchor.block;
    await expectNodeAnchor(r.body.anchor);
    const h = r.body.holdings;
    const [usdc, link, weth] = [tok('USDC'), tok('LINK'), dev.deployment.contracts.weth9.toLowerCase()];
    expect(h.coverage).toMatchObject({ unmarked: [], assetsExamined: 3, complete: true });
    const by = Object.fromEntries(h.assets.map((a: any) => [a.token, a]));
    expect(Object.keys(by).sort()).toEqual([usdc, link, weth].sort());
    for (const t of [usdc, link, weth]) expect(by[t].balance).toBe((await balanceOf(t, H, at)).toString());
    expect(by[usdc].balance).toBe('1234500000');
    // USDC at par: 1 USD per 10^6 base units.
    const approx = (decimal: string) => ({ decimal, approximate: true, significantDigits: 12 });
    expect(by[usdc].mark).toEqual({
      method: 'usd_stablecoin_par',
      usdPerBaseUnit: { numerator: '1', denominator: '1000000' },
      usdPerUnitApprox: approx('1'),
      usdPerUnitApproxReason: null,
      stablecoin: { address: usdc, decimals: 6 },
      legs: [],
    });
    expect(by[usdc].valueUsd).toEqual({ numerator: '2469', denominator: '2' });
    expect(by[usdc].valueUsdApprox).toEqual(approx('1234.5'));
    // LINK and WETH: the default venue's price in USDC, as /tokens/{t}/price?quote=USDC answers it.
    let total = { n: 2469n, d: 2n };
    for (const t of [link, weth]) {
      const p = await idx.get(`/tokens/${t}/price?quote=${usdc}`);
      expect(p.status, p.text).toBe(200);
      expect(p.body.anchor.number ?? p.body.anchor.block).toBe(at);
      const m = by[t].mark;
      expect(m).toMatchObject({ method: 'venue_price_in_usd_stablecoin', stablecoin: { address: usdc } });
      const venue = p.body.data.venue;
      // The leg names the pool as people look it up: the 20-byte contract of a V2/V3 pool or the
      // 32-byte id of a V4 pool (never the key's zero padding), and the key for the indexer route.
      expect(m.legs).toEqual([
        {
          base: t,
          quote: usdc,
          pool: ['v2', 'v3'].includes(venue.protocol) ? venue.contract : null,
          poolId: venue.poolId,
          contract: venue.contract,
          protocol: venue.protocol,
          poolKey: venue.pool,
          price: expect.any(Object),
          priceApprox: expect.objectContaining({ approximate: true, significantDigits: 12 }),
          priceApproxReason: null,
        },
      ]);
      if (m.legs[0].pool !== null) expect(m.legs[0].pool).toMatch(/^0x[0-9a-f]{40}$/);
      if (m.legs[0].poolId !== null) expect(m.legs[0].poolId).toMatch(/^0x[0-9a-f]{64}$/);
      const [n, d] = [BigInt(p.body.data.price.priceNumerator), BigInt(p.body.data.price.priceDenominator)];
      expect(BigInt(m.legs[0].price.numerator) * d).toBe(n * BigInt(m.legs[0].price.denominator));
      // The whole-unit price: USDC (6 decimals) per token (18): n/d × 10^12, within 12 digits.
      expect(Number(m.legs[0].priceApprox.decimal)).toBeCloseTo(
        Number((n * 10n ** 12n * 10n ** 6n) / d) / 1e6,
        4,
      );
      // value = balance × price / 10^6 (exact)
      const v = { n: BigInt(by[t].balance) * n, d: d * 10n ** 6n };
      expect(BigInt(by[t].valueUsd.numerator) * v.d).toBe(v.n * BigInt(by[t].valueUsd.denominator));
      expect(Number(by[t].valueUsdApprox.decimal)).toBeCloseTo(Number((v.n * 10n ** 6n) / v.d) / 1e6, 4);
      total = { n: total.n * v.d + v.n * total.d, d: total.d * v.d };
    }
    expect(BigInt(h.netWorthUsd.numerator) * total.d).toBe(total.n * BigInt(h.netWorthUsd.denominator));
    expect(h.netWorthUsdApprox).toMatchObject({ approximate: true, significantDigits: 12 });
    expect(Number(h.netWorthUsdApprox.decimal)).toBeCloseTo(Number((total.n * 10n ** 6n) / total.d) / 1e6, 4);
    // Ranked by USD value, largest first.
    const vals = h.assets.map((a: any) => Number(a.valueUsd.numerator) / Number(a.valueUsd.denominator));
    expect(vals).toEqual([...vals].sort((x, y) => y - x));
    expect(h.pricing.quoteAssets[0]).toBe(usdc);
  });

  it('/holdings of a launch token: curve price in native, native marked through the V4 ETH/USDC venue (two legs, both the indexer routes)', async () => {
    const r = await ask('GET', `/v1/holdings?address=${M3}`);
    expect(r.status, r.text).toBe(200);
    const at = r.body.anchor.block;
    const h = r.body.holdings;
    const usdc = tok('USDC');
    expect(h.assets).toHaveLength(1);
    const [a] = h.assets;
    expect(a).toMatchObject({ token: made.token, balance: (await balanceOf(made.token, M3, at)).toString() });
    expect(h.coverage.marked).toEqual([{ token: made.token, method: 'venue_price_via_quote' }]);
    const [curve, native] = a.mark.legs;
    // Leg 1: the token's price in native on its curve = /tokens/{token}/price?quote=0x0…0.
    const p1 = await idx.get(`/tokens/${made.token}/price?quote=${NATIVE}`);
    expect(p1.body.anchor.number ?? p1.body.anchor.block).toBe(at);
    expect(curve).toMatchObject({
      base: made.token,
      quote: NATIVE,
      pool: null,
      poolId: null,
      contract: p1.body.data.venue.contract,
      poolKey: p1.body.data.venue.pool,
      protocol: 'launchpad',
    });
    const r1 = {
      n: BigInt(p1.body.data.price.priceNumerator),
      d: BigInt(p1.body.data.price.priceDenominator),
    };
    expect(BigInt(curve.price.numerator) * r1.d).toBe(r1.n * BigInt(curve.price.denominator));
    // Leg 2: native in USDC on the V4 ETH/USDC pool = the inverse of /tokens/USDC/price?quote=0x0…0.
    const p2 = await idx.get(`/tokens/${usdc}/price?quote=${NATIVE}`);
    // A V4 venue: no pool contract; its 32-byte pool id and the PoolManager.
    expect(native).toMatchObject({
      base: NATIVE,
      quote: usdc,
      pool: null,
      poolId: p2.body.data.venue.poolId,
      contract: p2.body.data.venue.contract,
      poolKey: p2.body.data.venue.pool,
      protocol: 'v4',
    });
    expect(native.poolId).toMatch(/^0x[0-9a-f]{64}$/);
    const r2 = {
      n: BigInt(p2.body.data.price.priceDenominator),
      d: BigInt(p2.body.data.price.priceNumerator),
    };
    expect(BigInt(native.price.numerator) * r2.d).toBe(r2.n * BigInt(native.price.denominator));
    // usdPerBaseUnit = leg1 × leg2 / 10^6; value = balance × that.
    const u = { n: r1.n * r2.n, d: r1.d * r2.d * 10n ** 6n };
    expect(BigInt(a.mark.usdPerBaseUnit.numerator) * u.d).toBe(
      u.n * BigInt(a.mark.usdPerBaseUnit.denominator),
    );
    expect(BigInt(a.valueUsd.numerator) * u.d).toBe(BigInt(a.balance) * u.n * BigInt(a.valueUsd.denominator));
    expect(h.netWorthUsd).toEqual(a.valueUsd);
    // The wallet scan carries the same holdings block.
    const scan = await ask('POST', '/v1/scan', { address: M3, depth: 'quick' });
    expect(scan.body.scan.holdings.assets).toEqual(h.assets);
    // The indexer's own assets route lists the same balances.
    const assets = await idx.get(`/wallets/${M3}/assets?sort=token`);
    expect(assets.body.data.map((x: any) => [x.token, x.balance])).toEqual([[a.token, a.balance]]);
  });

  it('/identities: labels with evidence and the kind the index decides', async () => {
    const ex = await ask('GET', `/v1/identities?address=${EX}`);
    expect(ex.status, ex.text).toBe(200);
    expect(ex.body.identity).toMatchObject({ address: EX, kind: 'EOA', entity: null });
    expect(ex.body.identity.labels).toContainEqual({ label: 'exchange', evidence: 'labels_file' });
    const tok = await ask('GET', `/v1/identities?address=${made.token}`);
    expect(tok.body.identity.kind).toBe('contract');
    expect(tok.body.identity.labels.map((l: any) => l.label)).toContain('token');
    const pad = await ask('GET', `/v1/identities?address=${dev.deployment.launchpad.address}`);
    expect(pad.body.identity.labels.map((l: any) => l.label)).toContain('launchpad:devnet-pad');
    const same = await idx.get(`/addresses/${EX}`);
    expect(same.body.data.labels).toEqual(ex.body.identity.labels);
  });
});

describe('contract scan', () => {
  it('/contracts: code hash, privileged selectors, creator and authority events as the node and the indexer have them (1 scan)', async () => {
    const r = await ask('GET', `/v1/contracts?address=${ownable()}`);
    expect(r.status, r.text).toBe(200);
    expect(r.headers['x-scans-charged']).toBe('1');
    const at = r.body.anchor.block;
    await expectNodeAnchor(r.body.anchor);
    const c = r.body.contract;
    const code = await rpc<string>('eth_getCode', [ownable(), `0x${at.toString(16)}`]);
    expect(c).toMatchObject({
      address: ownable(),
      isContract: true,
      codeHash: keccak256(code as `0x${string}`),
      codeSize: (code.length - 2) / 2,
    });
    const found = c.privilegedSelectors.found.map((f: any) => f.signature);
    expect(found).toEqual(
      expect.arrayContaining(['mint(address,uint256)', 'transferOwnership(address)', 'renounceOwnership()']),
    );
    expect(found).not.toContain('pause()');
    expect(c.proxy).toMatchObject({ implementation: null, admin: null, beacon: null });
    const creator = await idx.get(`/tokens/${ownable()}/creator`);
    expect(c.creation).toMatchObject({ deployer: dev.deployment.deployer.toLowerCase(), via: 'transaction' });
    expect(c.creation.txHash).toBe(creator.body.data.creation.txHash);
    const rc = await rpc<any>('eth_getTransactionReceipt', [c.creation.txHash]);
    expect(rc.contractAddress.toLowerCase()).toBe(ownable());
    const auth = await idx.get(`/tokens/${ownable()}/authority-events`);
    expect(c.authorityEvents.rows.map((e: any) => e.txHash)).toEqual(
      auth.body.data.map((e: any) => e.txHash),
    );
    expect(c.authorityEvents.rows[0]).toMatchObject({
      kind: 'ownership_transferred',
      previousOwner: '0x0000000000000000000000000000000000000000',
    });
    // A launch token has none of them.
    const lt = await ask('GET', `/v1/contracts?address=${made.token}`);
    expect(lt.body.contract.privilegedSelectors.found).toEqual([]);
    expect(lt.body.contract.creation.via).toBe('launchpad');
  });

  it('/contracts of a proxy: the EIP-1967 implementation slot at the anchor, and the creating transaction of a non-token', async () => {
    const fwd = dev.deployment.contracts.valueForwarder.toLowerCase();
    const r = await ask('GET', `/v1/contracts?address=${fwd}`);
    expect(r.status, r.text).toBe(200);
    const c = r.body.contract;
    const word = await rpc<string>('eth_getStorageAt', [
      fwd,
      IMPL_SLOT,
      `0x${r.body.anchor.block.toString(16)}`,
    ]);
    expect(c.proxy.slots.implementation).toEqual({ slot: IMPL_SLOT, value: word });
    expect(c.proxy.implementation).toBe(ownable());
    expect(c.creation.deployer).toBe(dev.deployment.deployer.toLowerCase());
    const rc = await rpc<any>('eth_getTransactionReceipt', [c.creation.txHash]);
    expect(rc.contractAddress.toLowerCase()).toBe(fwd);
    expect(c.verifiedAbi).toEqual({ present: false, names: [] });
  });
});

describe('explorer and cross-chain', () => {
  it('/explorer resolves a tx hash, a block number, an address and a symbol, as the node has them', async () => {
    const hop = made.hops[C];
    const tx = await ask('GET', `/v1/explorer?q=${hop.txHash}`);
    expect(tx.status, tx.text).toBe(200);
    const rc = await rpc<any>('eth_getTransactionReceipt', [hop.txHash]);
    expect(tx.body.result).toMatchObject({
      kind: 'transaction',
      transaction: {
        hash: hop.txHash,
        block: Number(rc.blockNumber),
        from: B,
        to: C,
        value: hop.value.toString(),
        status: 'success',
        logs: 0,
      },
    });
    const blk = await ask('GET', `/v1/explorer?q=${hop.block}`);
    const node = await rpc<any>('eth_getBlockByNumber', [`0x${hop.block.toString(16)}`, false]);
    expect(blk.body.result.block).toMatchObject({
      number: hop.block,
      hash: node.hash,
      timestamp: Number(node.timestamp),
      transactions: node.transactions.length,
    });
    const byHash = await ask('GET', `/v1/explorer?q=${node.hash}`);
    expect(byHash.body.result).toMatchObject({ kind: 'block', block: { number: hop.block } });
    const addr = await ask('GET', `/v1/explorer?q=${made.token}`);
    expect(addr.body.result).toMatchObject({
      kind: 'address',
      address: { address: made.token, kind: 'contract', token: { symbol: 'SCAN' } },
    });
    const sym = await ask('GET', '/v1/explorer?q=SCAN');
    expect(sym.body.result.kind).toBe('tokens');
    expect(sym.body.result.tokens.matches[0]).toMatchObject({ address: made.token, matchClass: 1 });
    const none = await ask('GET', `/v1/explorer?q=0x${'ab'.repeat(32)}`);
    expect(none.status).toBe(404);
    const future = await ask('GET', `/v1/explorer?q=${tx.body.anchor.block + 1000}`);
    expect(future.body.code).toBe('NOT_FOUND');
  });

  it('/cross-chain on a one-chain index: kind, first seen, activity counts and code hash at the anchor', async () => {
    const r = await ask('GET', `/v1/cross-chain?address=${C}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.chains).toHaveLength(1);
    const [c] = r.body.chains;
    await expectNodeAnchor(c.anchor);
    expect(c).toMatchObject({
      chain: 'testnet',
      chainId: 31337,
      role: 'main',
      kind: 'EOA',
      codeHash: null,
      unavailable: null,
    });
    const txs = await idx.get(`/wallets/${C}/transactions?limit=1000`);
    const transfers = await idx.get(`/wallets/${C}/transfers?limit=1000`);
    expect(c.activity.transactions).toEqual({ count: txs.body.data.length, complete: true });
    expect(c.activity.transfers).toEqual({ count: transfers.body.data.length, complete: true });
    expect(c.firstSeen.txHash).toBe(made.hops[C].txHash);
    const t = await ask('GET', `/v1/cross-chain?address=${made.token}`);
    const code = await rpc<string>('eth_getCode', [
      made.token,
      `0x${t.body.chains[0].anchor.block.toString(16)}`,
    ]);
    expect(t.body.chains[0]).toMatchObject({ kind: 'contract', codeHash: keccak256(code as `0x${string}`) });
    expect(t.body.sameCodeHash).toEqual([]);
  });
});

describe('wallet lists and the analysis', () => {
  it('/kol: the trades of kol-labelled wallets, as the indexer has them', async () => {
    const r = await ask('GET', '/v1/kol');
    expect(r.status, r.text).toBe(200);
    expect(r.body.kol.wallets).toEqual([{ wallet: M1, labels: ['kol:alice'] }]);
    const trades = await idx.get(`/wallets/${M1}/trades?order=desc`);
    expect(trades.body.data.length).toBeGreaterThan(0);
    expect(r.body.kol.trades.map((t: any) => [t.wallet, t.txHash, t.side, t.amountToken])).toEqual(
      trades.body.data.map((t: any) => [M1, t.txHash, t.side, t.amountToken]),
    );
  });

  it('/wallet-finder: buyers in first-buy order, filtered by early rank, realised PnL and win rate (against the indexer)', async () => {
    const all = await ask('GET', `/v1/wallet-finder?token=${made.token}`);
    expect(all.status, all.text).toBe(200);
    const order = [M1, M2, M3, C].sort(
      (x, y) => made.buys[x].block - made.buys[y].block || made.buys[x].txIndex - made.buys[y].txIndex,
    );
    expect(all.body.finder.wallets.map((w: any) => w.wallet)).toEqual(order);
    expect(all.body.finder).toMatchObject({ candidates: 4, matched: 4, candidatesComplete: true });
    // Each first buy is the wallet's curve swap (an indexed swap, the origin its trader).
    for (const w of all.body.finder.wallets)
      expect(w.firstBuy).toMatchObject({
        wallet: w.wallet,
        protocol: 'launchpad',
        quote: NATIVE,
        txHash: made.buys[w.wallet].txHash,
        block: made.buys[w.wallet].block,
      });
    const early = await ask('GET', `/v1/wallet-finder?token=${made.token}&earlyBuyers=2`);
    expect(early.body.finder.wallets.map((w: any) => w.wallet)).toEqual(order.slice(0, 2));
    // M3 sold half: its realised PnL and win rate are the indexer's position figures.
    const pos = (await idx.get(`/wallets/${M3}/pnl/${made.token}`)).body.data;
    const [p] = Array.isArray(pos) ? pos : pos.positions;
    const realised = BigInt(p.realised.numerator) / BigInt(p.realised.denominator);
    const m3 = all.body.finder.wallets.find((w: any) => w.wallet === M3);
    expect(m3.positions).toEqual([
      expect.objectContaining({ quote: p.quote, sells: 1, buys: 1, quantity: p.quantity }),
    ]);
    expect(BigInt(m3.positions[0].realised.numerator) * BigInt(p.realised.denominator)).toBe(
      BigInt(p.realised.numerator) * BigInt(m3.positions[0].realised.denominator),
    );
    const profitable = BigInt(p.realised.numerator) > 0n;
    expect(m3.winRate).toMatchObject({ wins: profitable ? 1 : 0, sold: 1 });
    const winners = await ask('GET', `/v1/wallet-finder?token=${made.token}&minWinRateBps=5000`);
    expect(winners.body.finder.wallets.map((w: any) => w.wallet)).toEqual(profitable ? [M3] : []);
    const rich = await ask('GET', `/v1/wallet-finder?token=${made.token}&minRealised=${realised + 1n}`);
    expect(rich.body.finder.wallets).toEqual([]);
    const floor = await ask('GET', `/v1/wallet-finder?token=${made.token}&minRealised=${realised - 1n}`);
    expect(floor.body.finder.wallets.map((w: any) => w.wallet)).toEqual([M3]);
  });

  it('/wallet-finder from every indexed swap: a V4 buy (tokens leave the PoolManager, no venue label) counts, as the indexer’s swaps route has it', async () => {
    const pepe = tok('PEPE');
    const r = await ask('GET', `/v1/wallet-finder?token=${pepe}`);
    expect(r.status, r.text).toBe(200);
    const f = r.body.finder;
    expect(f.buys.quotes).toContain(NATIVE);
    expect(f.buys.complete).toBe(true);
    expect(f.wallets.map((w: any) => w.wallet)).toEqual([V]);
    const swaps = await idx.get(`/tokens/${pepe}/swaps?quote=${NATIVE}&order=asc`);
    const buy = swaps.body.data.find((x: any) => x.side === 'buy');
    expect(buy.executor.toLowerCase()).toBe(V);
    expect(f.wallets[0].firstBuy).toMatchObject({
      wallet: V,
      pool: made.pepePool,
      protocol: 'v4',
      quote: NATIVE,
      txHash: made.buys[V].txHash,
      amountToken: buy.amountToken,
      amountQuote: buy.amountQuote,
    });
    expect(buy.txHash).toBe(made.buys[V].txHash);
    // V sold half: one sold position, its realised PnL the indexer's.
    const pos = (await idx.get(`/wallets/${V}/pnl/${pepe}`)).body.data;
    const [p] = Array.isArray(pos) ? pos : pos.positions;
    expect(f.wallets[0].positions).toEqual([
      expect.objectContaining({ quote: NATIVE, buys: 1, sells: 1, quantity: p.quantity }),
    ]);
  });

  it('/alpha: every wallet that swapped against the quote in the window is a candidate (curve and V4 alike), ranked by realised PnL with every daily input', async () => {
    const realisedOf = async (w: string, t: string) => {
      const pos = (await idx.get(`/wallets/${w}/pnl/${t}`)).body.data;
      const [p] = Array.isArray(pos) ? pos : pos.positions;
      expect(p.quote).toBe(NATIVE);
      return { n: BigInt(p.realised.numerator), d: BigInt(p.realised.denominator) };
    };
    const want = { [M3]: await realisedOf(M3, made.token), [V]: await realisedOf(V, tok('PEPE')) };
    const r = await ask('GET', `/v1/alpha?days=2&quote=${NATIVE}`);
    expect(r.status, r.text).toBe(200);
    const a = r.body.alpha;
    // Traders against native in the window include the four curve buyers and V (V4).
    expect(a.candidates.count).toBeGreaterThanOrEqual(5);
    expect(a.candidates.complete).toBe(true);
    const rows = Object.fromEntries(a.wallets.map((w: any) => [w.wallet, w]));
    for (const [w, tokenOf] of [
      [M3, made.token],
      [V, tok('PEPE')],
    ] as const) {
      const x = rows[w];
      expect(x, w).toBeDefined();
      expect(BigInt(x.realised.numerator) * want[w].d).toBe(want[w].n * BigInt(x.realised.denominator));
      expect(x.inputs).toEqual([
        { token: tokenOf, days: [expect.objectContaining({ day: a.window.toDay })] },
      ]);
    }
    // Buyers that never sold realised nothing: not listed.
    for (const w of [M1, M2, C]) expect(rows[w]).toBeUndefined();
    // Ranked by realised desc (exact comparison).
    for (let i = 1; i < a.wallets.length; i++) {
      const [x, y] = [a.wallets[i - 1].realised, a.wallets[i].realised];
      expect(BigInt(x.numerator) * BigInt(y.denominator) >= BigInt(y.numerator) * BigInt(x.denominator)).toBe(
        true,
      );
      expect(a.wallets[i].rank).toBe(i + 1);
    }
    const ts = Number(
      (await rpc<any>('eth_getBlockByNumber', [`0x${r.body.anchor.block.toString(16)}`, false])).timestamp,
    );
    expect(a.window).toEqual({
      days: 2,
      fromDay: Math.floor(ts / 86400) - 1,
      toDay: Math.floor(ts / 86400),
      anchorTimestamp: ts,
    });
    expect(a.formula).toContain('daily realised PnL');
  });

  it('POST /analyze: shared funders, clusters, common tokens and coordinated buys with evidence (1 scan)', async () => {
    const r = await ask('POST', '/v1/analyze', {
      addresses: [M1, M2, M3, C.toUpperCase().replace('0X', '0x')],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.headers['x-scans-charged']).toBe('1');
    const a = r.body.analysis;
    expect(a.subjects).toEqual([M1, M2, M3, C]);
    const f = a.sharedFunders.find((x: any) => x.funder === F);
    expect(f.reachedBy.map((x: any) => [x.subject, x.hop])).toEqual([
      [M1, 1],
      [M2, 1],
      [M3, 1],
    ]);
    expect(f.reachedBy[0].path[0].txHash).toBe(made.hops[M1].txHash);
    // C's chain stops at the exchange, so C is not linked to the others.
    expect(a.clusters).toEqual([{ members: [M1, M2, M3].sort(), via: expect.arrayContaining([F]) }]);
    expect(a.commonTokens.map((t: any) => [t.token, t.holders.length])).toEqual([[made.token, 4]]);
    expect(a.coordinatedBuys).toEqual([
      {
        token: made.token,
        block: made.buys[M1].block,
        buys: expect.arrayContaining([
          expect.objectContaining({ wallet: M1, txHash: made.buys[M1].txHash }),
          expect.objectContaining({ wallet: M2, txHash: made.buys[M2].txHash }),
        ]),
      },
    ]);
    const byToken = await ask('POST', '/v1/analyze', { token: made.token });
    expect(byToken.body.analysis).toMatchObject({ subjectsFrom: 'token_first_buyers', token: made.token });
    expect([...byToken.body.analysis.subjects].sort()).toEqual([M1, M2, M3, C].sort());
    const one = await ask('POST', '/v1/analyze', { addresses: [M1, M1.toUpperCase().replace('0X', '0x')] });
    expect(one.body.code).toBe('INVALID_INPUT');
  });
});

describe('refusals', () => {
  it('/rh/ without an rh chain: CHAIN_NOT_CONFIGURED naming SCANNER_RH_CHAIN, nothing charged', async () => {
    const r = await ask('POST', '/v1/rh/scan', { address: C, depth: 'max' });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'CHAIN_NOT_CONFIGURED', missing: 'SCANNER_RH_CHAIN' });
    expect(r.body.error).toContain('DEVNET_CHAINS=2');
  });

  it('a standalone scanner (no index) refuses scan endpoints with CHAIN_NOT_CONFIGURED (missing: index)', async () => {
    const h = await startScanner({ smtp: null });
    try {
      const { accounts, ledger } = h.service.core;
      const id = accounts.createAccount({ email: 'alone@example.com' }).id;
      accounts.setPlan(id, { tier: 'scale', status: 'active', periodEnd: Date.now() + 86_400_000 });
      ledger.grant(id, 5, 'test', Date.now());
      const k = accounts.createKey(id, { name: 'alone' }, { ip: 'cli' }).secret;
      for (const [m, p, body] of [
        ['GET', `/v1/funding-chain?address=${C}`, undefined],
        ['POST', '/v1/scan', { address: C }],
      ] as const) {
        const r = await h.request(m, p, { key: k, body });
        expect(r.status, r.text).toBe(404);
        expect(r.body).toMatchObject({ code: 'CHAIN_NOT_CONFIGURED', missing: 'index' });
      }
      expect(ledger.balance(id)).toBe(5);
    } finally {
      await h.close();
    }
  });

  it('the OpenAPI document lists every scan endpoint with its credit rule', async () => {
    const doc = (await httpRequest(url, 'GET', '/v1/openapi.json')).body;
    expect(doc.paths['/v1/scan'].post['x-credits']).toBe('wallet scan: quick 1, deep 2, max 4; token scan 1');
    expect(doc.paths['/v1/contracts'].get['x-credits']).toBe('1 per contract scan');
    expect(doc.paths['/v1/analyze'].post['x-credits']).toBe('1 per analysis');
    for (const p of [
      '/v1/funding-chain',
      '/v1/holdings',
      '/v1/bundles',
      '/v1/detect',
      '/v1/identities',
      '/v1/explorer',
      '/v1/cross-chain',
      '/v1/wallet-finder',
      '/v1/alpha',
      '/v1/kol',
    ])
      expect(doc.paths[p].get['x-credits'], p).toBe('free');
    expect(doc.paths['/v1/rh/scan'].post.responses['404'].description).toContain('CHAIN_NOT_CONFIGURED');
  });
});
