/**
 * The benchmark chain: a seeded, reproducible chain built on a fresh anvil.
 *
 * One tiny contract, `Emitter` (source below, compiled once with solc 0.8.26 --optimize 200 and
 * embedded as bytecode so the bench needs no compile step):
 *
 *   contract Emitter {
 *     event Ping(uint256 indexed i, address indexed from, uint256 value);
 *     function emitMany(uint256 n) external { for (uint256 i; i < n; ++i) emit Ping(i, msg.sender, block.number); }
 *   }
 *
 * Every "normal" block holds 1–3 transactions (seeded) calling emitMany with a seeded split of
 * LOGS_PER_BLOCK logs. Every `denseEvery`-th block is a dense block of DENSE_TXS transactions
 * emitting 2 logs each (so both /blocks/{n}/transactions and /blocks/{n}/logs have > 1000 rows
 * and hit the page caps). Automine is off; each block is `anvil_mine`d explicitly; the genesis
 * timestamp is fixed and the block time is 1 s, so the same seed and size give the same hashes.
 */

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prng } from '@chain-indexer/devnet/math';
import { anvilBaseArgs, anvilBinary, freePort } from '../test/harness/anvil.js';
import { hex, log, rpc, rpcBatch, sleep, stopChild, track } from './lib.js';

export const EMITTER_BYTECODE =
  '0x6080604052348015600e575f80fd5b5060d280601a5f395ff3fe6080604052348015600e575f80fd5b50600436106026575f3560e01c80639b64250914602a575b5f80fd5b603960353660046086565b603b565b005b5f5b81811015608257604051438152339082907f55c5abc0e08371271c19ba299c1e8ed0f7448d6335c7f1001d2eda714d9531fb9060200160405180910390a3600101603d565b5050565b5f602082840312156095575f80fd5b503591905056fea2646970667358221220a0643afe9d555ef9b39f5bb64189b28ef67915df6554a5de5d7306dc30235f0064736f6c634300081a0033';
/** Selector of Emitter.emitMany(uint256). */
export const EMIT_SELECTOR = '0x9b642509';
/** anvil's unlocked dev accounts (from `eth_accounts`, the default mnemonic). */
let ACCOUNTS: string[] = [];
const N_ACCOUNTS = 6;
export const LOGS_PER_BLOCK = 52;
export const DENSE_TXS = 1100;
const GENESIS_TS = 1_700_000_000;
const GAS_LIMIT = 200_000_000;

export interface ChainSpec {
  seed: number;
  /** Blocks after the deployment block (block 1). */
  blocks: number;
  denseEvery: number;
}

export interface ChainInfo {
  spec: ChainSpec;
  head: number;
  emitter: string;
  txCount: number;
  logCount: number;
  denseBlocks: number[];
  /** A sample of (block, tx hash) for point reads. */
  sampleTxs: Array<{ block: number; hash: string }>;
  headHash: string;
  generationSeconds: number;
  /** How the chain came to be in this run: generated now, or loaded from the state cache. */
  source: 'generated' | 'cache';
  cacheFile: string;
}

export interface AnvilNode {
  rpcUrl: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startAnvilNode(extra: string[] = []): Promise<AnvilNode> {
  const port = await freePort();
  // The persisted-state cache would land in ~/.foundry/anvil/tmp and stay there (a 20,000-block
  // chain leaves gigabytes): a temp dir removed on stop.
  const { args: base, cacheDir } = anvilBaseArgs(port);
  const args = [
    ...base,
    '--no-mining',
    '--gas-limit',
    String(GAS_LIMIT),
    '--timestamp',
    String(GENESIS_TS),
    '--accounts',
    String(N_ACCOUNTS),
    '--chain-id',
    '31337',
    ...extra,
  ];
  const child = track(spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] }));
  const rpcUrl = `http://127.0.0.1:${port}`;
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  for (let i = 0; ; i++) {
    try {
      await rpc(rpcUrl, 'eth_chainId');
      break;
    } catch {
      if (child.exitCode !== null) throw new Error(`anvil exited: ${err}`);
      if (i > 300) throw new Error(`anvil did not start: ${err}`);
      await sleep(100);
    }
  }
  return {
    rpcUrl,
    pid: child.pid!,
    stop: async () => {
      await stopChild(child, 2000);
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

const word = (n: number) => n.toString(16).padStart(64, '0');

/**
 * The chain from the anvil state cache, when the cache restores the full history and historical
 * state (then the node is left running); null otherwise (the node is stopped).
 */
async function loadCached(
  stateFile: string,
  infoFile: string,
): Promise<{ node: AnvilNode; info: ChainInfo } | null> {
  const info = JSON.parse(readFileSync(infoFile, 'utf8')) as ChainInfo;
  const t0 = performance.now();
  const node = await startAnvilNode(['--load-state', stateFile]);
  const head = Number.parseInt(await rpc<string>(node.rpcUrl, 'eth_blockNumber'), 16);
  const hb = await rpc<{ hash: string } | null>(node.rpcUrl, 'eth_getBlockByNumber', [hex(info.head), false]);
  // The cache is only used when it restores the full history (blocks and receipts) byte-exactly.
  const sample = info.sampleTxs[0];
  const rc = sample
    ? await rpc<{ logs: unknown[] } | null>(node.rpcUrl, 'eth_getTransactionReceipt', [sample.hash]).catch(
        () => null,
      )
    : null;
  const b1 = await rpc<unknown>(node.rpcUrl, 'eth_getBlockByNumber', ['0x1', true]).catch(() => null);
  // …and historical state: the indexer calls eth_getCode / eth_call at old blocks, which an anvil
  // started with --load-state cannot answer (it restores blocks and receipts, not past states).
  const code = await rpc<string>(node.rpcUrl, 'eth_getCode', [info.emitter, '0x2']).catch(() => null);
  if (head === info.head && hb?.hash === info.headHash && rc && b1 && code && code !== '0x') {
    log(
      `chain: loaded from cache ${stateFile} in ${((performance.now() - t0) / 1000).toFixed(1)} s (head ${head})`,
    );
    return { node, info: { ...info, source: 'cache', cacheFile: stateFile } };
  }
  log(
    `chain: cache ${stateFile} does not restore the history (head ${head}, hash ${hb?.hash}); generating fresh`,
  );
  await node.stop();
  return null;
}

/** The transactions of bench block `i`: a dense block's DENSE_TXS, else 1–3 splitting LOGS_PER_BLOCK logs. */
function blockCalls(
  i: number,
  dense: boolean,
  rand: () => number,
  emitter: string,
  nonce: (a: string) => string,
): { calls: Array<[string, unknown[]]>; logsHere: number } {
  let calls: Array<[string, unknown[]]>;
  let logsHere = 0;
  if (dense) {
    calls = [];
    for (let k = 0; k < DENSE_TXS; k++) {
      const from = ACCOUNTS[k % ACCOUNTS.length];
      calls.push([
        'eth_sendTransaction',
        [{ from, to: emitter, data: `${EMIT_SELECTOR}${word(2)}`, gas: hex(60_000), nonce: nonce(from) }],
      ]);
    }
    logsHere = 2 * DENSE_TXS;
  } else {
    const nTx = 1 + Math.floor(rand() * 3);
    const cuts: number[] = [];
    for (let k = 0; k < nTx - 1; k++) cuts.push(1 + Math.floor(rand() * (LOGS_PER_BLOCK - 1)));
    cuts.sort((a, b) => a - b);
    const parts: number[] = [];
    let prev = 0;
    for (const c of [...cuts, LOGS_PER_BLOCK]) {
      parts.push(c - prev);
      prev = c;
    }
    calls = parts.map((n, k) => {
      const from = ACCOUNTS[(i + k) % ACCOUNTS.length];
      return [
        'eth_sendTransaction',
        [
          {
            from,
            to: emitter,
            data: `${EMIT_SELECTOR}${word(n)}`,
            gas: hex(40_000 + 3_000 * n),
            nonce: nonce(from),
          },
        ],
      ];
    });
    logsHere = LOGS_PER_BLOCK;
  }
  return { calls, logsHere };
}

/** Generates the chain on a fresh anvil (or loads it from the state cache); returns the node. */
export async function buildChain(
  spec: ChainSpec,
  o: { useCache: boolean },
): Promise<{ node: AnvilNode; info: ChainInfo }> {
  const cacheDir = join(tmpdir(), 'indexer-bench-chain-cache');
  mkdirSync(cacheDir, { recursive: true });
  const key = `v1-seed${spec.seed}-b${spec.blocks}-d${spec.denseEvery}`;
  const stateFile = join(cacheDir, `${key}.state.json`);
  const infoFile = join(cacheDir, `${key}.info.json`);

  if (o.useCache && existsSync(stateFile) && existsSync(infoFile)) {
    const cached = await loadCached(stateFile, infoFile);
    if (cached) return cached;
  }

  const node = await startAnvilNode();
  const url = node.rpcUrl;
  const rand = prng(spec.seed);
  const t0 = performance.now();
  ACCOUNTS = (await rpc<string[]>(url, 'eth_accounts')).map((a) => a.toLowerCase());
  await rpc(url, 'anvil_setBlockTimestampInterval', [1]);
  // Block 1: deploy the emitter.
  // Explicit nonces: anvil handles a JSON-RPC batch concurrently, so it cannot assign them in order.
  const nonces = new Map<string, number>(ACCOUNTS.map((a) => [a, 0]));
  const nonce = (a: string) => {
    const n = nonces.get(a)!;
    nonces.set(a, n + 1);
    return hex(n);
  };
  const deployHash = await rpc<string>(url, 'eth_sendTransaction', [
    { from: ACCOUNTS[0], data: EMITTER_BYTECODE, gas: hex(500_000), nonce: nonce(ACCOUNTS[0]) },
  ]);
  await rpc(url, 'anvil_mine', ['0x1']);
  const deployRc = await rpc<{ contractAddress: string }>(url, 'eth_getTransactionReceipt', [deployHash]);
  const emitter = deployRc.contractAddress.toLowerCase();

  let txCount = 1;
  let logCount = 0;
  const denseBlocks: number[] = [];
  const sampleTxs: Array<{ block: number; hash: string }> = [];
  let lastLog = performance.now();
  for (let i = 1; i <= spec.blocks; i++) {
    const blockNo = i + 1;
    const dense = spec.denseEvery > 0 && i % spec.denseEvery === 0;
    const { calls, logsHere } = blockCalls(i, dense, rand, emitter, nonce);
    if (dense) denseBlocks.push(blockNo);
    // Transactions of one block go in JSON-RPC batches (in order per sender), then the block is mined.
    const hashes: string[] = [];
    for (let s = 0; s < calls.length; s += 200)
      hashes.push(...((await rpcBatch(url, calls.slice(s, s + 200))) as string[]));
    await rpc(url, 'anvil_mine', ['0x1']);
    txCount += calls.length;
    logCount += logsHere;
    if (i % Math.max(1, Math.floor(spec.blocks / 200)) === 0 || dense)
      sampleTxs.push({ block: blockNo, hash: hashes[0] });
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      log(
        `chain: ${i}/${spec.blocks} blocks, ${logCount} logs, ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      );
    }
  }
  const head = Number.parseInt(await rpc<string>(url, 'eth_blockNumber'), 16);
  const headBlock = await rpc<{ hash: string }>(url, 'eth_getBlockByNumber', [hex(head), false]);
  // Checks that the chain is what was asked for (every tx mined, every log emitted).
  const last = await rpc<{ transactions: string[] }>(url, 'eth_getBlockByNumber', [hex(head), false]);
  if (head !== spec.blocks + 1 || !last.transactions.length)
    throw new Error(`chain: head ${head}, expected ${spec.blocks + 1} with txs`);
  const generationSeconds = (performance.now() - t0) / 1000;
  const info: ChainInfo = {
    spec,
    head,
    emitter,
    txCount,
    logCount,
    denseBlocks,
    sampleTxs,
    headHash: headBlock.hash,
    generationSeconds,
    source: 'generated',
    cacheFile: stateFile,
  };
  log(
    `chain: generated ${head} blocks, ${txCount} txs, ${logCount} logs in ${generationSeconds.toFixed(1)} s (head hash ${headBlock.hash})`,
  );
  if (o.useCache) {
    try {
      const state = await rpc<string>(url, 'anvil_dumpState');
      // anvil_dumpState answers hex of gzip JSON; --load-state reads the JSON (gzip or not).
      const { gunzipSync } = await import('node:zlib');
      const raw = Buffer.from(state.slice(2), 'hex');
      const json = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
      writeFileSync(`${stateFile}.tmp`, json);
      renameSync(`${stateFile}.tmp`, stateFile);
      writeFileSync(infoFile, JSON.stringify(info));
    } catch (e) {
      log(`chain: could not cache the state: ${(e as Error).message}`);
    }
  }
  return { node, info };
}
