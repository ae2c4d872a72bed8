/**
 * The scanner's scan endpoints end to end, on a real embedded-style devnet (anvil, the project's
 * launchpad) indexed by the real indexer (`node dist/src/main.js`) with the scanner in-process
 * (SCANNER=on): a scripted funding chain ending at a wallet labelled `exchange`, and a launch
 * whose buyers include a bundle (two wallets funded by one funder buying in one block). The node
 * is frozen after the script (no interval mining), so every answer is read at the same anchor as
 * the indexer routes and the node reads it is checked against: anchor hashes against the node,
 * balances and supply against eth_call at the anchor block, funding and first-seen against the
 * indexer's own routes, credits against the ledger headers. Every body is checked against the
 * endpoint's published response schema.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { encodeFunctionData, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/scanner/endpoints/index.js';
import { sendAndWait } from '../harness/cohort.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { jsonRpc } from '../harness/rpc.js';
import { type Answer, httpRequest, startScanner } from '../harness/scanner.js';

const CLI = new URL('../../dist/src/scanner/cli.js', import.meta.url).pathname;
const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const PAD_ABI = parseAbi([
  'function createLaunch(string name, string symbol, string metadataUri, string imageUri) returns (address)',
  'function buy(address token, uint256 minTokensOut) payable returns (uint256)',
]);
const ERC20 = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
]);

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
const [M1, M2, M3] = [fresh(11), fresh(12), fresh(13)];
/** What the script made. */
const made = {
  hops: {} as Record<string, { txHash: string; block: number; value: bigint }>,
  token: '',
  launchBlock: 0,
  buys: {} as Record<string, { block: number; txIndex: number; txHash: string }>,
};

const rpc = <T = any>(method: string, params: unknown[] = []) => jsonRpc<T>(dev.rpcUrl, method, params);
const call = async (to: string, data: string, block: number) =>
  BigInt(await rpc<string>('eth_call', [{ to, data }, `0x${block.toString(16)}`]));
const balanceOf = (token: string, w: string, block: number) =>
  call(token, encodeFunctionData({ abi: ERC20, functionName: 'balanceOf', args: [w as `0x${string}`] }), block);
const totalSupply = (token: string, block: number) =>
  call(token, encodeFunctionData({ abi: ERC20, functionName: 'totalSupply' }), block);

/** Runs the operator CLI on the in-process scanner's store (through its admin socket). */
function cli(...args: string[]): Promise<any> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, SCANNER_DATA_DIR: join(idx.dataDir, 'scanner'), SMTP_URL: '' } },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
    ),
  );
}

const published = new Map(ENDPOINTS.map((e) => [`${e.spec.method} ${e.spec.path}`, e.publishedResponse]));
/** A scanner request; a 200 body must match the endpoint's published response schema. */
async function ask(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  const a = await httpRequest(url, method, path, { key, body });
  if (a.status === 200) {
    const schema = published.get(`${method} ${path.split('?')[0]}`)!;
    const errs = [...Value.Errors(schema, a.body)].slice(0, 3);
    expect(errs.map((e) => `${e.path}: ${e.message}`), `${path} schema`).toEqual([]);
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
  return { txHash: rc.transactionHash as string, block: Number(rc.blockNumber), txIndex: Number(rc.transactionIndex) };
}
const buyData = (token: string) =>
  encodeFunctionData({ abi: PAD_ABI, functionName: 'buy', args: [token as `0x${string}`, 0n] });

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 500, traffic: false });
  const labels = join(dev.stateDir, 'labels.json');
  writeFileSync(labels, JSON.stringify({ [EX]: ['exchange'] }));
  idx = await startIndexer({
    rpcUrl: dev.rpcUrl,
    env: { ...devnetIndexerEnv(dev), TRACES: 'off', SCANNER: 'on', SCANNER_PORT: '0', SMTP_URL: '', LABELS_FILE: labels },
  });
  url = `http://127.0.0.1:${/scanner API listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(idx.logs())?.[1]}`;
  acc = (await cli('create-account', '--email', 'scans@example.com')).account.id;
  await cli('set-plan', '--account', acc, '--plan', 'enterprise');
  await cli('grant-credits', '--account', acc, '--scans', '20');
  key = (await cli('create-key', '--account', acc, '--name', 'scans')).secret;

  // One transaction per block from here on; the bundle's two buys share one mined block.
  await rpc('evm_setIntervalMining', [0]);
  await rpc('evm_setAutomine', [true]);
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
  const head = Number(await rpc<string>('eth_blockNumber'));
  await idx.waitForHead(head, 120_000);
}, 400_000);

afterAll(async () => {
  await idx?.stop();
  await dev?.stop();
});

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
      expect(h).toMatchObject({ assetKind: 'native', asset: null, amount: want.value.toString(), txHash: want.txHash, block: want.block });
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
