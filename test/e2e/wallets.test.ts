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
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { jsonRpc } from '../harness/rpc.js';

let dev: TestDevnet;
let idx: IndexerProcess;
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

afterAll(async () => {
  await idx?.stop();
  await dev?.stop();
});

describe('positions and PnL of a scripted trader', () => {
  it('match a weighted-average-cost recomputation from the raw swap logs, to the base unit', async () => {
    const c = dev.deployment.contracts as any;
    const weth = dev.deployment.tokens.find((t) => t.kind === 'weth')!.address.toLowerCase();
    const link = dev.deployment.tokens.find((t) => t.key === 'LINK')!.address.toLowerCase();
    const trader = fresh(1);
    await send({ from: DEV0, to: trader, value: wei('50') });
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
    const created = rc.logs
      .map((l: any) => {
        try {
          return decodeEventLog({ abi: padAbi, data: l.data, topics: l.topics });
        } catch {
          return null;
        }
      })
      .find((e: any) => e?.eventName === 'LaunchCreated') as any;
    const token = (created.args.token as string).toLowerCase();
    const funder = fresh(20);
    await send({ from: DEV0, to: funder, value: wei('10') });
    await rpc('anvil_impersonateAccount', [funder]);
    const members = [fresh(21), fresh(22)];
    for (const m of members) {
      await send({ from: funder, to: m, value: wei('1') });
      await rpc('anvil_impersonateAccount', [m]);
      await send({
        from: m,
        to: pad,
        value: wei('0.1'),
        data: encodeFunctionData({ abi: padAbi, functionName: 'buy', args: [token as `0x${string}`, 0n] }),
        gas: '0x200000',
      });
    }
    const head = Number.parseInt(await rpc<string>('eth_blockNumber', []), 16);
    await idx.waitForHead(head);
    const cohorts = await idx.get(`/cohorts?token=${token}`);
    expect(cohorts.status, cohorts.text).toBe(200);
    const mine = cohorts.body.data.find((c: any) => c.funder === funder);
    expect(mine).toBeTruthy();
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
      const extra = fresh(23);
      await send({ from: funder, to: extra, value: wei('1') });
      await rpc('anvil_impersonateAccount', [extra]);
      await send({
        from: extra,
        to: pad,
        value: wei('0.1'),
        data: encodeFunctionData({ abi: padAbi, functionName: 'buy', args: [token as `0x${string}`, 0n] }),
        gas: '0x200000',
      });
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
