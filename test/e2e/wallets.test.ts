/**
 * Issue F end-to-end on the devnet (real Uniswap V2 router and pairs, the project's launchpad,
 * real anvil, traffic off so the script is the only actor):
 *  - a scripted trader (buys at several prices, a partial sell, a full exit) has positions and
 *    realised PnL equal to a weighted-average-cost recomputation from the raw Swap logs, to the
 *    base unit (exact rationals);
 *  - a multi-hop funding chain dev → A → B → C is recovered exactly;
 *  - two wallets funded by one funder that bought the same launch form a cohort, with evidence.
 */
import { decodeEventLog, encodeFunctionData, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchedToken } from '../harness/cohort.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { jsonRpc } from '../harness/rpc.js';

let dev: TestDevnet;
let idx: IndexerProcess;
/** Shared by the route-coverage test: what the earlier scenarios made on the devnet. */
const made = {
  trader: '',
  traderFunding: null as any,
  traderFirstTrade: null as any,
  realised: { n: 0n, d: 1n },
  link: '',
  weth: '',
  recipientOnly: '',
  token: '',
  members: [] as string[],
  cohortId: '',
};
const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

const rpc = <T = any>(method: string, params: unknown[] = []): Promise<T> =>
  jsonRpc<T>(dev.rpcUrl, method, params);
/** Sends a transaction and waits for its receipt; asserts success. */
async function send(tx: Record<string, string>): Promise<any> {
  const hash = await rpc<string>('eth_sendTransaction', [tx]);
  for (let i = 0; i < 200; i++) {
    const rc = await rpc<any>('eth_getTransactionReceipt', [hash]);
    if (rc) {
      expect(rc.status).toBe('0x1');
      return rc;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no receipt for ${hash}`);
}
const fresh = (i: number) => `0x${(0xabc000 + i).toString(16).padStart(40, '0')}`;
const wei = (eth: string) => `0x${(BigInt(Math.round(Number(eth) * 1e6)) * 10n ** 12n).toString(16)}`;

async function walk(path: string): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const r = await idx.get(`${path}${sep}limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status, r.text).toBe(200);
    rows.push(...r.body.data);
    cursor = r.body.page.nextCursor;
  } while (cursor);
  return rows;
}

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 500, traffic: false });
  idx = await startIndexer({ rpcUrl: dev.rpcUrl, env: { ...devnetIndexerEnv(dev), TRACES: 'off' } });
}, 240_000);

afterAll(stopAll(() => [idx, dev]));

describe('positions and PnL of a scripted trader', () => {
  it('match a weighted-average-cost recomputation from the raw swap logs, to the base unit', async () => {
    const c = dev.deployment.contracts as any;
    const weth = dev.deployment.tokens.find((t) => t.kind === 'weth')!.address.toLowerCase();
    const link = dev.deployment.tokens.find((t) => t.key === 'LINK')!.address.toLowerCase();
    const trader = fresh(1);
    made.traderFunding = await send({ from: DEV0, to: trader, value: wei('50') });
    await rpc('anvil_impersonateAccount', [trader]);
    const router = parseAbi([
      'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[])',
      'function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[])',
    ]);
    const erc20 = parseAbi([
      'function approve(address,uint256) returns (bool)',
      'function balanceOf(address) view returns (uint256)',
    ]);
    const deadline = 2n ** 40n;
    const receipts: any[] = [];
    for (const eth of ['1', '2.5', '0.7']) {
      receipts.push(
        await send({
          from: trader,
          to: c.uniswapV2Router02,
          value: wei(eth),
          data: encodeFunctionData({
            abi: router,
            functionName: 'swapExactETHForTokens',
            args: [0n, [weth as `0x${string}`, link as `0x${string}`], trader as `0x${string}`, deadline],
          }),
          gas: '0x100000',
        }),
      );
    }
    await send({
      from: trader,
      to: link,
      data: encodeFunctionData({
        abi: erc20,
        functionName: 'approve',
        args: [c.uniswapV2Router02, 2n ** 255n],
      }),
    });
    const bal = BigInt(
      await rpc<string>('eth_call', [
        {
          to: link,
          data: encodeFunctionData({
            abi: erc20,
            functionName: 'balanceOf',
            args: [trader as `0x${string}`],
          }),
        },
        'latest',
      ]),
    );
    for (const amount of [bal / 3n, bal - bal / 3n]) {
      receipts.push(
        await send({
          from: trader,
          to: c.uniswapV2Router02,
          data: encodeFunctionData({
            abi: router,
            functionName: 'swapExactTokensForETH',
            args: [
              amount,
              0n,
              [link as `0x${string}`, weth as `0x${string}`],
              trader as `0x${string}`,
              deadline,
            ],
          }),
          gas: '0x100000',
        }),
      );
    }
    // Independent recomputation from the raw V2 Swap logs of the trader's transactions.
    const pairAbi = parseAbi([
      'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
      'function token0() view returns (address)',
    ]);
    let qty = 0n;
    let costN = 0n;
    let costD = 1n;
    let realN = 0n;
    let realD = 1n;
    const addR = (an: bigint, ad: bigint, bn: bigint, bd: bigint): [bigint, bigint] => [
      an * bd + bn * ad,
      ad * bd,
    ];
    for (const rc of receipts) {
      for (const l of rc.logs) {
        let ev: any;
        try {
          ev = decodeEventLog({ abi: pairAbi, data: l.data, topics: l.topics });
        } catch {
          continue;
        }
        const t0 = (await rpc<string>('eth_call', [{ to: l.address, data: '0x0dfe1681' }, 'latest'])).slice(
          -40,
        );
        const linkIs0 = `0x${t0}` === link;
        const linkIn = linkIs0 ? ev.args.amount0In : ev.args.amount1In;
        const linkOut = linkIs0 ? ev.args.amount0Out : ev.args.amount1Out;
        const wethIn = linkIs0 ? ev.args.amount1In : ev.args.amount0In;
        const wethOut = linkIs0 ? ev.args.amount1Out : ev.args.amount0Out;
        if (linkOut > 0n) {
          qty += linkOut;
          [costN, costD] = addR(costN, costD, wethIn, 1n);
        } else {
          // Cost out = cost × sold / qty; realised += proceeds − cost out.
          const outN = costN * linkIn;
          const outD = costD * qty;
          [realN, realD] = addR(realN, realD, wethOut * outD - outN, outD);
          [costN, costD] = addR(costN, costD, -outN, outD);
          qty -= linkIn;
        }
      }
    }
    expect(qty).toBe(0n);
    Object.assign(made, {
      trader,
      traderFirstTrade: receipts[0],
      realised: { n: realN, d: realD },
      link,
      weth,
    });
    const head = await rpc<string>('eth_blockNumber', []);
    await idx.waitForHead(Number.parseInt(head, 16));
    const positions = await walk(`/wallets/${trader}/positions`);
    const p = positions.find((x) => x.token === link && x.quote === weth);
    expect(p, JSON.stringify(positions)).toBeTruthy();
    expect(p.quantity).toBe('0');
    expect(p.buys).toBe(3);
    expect(p.sells).toBe(2);
    // Same rational (cross-multiplied), so equal to the base unit and beyond.
    expect(BigInt(p.realised.numerator) * realD).toBe(realN * BigInt(p.realised.denominator));
    expect(BigInt(p.cost.numerator) * costD).toBe(costN * BigInt(p.cost.denominator));
    // Trades: the wallet is the transaction origin, never the router recipient.
    const trades = await walk(`/wallets/${trader}/trades`);
    expect(trades).toHaveLength(5);
    for (const t of trades) expect(t.origin).toBe(trader);
    expect(trades[0].quote.decimalsProvenance).toBe('token_metadata_fallback');
    const pnl = await idx.get(`/wallets/${trader}/pnl`);
    expect(pnl.body.data.complete).toBe(true);
    const r = pnl.body.data.realisedByQuote[weth];
    expect(BigInt(r.priceNumerator) * realD).toBe(realN * BigInt(r.priceDenominator));
    // Filters never change paging; sort is refused.
    expect((await idx.get(`/wallets/${trader}/positions?sort=qty`)).status).toBe(400);
    const hidden = await idx.get(`/wallets/${trader}/positions?sellout=true`);
    expect(hidden.body.filteredOut).toBeGreaterThanOrEqual(1);
  });
});

describe('funding graph and cohorts', () => {
  it('a multi-hop funding chain dev → A → B → C is recovered exactly', async () => {
    const [a, b, cc] = [fresh(10), fresh(11), fresh(12)];
    await send({ from: DEV0, to: a, value: wei('5') });
    await rpc('anvil_impersonateAccount', [a]);
    await send({ from: a, to: b, value: wei('3') });
    await rpc('anvil_impersonateAccount', [b]);
    await send({ from: b, to: cc, value: wei('1') });
    const head = Number.parseInt(await rpc<string>('eth_blockNumber', []), 16);
    await idx.waitForHead(head);
    const chain: Array<[string, string, string]> = [
      [a, DEV0, '5000000000000000000'],
      [b, a, '3000000000000000000'],
      [cc, b, '1000000000000000000'],
    ];
    for (const [w, funder, value] of chain) {
      const f = await walk(`/wallets/${w}/funded-by`);
      const native = f.find((x) => x.assetKind === 'native');
      expect(native.funder).toBe(funder);
      expect(native.value).toBe(value);
      expect(native.asset).toBeNull();
    }
    made.recipientOnly = cc;
    const out = await walk(`/wallets/${a}/funder-of`);
    expect(out.map((e) => e.wallet)).toEqual([b]);
    const transfers = await walk(`/wallets/${b}/transfers`);
    expect(transfers.map((t) => [t.direction, t.assetKind])).toEqual([
      ['in', 'native'],
      ['out', 'native'],
    ]);
  });

  it('wallets funded by one funder that bought the same launch form a cohort with its evidence', async () => {
    const padAbi = parseAbi([
      'function createLaunch(string name, string symbol, string metadataUri, string imageUri) returns (address)',
      'function buy(address token, uint256 minTokensOut) payable returns (uint256)',
      'event LaunchCreated(address indexed token, address indexed creator, uint256 indexed launchSequence, string name, string symbol, string metadataUri, string imageUri)',
    ]);
    const pad = dev.deployment.launchpad.address;
    const rc = await send({
      from: DEV0,
      to: pad,
      data: encodeFunctionData({
        abi: padAbi,
        functionName: 'createLaunch',
        args: ['Cohort Test', 'COH', 'ipfs://ipfs/bafycohort', 'https://gw.example/ipfs/bafyimg'],
      }),
      gas: '0x800000',
    });
    const token = launchedToken(rc.logs);
    const funder = fresh(20);
    await send({ from: DEV0, to: funder, value: wei('10') });
    await rpc('anvil_impersonateAccount', [funder]);
    /** `w` gets 1 ETH from the funder, then buys the token on the launchpad for 0.1 ETH. */
    const fundAndBuy = async (w: string) => {
      await send({ from: funder, to: w, value: wei('1') });
      await rpc('anvil_impersonateAccount', [w]);
      await send({
        from: w,
        to: pad,
        value: wei('0.1'),
        data: encodeFunctionData({ abi: padAbi, functionName: 'buy', args: [token as `0x${string}`, 0n] }),
        gas: '0x200000',
      });
    };
    const members = [fresh(21), fresh(22)];
    for (const m of members) await fundAndBuy(m);
    const head = Number.parseInt(await rpc<string>('eth_blockNumber', []), 16);
    await idx.waitForHead(head);
    const cohorts = await idx.get(`/cohorts?token=${token}`);
    expect(cohorts.status, cohorts.text).toBe(200);
    const mine = cohorts.body.data.find((c: any) => c.funder === funder);
    expect(mine).toBeTruthy();
    Object.assign(made, { token, members, cohortId: mine.id });
    expect(mine.size).toBe(2);
    expect(mine.id).toMatch(/^[0-9a-f]{16}$/);
    const detail = await idx.get(`/cohorts/${mine.id}`);
    expect(detail.body.data.kind).toBe('Funding');
    expect(detail.body.data.freshness.stale).toBe(false);
    const ms = await idx.get(`/cohorts/${mine.id}/members`);
    expect(ms.body.data.map((m: any) => m.wallet).sort()).toEqual([...members].sort());
    for (const m of ms.body.data) {
      expect(m.admittedBy.funder).toBe(funder);
      expect(m.admittedBy.signals).toEqual(['shared_first_native_funder', 'bought_token']);
      expect(m.admittedBy.edge.from).toBe(funder);
    }
    const edges = await idx.get(`/cohorts/${mine.id}/edges`);
    expect(edges.body.data.filter((e: any) => e.kind === 'funding')).toHaveLength(2);
    expect(edges.body.data.filter((e: any) => e.kind === 'buy')).toHaveLength(2);
    const wc = await idx.get(`/wallets/${members[0]}/cohorts`);
    expect(wc.body.data.cohorts.map((c: any) => c.id)).toContain(mine.id);
    // A cohort-by-token cursor is bound to the funding generation.
    const p1 = await idx.get(`/cohorts?token=${token}&limit=1`);
    if (p1.body.page.nextCursor) {
      await fundAndBuy(fresh(23));
      await idx.waitForHead(Number.parseInt(await rpc<string>('eth_blockNumber', []), 16));
      const stale = await idx.get(`/cohorts?token=${token}&limit=1&cursor=${p1.body.page.nextCursor}`);
      expect(stale.status).toBe(409);
    }
    const type = await idx.get(`/address/${pad}/type`);
    expect(type.body.data.type).toBe('contract');
    const label = await idx.get(`/address/${pad}/label`);
    expect(label.body.data.labels.map((l: any) => l.label)).toContain('launchpad:devnet-pad');
  });
});

describe('the other wallet and address routes, against the node', () => {
  const hex = (n: number) => `0x${n.toString(16)}`;
  const balanceOf = async (token: string, wallet: string, block: number) =>
    BigInt(
      await rpc<string>('eth_call', [
        {
          to: token,
          data: encodeFunctionData({
            abi: parseAbi(['function balanceOf(address) view returns (uint256)']),
            functionName: 'balanceOf',
            args: [wallet as `0x${string}`],
          }),
        },
        hex(block),
      ]),
    );

  it('first seen, transactions, daily PnL and internal coverage of the scripted trader', async () => {
    const { trader, traderFunding: f } = made;
    expect(trader).not.toBe('');
    const fs = await idx.get(`/wallets/${trader}/first-seen`);
    expect(fs.status, fs.text).toBe(200);
    expect(fs.body.data).toMatchObject({
      wallet: trader,
      block: Number(f.blockNumber),
      txIndex: Number(f.transactionIndex),
      logIndex: null,
      txHash: f.transactionHash,
      evidence: 'incoming_native_transfer',
    });
    // Funded once (recipient), then 3 buys, an approval and 2 sells as origin; envelopes as the node sent them.
    const txs = await walk(`/wallets/${trader}/transactions`);
    expect(txs.map((t) => t.role)).toEqual(['recipient', ...Array(6).fill('origin')]);
    expect(txs[0].transaction.hash).toBe(f.transactionHash);
    for (const t of txs)
      expect(t.transaction).toEqual(await rpc('eth_getTransactionByHash', [t.transaction.hash]));
    // Daily realised PnL sums to the position's realised PnL (same exact rational).
    const days = await walk(`/wallets/${trader}/pnl/daily?token=${made.link}&quote=${made.weth}`);
    expect(days.length).toBeGreaterThan(0);
    let n = 0n;
    let d = 1n;
    for (const r of days) {
      expect(r.dayStartUnix).toBe(r.day * 86400);
      [n, d] = [
        n * BigInt(r.realised.denominator) + BigInt(r.realised.numerator) * d,
        d * BigInt(r.realised.denominator),
      ];
    }
    expect(n * made.realised.d).toBe(made.realised.n * d);
    expect(
      (
        await idx.get(
          `/wallets/${trader}/pnl/daily?token=${made.link}&quote=${made.weth}&from_day=5&to_day=4`,
        )
      ).status,
    ).toBe(400);
    // TRACES=off: internal transfers are not available, never an empty list.
    const internal = await idx.get(`/wallets/${trader}/internal`);
    expect(internal.status, internal.text).toBe(200);
    expect(internal.body).toMatchObject({ coverage: 'not_available', reason: 'traces_disabled', data: null });
  });

  it('assets, overview and portfolio of a cohort member equal the node balances at the anchor', async () => {
    const [m] = made.members;
    const { token, cohortId } = made;
    expect(m).toBeTruthy();
    const a = await idx.get(`/wallets/${m}/assets?limit=100`);
    expect(a.status, a.text).toBe(200);
    const at = a.body.anchor.block;
    const held = a.body.data.find((r: any) => r.token === token);
    expect(held, JSON.stringify(a.body.data)).toBeTruthy();
    expect(BigInt(held.balance)).toBe(await balanceOf(token, m, at));
    expect(held.balance).not.toBe('0');
    expect(held.balanceUsd).toEqual({ value: null, reason: 'no_usd_route' });
    for (const r of a.body.data) expect(BigInt(r.balance)).toBe(await balanceOf(r.token, m, at));
    const ranked = await idx.get(`/wallets/${m}/assets?sort=balance`);
    const balances = ranked.body.data.map((r: any) => BigInt(r.balance));
    expect(balances).toEqual([...balances].sort((x, y) => (y > x ? 1 : y < x ? -1 : 0)));
    expect((await idx.get(`/wallets/${m}/assets?sort=balance&order=asc`)).status).toBe(400);

    const o = (await idx.get(`/wallets/${m}/overview`)).body.data;
    expect(o.firstSeen.evidence).toBe('incoming_native_transfer');
    expect(o.topHoldings.map((h: any) => h.token)).toContain(token);
    expect(o.cohorts.map((c: any) => c.id)).toContain(cohortId);
    expect(o.fundingGeneration).toBeGreaterThanOrEqual(2);

    const all = (await idx.get(`/wallets/${m}/portfolio`)).body.data;
    expect(all.predicate).toBe('all');
    expect(all.coverage.unmarked).toContainEqual({ token, reason: 'no_usd_route' });
    expect(all.basisSplit.holdings).toContainEqual({ token, balance: held.balance });
    const verified = (await idx.get(`/wallets/${m}/portfolio?predicate=verified_contracts`)).body.data;
    expect(verified.coverage.excludedByPredicate).toContainEqual({
      token,
      reason: 'no_verified_contract_registry',
    });
    expect(verified.netWorthUsd).toEqual({
      priceNumerator: '0',
      priceDenominator: '1',
      approx: { decimal: '0', approximate: true, significantDigits: 12 },
    });
    expect((await idx.get(`/wallets/${m}/portfolio?predicate=bogus`)).status).toBe(400);
  });

  it('address kinds: contract, EOA by origin, EOA by code at the anchor, unobserved', async () => {
    const pad = dev.deployment.launchpad.address.toLowerCase();
    const s = await idx.get(`/addresses/${pad}`);
    expect(s.status, s.text).toBe(200);
    expect(s.body.data.kind).toBe('contract');
    expect(s.body.data.labels.map((l: any) => l.label)).toContain('launchpad:devnet-pad');
    const t = (await idx.get(`/addresses/${made.trader}`)).body.data;
    const firstOrigin = Number(made.traderFirstTrade.blockNumber);
    expect(t).toMatchObject({
      kind: 'EOA',
      kindEvidence: `originated_transaction_in_block_${firstOrigin}`,
      observations: { origin: firstOrigin, created: null, emitted: null },
    });
    expect(t.firstSeen.block).toBe(Number(made.traderFunding.blockNumber));
    // Seen only as a recipient: typed by eth_getCode at the anchor.
    expect(await rpc('eth_getCode', [made.recipientOnly, 'latest'])).toBe('0x');
    const r = (await idx.get(`/address/${made.recipientOnly}/type`)).body.data;
    expect(r.type).toBe('EOA');
    expect(r.evidence).toContain('no_code_at_anchor');
    const u = (await idx.get(`/address/${fresh(999)}/type`)).body.data;
    expect(u).toEqual({ address: fresh(999), type: 'unobserved', evidence: 'never_seen_in_the_index' });
  });
});
