/**
 * A transfer-heavy bench chain: one plain ERC-20 (the devnet's `SimpleToken`, compiled from
 * packages/devnet/src/contracts with solc-js) and `txPerBlock` `transfer(to, amount)` calls per block among
 * many wallets, on a fresh anvil with automine off.
 *
 * Block 1 deploys the token (the whole supply to anvil's first account). The first
 * ⌈senders / txPerBlock⌉ blocks after it fund the senders from that account; every later block
 * holds `txPerBlock` transfers from a seeded sender to a seeded recipient among `wallets`
 * addresses (senders included), so balances move among thousands of holders as on a real token.
 * Every block after the deployment holds exactly `txPerBlock` transactions and as many Transfer
 * logs. Senders are impersonated (`anvil_autoImpersonateAccount`) and given ether with
 * `anvil_setBalance`; nonces are explicit because anvil runs a JSON-RPC batch concurrently.
 */

import { mkdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { compileContracts } from '@chain-indexer/devnet/contracts';
import { prng } from '@chain-indexer/devnet/math';
import { encodeDeployData } from 'viem';
import { type AnvilNode, startAnvilNode } from './chain.js';
import { hex, log, onCleanup, rpc, rpcBatch } from './lib.js';

export interface TransferChainSpec {
  seed: number;
  /** Blocks of transfers after the deployment block. */
  blocks: number;
  txPerBlock: number;
  /** Addresses that send (each funded with tokens first). */
  senders: number;
  /** Addresses that receive (senders included). */
  wallets: number;
}

export interface TransferChain {
  node: AnvilNode;
  spec: TransferChainSpec;
  token: `0x${string}`;
  /** Every wallet address, lowercase; the first `spec.senders` are the senders. */
  wallets: string[];
  /** Block from which every sender holds tokens (the last funding block). */
  fundedBlock: number;
  /** Deployment block. */
  deployBlock: number;
  head: number;
  txCount: number;
  logCount: number;
  generationSeconds: number;
}

const word = (h: string) => h.replace(/^0x/, '').padStart(64, '0');
/** transfer(address,uint256) */
const TRANSFER = '0xa9059cbb';

/** Builds the chain on a fresh anvil; the caller stops the returned node. */
export async function buildTransferChain(spec: TransferChainSpec, stateDir: string): Promise<TransferChain> {
  const t0 = performance.now();
  const compiled = compileContracts(stateDir, log);
  const token = compiled.SimpleToken;
  if (!token) throw new Error('SimpleToken not found in the compiled devnet contracts');
  const node = await startAnvilNode();
  const url = node.rpcUrl;
  const rand = prng(spec.seed);
  const [holder] = (await rpc<string[]>(url, 'eth_accounts')).map((a) => a.toLowerCase());
  await rpc(url, 'anvil_setBlockTimestampInterval', [1]);
  await rpc(url, 'anvil_autoImpersonateAccount', [true]);
  const addr = (i: number) =>
    `0x${(0x10000000 + i).toString(16).padStart(8, '0')}${Math.floor(rand() * 2 ** 32)
      .toString(16)
      .padStart(8, '0')}${'b'.repeat(24)}`;
  const wallets: string[] = [];
  for (let i = 0; i < spec.wallets; i++) wallets.push(addr(i));
  const senders = wallets.slice(0, spec.senders);
  for (let s = 0; s < senders.length; s += 200)
    await rpcBatch(
      url,
      senders.slice(s, s + 200).map((a) => ['anvil_setBalance', [a, hex(10n ** 21n)]]),
    );
  const nonces = new Map<string, number>();
  const nonce = (a: string) => {
    const n = nonces.get(a) ?? 0;
    nonces.set(a, n + 1);
    return hex(n);
  };
  const deployData = encodeDeployData({
    abi: token.abi,
    bytecode: token.bytecode,
    args: ['Bench Token', 'BNCH', 18, 10n ** 30n, holder],
  });
  const deployHash = await rpc<string>(url, 'eth_sendTransaction', [
    { from: holder, data: deployData, gas: hex(3_000_000), nonce: nonce(holder) },
  ]);
  await rpc(url, 'anvil_mine', ['0x1']);
  const rc = await rpc<{ contractAddress: string; blockNumber: string }>(url, 'eth_getTransactionReceipt', [
    deployHash,
  ]);
  const tokenAddr = rc.contractAddress.toLowerCase() as `0x${string}`;
  const deployBlock = Number.parseInt(rc.blockNumber, 16);

  let funded = 0;
  let lastLog = performance.now();
  for (let b = 0; b < spec.blocks; b++) {
    const calls: Array<[string, unknown[]]> = [];
    for (let k = 0; k < spec.txPerBlock; k++) {
      let from: string;
      let to: string;
      let amount: bigint;
      if (funded < senders.length) {
        from = holder;
        to = senders[funded++];
        amount = 10n ** 24n;
      } else {
        from = senders[Math.floor(rand() * senders.length)];
        to = wallets[Math.floor(rand() * wallets.length)];
        amount = BigInt(1 + Math.floor(rand() * 1e9));
      }
      calls.push([
        'eth_sendTransaction',
        [
          {
            from,
            to: tokenAddr,
            data: `${TRANSFER}${word(to)}${word(amount.toString(16))}`,
            gas: hex(80_000),
            nonce: nonce(from),
          },
        ],
      ]);
    }
    for (let s = 0; s < calls.length; s += 200) await rpcBatch(url, calls.slice(s, s + 200));
    await rpc(url, 'anvil_mine', ['0x1']);
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      log(
        `transfer chain: ${b + 1}/${spec.blocks} blocks, ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      );
    }
  }
  const head = Number.parseInt(await rpc<string>(url, 'eth_blockNumber'), 16);
  const last = await rpc<{ transactions: string[] }>(url, 'eth_getBlockByNumber', [hex(head), false]);
  if (head !== deployBlock + spec.blocks || last.transactions.length !== spec.txPerBlock)
    throw new Error(
      `transfer chain: head ${head} with ${last.transactions.length} txs, expected ${deployBlock + spec.blocks} with ${spec.txPerBlock}`,
    );
  // Every transfer succeeded (a reverted one would emit no log): checked on the last block's receipts.
  const rcs = await rpc<Array<{ status: string; logs: unknown[] }>>(url, 'eth_getBlockReceipts', [hex(head)]);
  if (rcs.some((r) => r.status !== '0x1' || r.logs.length !== 1))
    throw new Error('transfer chain: a transfer of the last block reverted or emitted no log');
  const generationSeconds = (performance.now() - t0) / 1000;
  const txCount = 1 + spec.blocks * spec.txPerBlock;
  const logCount = 1 + spec.blocks * spec.txPerBlock; // the deployment's mint + one Transfer per tx
  log(
    `transfer chain: ${head} blocks, ${txCount} txs, ${logCount} logs, token ${tokenAddr}, in ${generationSeconds.toFixed(1)} s`,
  );
  return {
    node,
    spec,
    token: tokenAddr,
    wallets,
    fundedBlock: deployBlock + Math.ceil(spec.senders / spec.txPerBlock),
    deployBlock,
    head,
    txCount,
    logCount,
    generationSeconds,
  };
}

/**
 * The transfer chain a bench's command line asks for (`--seed`, `--blocks` (default
 * `defaultBlocks`), `--tx`, `--senders`, `--wallets`), built on a fresh anvil (contracts compiled
 * once into the shared solc cache directory); the node is stopped by the bench's cleanup.
 */
export async function transferChainFromArgs(
  arg: (name: string, fallback: string) => string,
  defaultBlocks: number,
): Promise<TransferChain> {
  const spec: TransferChainSpec = {
    seed: Number(arg('--seed', '1')),
    blocks: Number(arg('--blocks', String(defaultBlocks))),
    txPerBlock: Number(arg('--tx', '50')),
    senders: Number(arg('--senders', '500')),
    wallets: Number(arg('--wallets', '5000')),
  };
  const stateDir = join(os.tmpdir(), 'indexer-bench-solc');
  mkdirSync(stateDir, { recursive: true });
  const chain = await buildTransferChain(spec, stateDir);
  onCleanup(() => chain.node.stop());
  return chain;
}
