import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, DEV_ACCOUNTS, startAnvil } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { httpRequest, scannerCli } from '../harness/scanner.js';

const CLI = new URL('../../packages/scanner/dist/cli.js', import.meta.url).pathname;
const [DEV0] = DEV_ACCOUNTS;
/** Init code returning a 10-byte runtime (`return 42`): deployed by DEV0 at nonce 0 on both chains. */
const INIT = '0x600a600c600039600a6000f3602a60005260206000f3';
const hex = (n: number) => `0x${n.toString(16)}`;

let alpha: Anvil;
let beta: Anvil;
let idx: IndexerProcess;
let dir: string;
let url = '';
let key = '';
let contract = '';
/** Per chain: the deployment tx and a funding transfer to a fresh wallet. */
const made: Record<string, { deployTx: string; fundTx: string; wallet: string }> = {};

const cli = scannerCli(CLI, () => join(idx.dataDir, 'scanner'));
const ask = (method: 'GET' | 'POST', path: string, body?: unknown) =>
  httpRequest(url, method, path, { key, body });

beforeAll(async () => {
  alpha = await startAnvil();
  beta = await startAnvil({ args: ['--chain-id', '31999'] });
  for (const [name, node, n] of [
    ['alpha', alpha, 0x1a],
    ['beta', beta, 0x1b],
  ] as const) {
    const deployTx = await node.rpc<string>('eth_sendTransaction', [
      { from: DEV0, data: INIT, gas: '0x100000' },
    ]);
    await node.mine();
    const wallet = `0x${n.toString(16).padStart(40, '0')}`;
    const fundTx = await node.rpc<string>('eth_sendTransaction', [
      { from: DEV0, to: wallet, value: hex(10 ** 15) },
    ]);
    await node.mine();
    await node.sendTransfers(3);
    await node.mine(3);
    made[name] = { deployTx, fundTx, wallet };
    contract = (await node.rpc<any>('eth_getTransactionReceipt', [deployTx])).contractAddress.toLowerCase();
  }
  dir = mkdtempSync(join(tmpdir(), 'scanner-rh-'));
  const file = join(dir, 'chains.json');
  writeFileSync(
    file,
    JSON.stringify([
      { name: 'alpha', rpcUrl: alpha.rpcUrl, traces: false, pollMs: 50 },
      { name: 'beta', rpcUrl: beta.rpcUrl, traces: false, pollMs: 50 },
    ]),
  );
  idx = await startIndexer({
    chainsFile: file,
    chain: 'alpha',
    env: { SCANNER: 'on', SCANNER_PORT: '0', SMTP_URL: '', SCANNER_RH_CHAIN: 'beta' },
  });
  await idx.waitForHead(await alpha.head(), 120_000, 'alpha');
  await idx.waitForHead(await beta.head(), 120_000, 'beta');
  url = `http://127.0.0.1:${/scanner API listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(idx.logs())?.[1]}`;
  const acc = (await cli('create-account', '--email', 'rh@example.com')).account.id;
  await cli('set-plan', '--account', acc, '--plan', 'scale');
  await cli('grant-credits', '--account', acc, '--scans', '10');
  key = (await cli('create-key', '--account', acc, '--name', 'rh')).secret;
}, 300_000);

afterAll(async () => {
  await idx?.stop();
  await alpha?.stop();
  await beta?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the /rh/ family on the chain configured as rh', () => {
  it('health names the roles', async () => {
    const h = await httpRequest(url, 'GET', '/v1/health');
    expect(h.body.chains.map((c: any) => [c.name, c.chainId, c.role])).toEqual([
      ['alpha', 31337, 'main'],
      ['beta', 31999, 'rh'],
    ]);
  });

  it('/rh/explorer and /explorer answer from their own chain', async () => {
    for (const [path, chain, node] of [
      ['/v1/rh/explorer', 'beta', beta],
      ['/v1/explorer', 'alpha', alpha],
    ] as const) {
      const r = await ask('GET', `${path}?q=2`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.anchor.chain).toBe(chain);
      const onNode = await node.rpc<any>('eth_getBlockByNumber', ['0x2', false]);
      expect(r.body.result.block.hash).toBe(onNode.hash);
      const anchorOnNode = await node.rpc<any>('eth_getBlockByNumber', [hex(r.body.anchor.block), false]);
      expect(r.body.anchor.hash).toBe(anchorOnNode.hash);
      // The other chain's transaction is not found here.
      const other = chain === 'beta' ? made.alpha.fundTx : made.beta.fundTx;
      expect((await ask('GET', `${path}?q=${other}`)).status).toBe(404);
    }
  });

  it('/rh/scan scans a wallet on the rh chain, charged like /scan', async () => {
    const { wallet, fundTx } = made.beta;
    const r = await ask('POST', '/v1/rh/scan', { address: wallet, depth: 'quick' });
    expect(r.status, r.text).toBe(200);
    expect(r.headers['x-scans-charged']).toBe('1');
    expect(r.body.anchor.chain).toBe('beta');
    expect(r.body.scan.fundingChain.hops).toEqual([
      expect.objectContaining({ wallet, funder: DEV0, txHash: fundTx, amount: String(10 ** 15) }),
    ]);
    // The main chain's wallet of the same script is another address, funded by another tx.
    const m = await ask('POST', '/v1/scan', { address: made.alpha.wallet, depth: 'quick' });
    expect(m.body.anchor.chain).toBe('alpha');
    expect(m.body.scan.fundingChain.hops[0].txHash).toBe(made.alpha.fundTx);
  });

  it('/rh/contracts reads code and creation on the rh chain', async () => {
    const r = await ask('GET', `/v1/rh/contracts?address=${contract}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.anchor.chain).toBe('beta');
    const code = await beta.rpc<string>('eth_getCode', [contract, hex(r.body.anchor.block)]);
    expect(r.body.contract).toMatchObject({
      isContract: true,
      codeHash: keccak256(code as `0x${string}`),
      creation: { deployer: DEV0, txHash: made.beta.deployTx, via: 'transaction' },
    });
  });
});

describe('/cross-chain over both chains', () => {
  it('a contract at the same address on both chains shares one code hash; an EOA is an EOA on both', async () => {
    const r = await ask('GET', `/v1/cross-chain?address=${contract}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.chains.map((c: any) => [c.chain, c.role, c.kind, c.anchor.chain])).toEqual([
      ['alpha', 'main', 'contract', 'alpha'],
      ['beta', 'rh', 'contract', 'beta'],
    ]);
    const code = await alpha.rpc<string>('eth_getCode', [contract, 'latest']);
    expect(r.body.sameCodeHash).toEqual([
      { codeHash: keccak256(code as `0x${string}`), chains: ['alpha', 'beta'] },
    ]);
    const eoa = await ask('GET', `/v1/cross-chain?address=${DEV0}`);
    for (const c of eoa.body.chains) {
      expect(c).toMatchObject({ kind: 'EOA', codeHash: null });
      expect(c.activity.transactions.count).toBeGreaterThanOrEqual(3);
    }
    expect(eoa.body.sameCodeHash).toEqual([]);
  });
});

describe('a node that stops answering', () => {
  it('a scan that needs the node answers 503 INDEX_UNAVAILABLE (reason node_unavailable), charged nothing; /cross-chain lists that chain as unavailable', async () => {
    const before = (await ask('GET', '/v1/usage?days=1')).body.remainingScans;
    await beta.stop();
    // (Another address than before: an earlier answer would be served from the cache.)
    const r = await ask('GET', `/v1/rh/contracts?address=${made.beta.wallet}`);
    expect(r.status, r.text).toBe(503);
    expect(r.body).toMatchObject({ code: 'INDEX_UNAVAILABLE', reason: 'node_unavailable' });
    expect(r.headers['x-scans-charged']).toBeUndefined();
    expect((await ask('GET', '/v1/usage?days=1')).body.remainingScans).toBe(before);
    // Index-only scans of the rh chain still answer from its store.
    const ex = await ask('GET', '/v1/rh/explorer?q=2');
    expect(ex.status, ex.text).toBe(200);
    const cc = await ask('GET', `/v1/cross-chain?address=${contract}`);
    expect(cc.status, cc.text).toBe(200);
    const [a, b] = cc.body.chains;
    expect(a).toMatchObject({ chain: 'alpha', kind: 'contract', unavailable: null });
    expect(b).toMatchObject({ chain: 'beta', anchor: null, unavailable: { code: 'INDEX_UNAVAILABLE' } });
    expect(cc.body.sameCodeHash).toEqual([]);
  });
});
