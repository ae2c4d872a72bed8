import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DevnetDeployment } from '@chain-indexer/devnet';
import { rpc } from '@chain-indexer/devnet/anvil';
import { compileContracts } from '@chain-indexer/devnet/contracts';
import { keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendAndWait } from '../harness/cohort.js';
import { freePortRun } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { httpRequest, scannerCli } from '../harness/scanner.js';

const CLI = new URL('../../packages/scanner/dist/cli.js', import.meta.url).pathname;
const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const hex = (n: number) => `0x${n.toString(16)}`;

let solcCache = '';
const dirs: string[] = [];
const procs: IndexerProcess[] = [];

/** A DATA_DIR whose devnet state dirs (chain 1 and chain 2) hold the compiled contracts already. */
function newDataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'scanner-rh-devnet-'));
  dirs.push(d);
  for (const s of [join(d, 'devnet'), join(d, 'chains', 'devnet2', 'devnet')]) {
    mkdirSync(s, { recursive: true });
    for (const f of readdirSync(solcCache).filter((x) => x.startsWith('solc-cache-')))
      copyFileSync(join(solcCache, f), join(s, f));
  }
  return d;
}

/** The embedded default: no RPC_URL, no CHAINS_FILE, no SCANNER_* chain variable. */
async function startEmbedded(chains: 1 | 2) {
  const port = await freePortRun(chains);
  const idx = await startIndexer({
    chain: 'devnet',
    dataDir: newDataDir(),
    env: {
      DEVNET_CHAINS: String(chains),
      DEVNET_PORT: String(port),
      DEVNET_BLOCK_TIME_MS: '500',
      DEVNET_TX_PER_SECOND: '0',
      TRACES: 'off',
      SCANNER: 'on',
      SCANNER_PORT: '0',
      SMTP_URL: '',
    },
  });
  procs.push(idx);
  const url = `http://127.0.0.1:${/scanner API listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(idx.logs())?.[1]}`;
  const cli = scannerCli(CLI, join(idx.dataDir, 'scanner'));
  const acc = (await cli('create-account', '--email', `rh${chains}@example.com`)).account.id;
  await cli('set-plan', '--account', acc, '--plan', 'scale');
  await cli('grant-credits', '--account', acc, '--scans', '10');
  const key = (await cli('create-key', '--account', acc, '--name', 'rh')).secret as string;
  const ask = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    httpRequest(url, method, path, { key, body });
  return { idx, port, url, ask };
}

const deploymentOf = (stateDir: string): DevnetDeployment =>
  JSON.parse(readFileSync(join(stateDir, 'deployment.json'), 'utf8'));

beforeAll(() => {
  solcCache = mkdtempSync(join(tmpdir(), 'scanner-rh-solc-'));
  dirs.push(solcCache);
  compileContracts(solcCache, () => undefined);
});

afterAll(async () => {
  for (const p of procs) await p.stop().catch(() => undefined);
  for (const d of dirs) {
    // Any anvil a failed start left behind (pid recorded by the devnet in its state dir).
    for (const s of [join(d, 'devnet'), join(d, 'chains', 'devnet2', 'devnet')])
      try {
        const pid = (JSON.parse(readFileSync(join(s, 'anvil.json'), 'utf8')) as { pid: number }).pid;
        process.kill(-pid, 'SIGKILL');
      } catch {}
    rmSync(d, { recursive: true, force: true });
  }
});

describe('embedded default with DEVNET_CHAINS=2: the second devnet is the rh chain', () => {
  let h: Awaited<ReturnType<typeof startEmbedded>>;
  let rh = '';
  let main = '';
  const W = '0x00000000000000000000000000000000005ca2d2';
  let fundTx = '';

  beforeAll(async () => {
    h = await startEmbedded(2);
    main = `http://127.0.0.1:${h.port}`;
    rh = `http://127.0.0.1:${h.port + 1}`;
    // A funding transfer on the rh chain only.
    const rc = await sendAndWait(rh, { from: DEV0, to: W, value: hex(10 ** 15), gas: '0x5208' });
    fundTx = rc.transactionHash;
    const head2 = Number(await rpc<string>(rh, 'eth_blockNumber', []));
    const head1 = Number(await rpc<string>(main, 'eth_blockNumber', []));
    await h.idx.waitForHead(head2, 180_000, 'devnet2');
    await h.idx.waitForHead(head1, 180_000, 'devnet');
  }, 400_000);

  it('health names devnet main and devnet2 rh (each with its node’s chain id) with no SCANNER_* variable set', async () => {
    const r = await httpRequest(h.url, 'GET', '/v1/health');
    expect(r.status, r.text).toBe(200);
    // (Both embedded devnets run anvil's chain id 31337 today: packages/devnet hard-codes it, the
    // config's per-devnet chain id 31337 + i is not passed to anvil.)
    const ids = await Promise.all(
      [main, rh].map(async (u) => Number(await rpc<string>(u, 'eth_chainId', []))),
    );
    expect(r.body.chains.map((c: any) => [c.name, c.chainId, c.role])).toEqual([
      ['devnet', ids[0], 'main'],
      ['devnet2', ids[1], 'rh'],
    ]);
    // Each chain's head is its own node's block.
    for (const [c, u] of [
      [r.body.chains[0], main],
      [r.body.chains[1], rh],
    ] as const) {
      const b = await rpc<any>(u, 'eth_getBlockByNumber', [hex(c.head.block), false]);
      expect(c.head.hash).toBe(b.hash);
    }
  });

  it('/rh/scan reads the second devnet: the funding transaction sent to its node only, charged 1', async () => {
    const r = await h.ask('POST', '/v1/rh/scan', { address: W, depth: 'quick' });
    expect(r.status, r.text).toBe(200);
    expect(r.headers['x-scans-charged']).toBe('1');
    expect(r.body.anchor.chain).toBe('devnet2');
    const b = await rpc<any>(rh, 'eth_getBlockByNumber', [hex(r.body.anchor.block), false]);
    expect(r.body.anchor.hash).toBe(b.hash);
    expect(r.body.scan.fundingChain.hops).toEqual([
      expect.objectContaining({ wallet: W, funder: DEV0, txHash: fundTx, amount: String(10 ** 15) }),
    ]);
    // The main chain never saw W.
    const m = await h.ask('POST', '/v1/scan', { address: W, depth: 'quick' });
    expect(m.status, m.text).toBe(200);
    expect(m.body.anchor.chain).toBe('devnet');
    expect(m.body.scan.fundingChain.hops).toEqual([]);
  });

  it('/rh/explorer and /rh/contracts answer from the second node', async () => {
    const tx = await h.ask('GET', `/v1/rh/explorer?q=${fundTx}`);
    expect(tx.status, tx.text).toBe(200);
    expect(tx.body.result.transaction).toMatchObject({ hash: fundTx, from: DEV0, to: W });
    expect((await h.ask('GET', `/v1/explorer?q=${fundTx}`)).status).toBe(404);
    const pad = deploymentOf(
      join(h.idx.dataDir, 'chains', 'devnet2', 'devnet'),
    ).launchpad.address.toLowerCase();
    const c = await h.ask('GET', `/v1/rh/contracts?address=${pad}`);
    expect(c.status, c.text).toBe(200);
    expect(c.body.anchor.chain).toBe('devnet2');
    const code = await rpc<string>(rh, 'eth_getCode', [pad, hex(c.body.anchor.block)]);
    expect(c.body.contract).toMatchObject({ isContract: true, codeHash: keccak256(code as `0x${string}`) });
  });

  it('/rh/wallet-finder lists the buyers of a seeded launch on the second devnet, as its swaps route has them', async () => {
    const d2 = deploymentOf(join(h.idx.dataDir, 'chains', 'devnet2', 'devnet'));
    let checked = 0;
    for (const token of d2.launchpad.seededLaunches.map((t) => t.toLowerCase())) {
      const r = await h.ask('GET', `/v1/rh/wallet-finder?token=${token}`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.anchor.chain).toBe('devnet2');
      const at = r.body.anchor.block;
      const swaps = await h.idx.get(
        `/index/v1/devnet2/tokens/${token}/swaps?quote=0x0000000000000000000000000000000000000000&order=asc&limit=1000`,
      );
      expect(swaps.status, swaps.text).toBe(200);
      const first = new Map<string, string>();
      for (const s of swaps.body.data)
        if (s.side === 'buy' && s.block <= at && !first.has(s.executor.toLowerCase()))
          first.set(s.executor.toLowerCase(), s.txHash);
      expect(r.body.finder.wallets.map((w: any) => [w.wallet, w.firstBuy.txHash])).toEqual([...first]);
      checked += first.size;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('/cross-chain finds the deterministic deployment at one address on both devnets, one code hash', async () => {
    const pad = deploymentOf(join(h.idx.dataDir, 'devnet')).launchpad.address.toLowerCase();
    const r = await h.ask('GET', `/v1/cross-chain?address=${pad}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.chains.map((c: any) => [c.chain, c.role, c.kind])).toEqual([
      ['devnet', 'main', 'contract'],
      ['devnet2', 'rh', 'contract'],
    ]);
    const code = await rpc<string>(main, 'eth_getCode', [pad, 'latest']);
    expect(r.body.sameCodeHash).toEqual([
      { codeHash: keccak256(code as `0x${string}`), chains: ['devnet', 'devnet2'] },
    ]);
  });

  afterAll(async () => {
    await h?.idx.stop();
  });
});

describe('embedded default with DEVNET_CHAINS=1: no rh chain', () => {
  it('every /rh/ endpoint answers 404 CHAIN_NOT_CONFIGURED naming SCANNER_RH_CHAIN and DEVNET_CHAINS=2; nothing charged', async () => {
    const h = await startEmbedded(1);
    try {
      // The unprefixed family below reads the index: it answers 503 INDEX_UNAVAILABLE (not_ready)
      // until the devnet's first blocks are committed, which a loaded machine may not have done yet.
      await h.idx.waitForHead(1, 120_000);
      const health = await httpRequest(h.url, 'GET', '/v1/health');
      expect(health.body.chains.map((c: any) => [c.name, c.role])).toEqual([['devnet', 'main']]);
      const before = (await h.ask('GET', '/v1/usage?days=1')).body.remainingScans;
      for (const [m, p, body] of [
        ['POST', '/v1/rh/scan', { address: DEV0, depth: 'max' }],
        ['GET', `/v1/rh/contracts?address=${DEV0}`, undefined],
        ['GET', '/v1/rh/explorer?q=1', undefined],
        ['GET', `/v1/rh/wallet-finder?token=${DEV0}`, undefined],
      ] as const) {
        const r = await h.ask(m, p, body);
        expect(r.status, `${p} ${r.text}`).toBe(404);
        expect(r.body).toMatchObject({ code: 'CHAIN_NOT_CONFIGURED', missing: 'SCANNER_RH_CHAIN' });
        expect(r.body.error).toContain('DEVNET_CHAINS=2');
        expect(r.body.requestId).toBe(r.headers['x-request-id']);
        expect(r.headers['x-scans-charged']).toBeUndefined();
      }
      expect((await h.ask('GET', '/v1/usage?days=1')).body.remainingScans).toBe(before);
      // The unprefixed family answers from the one devnet.
      const ok = await h.ask('GET', '/v1/explorer?q=1');
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.anchor.chain).toBe('devnet');
    } finally {
      await h.idx.stop();
    }
  }, 300_000);
});
