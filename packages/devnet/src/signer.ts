/**
 * Local signing with explicitly managed nonces: many txs per sender per block without waiting
 * for receipts. Every tx carries an explicit gas limit (no estimation: estimates would run
 * against a state that the pending txs are about to change, and reverting txs must still be
 * mined).
 */
import { type Address, type Hex, keccak256, type LocalAccount, parseTransaction, toHex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAIN_ID, rpc, rpcBatch } from './anvil.js';
import type { DevnetDeployment } from './types.js';

/** Anvil's well-known dev mnemonic; account i is `m/44'/60'/0'/0/i`. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
/** Fee cap, wei: far above anvil's base fee under devnet load, small enough for wallets to afford. */
export const MAX_FEE_PER_GAS = 30_000_000_000n;
/** Priority fee, wei. */
export const MAX_PRIORITY_FEE_PER_GAS = 1_000_000_000n;

export function devAccount(index: number): LocalAccount {
  return mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index });
}

/** Deterministic traffic wallet `index` for `seed` (private key = keccak256("devnet-wallet:seed:index")). */
export function trafficAccount(seed: number, index: number): LocalAccount {
  return privateKeyToAccount(keccak256(toHex(`devnet-wallet:${seed}:${index}`)));
}

export interface TxRequest {
  to?: Address; // undefined = contract creation
  data?: Hex;
  value?: bigint;
  gas: bigint;
}

/** A signed transaction as accepted by the node, kept so it can be sent again after a reorg. */
export interface SignedTx {
  from: Address;
  nonce: number;
  /** Gas limit (decimal string): replays are batched under one block's gas. */
  gas: string;
  raw: Hex;
}

export class NonceWallet {
  nonce = 0;
  /** When set, every transaction the node accepts is reported here (deployment records its txs). */
  onAccepted?: (tx: SignedTx) => void;
  constructor(
    readonly account: LocalAccount,
    readonly rpcUrl: string,
  ) {}

  get address(): Address {
    return this.account.address;
  }

  /** Loads the pending nonce from the node (call at start and after a rejected send). */
  async syncNonce(): Promise<void> {
    this.nonce = Number(await rpc<string>(this.rpcUrl, 'eth_getTransactionCount', [this.address, 'pending']));
  }

  /** Signs with the next local nonce and submits; resolves with the tx hash once the node accepted it. */
  async send(tx: TxRequest): Promise<Hex> {
    const nonce = this.nonce++;
    const raw = await this.account.signTransaction!({
      type: 'eip1559',
      chainId: DEVNET_CHAIN_ID,
      nonce,
      to: tx.to ?? null,
      data: tx.data,
      value: tx.value ?? 0n,
      gas: tx.gas,
      maxFeePerGas: MAX_FEE_PER_GAS,
      maxPriorityFeePerGas: MAX_PRIORITY_FEE_PER_GAS,
    });
    try {
      const hash = await rpc<Hex>(this.rpcUrl, 'eth_sendRawTransaction', [raw]);
      this.onAccepted?.({ from: this.address, nonce, gas: tx.gas.toString(), raw });
      return hash;
    } catch (err) {
      // The node refused the tx (so the nonce was not consumed): resync so later txs are not stuck.
      await this.syncNonce().catch(() => undefined);
      throw err;
    }
  }
}

export interface ReceiptLite {
  status: '0x1' | '0x0';
  blockNumber: Hex;
  contractAddress: Address | null;
  logs: { address: Address; topics: Hex[]; data: Hex }[];
  transactionHash: Hex;
}

/** Polls until every hash has a receipt; calls evm_mine between polls when `mine` is set. */
export async function waitReceipts(
  rpcUrl: string,
  hashes: Hex[],
  opts: { mine?: boolean; timeoutMs?: number } = {},
): Promise<ReceiptLite[]> {
  const out = new Map<Hex, ReceiptLite>();
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  while (out.size < hashes.length) {
    if (Date.now() > deadline) {
      const pool = await rpc<unknown>(rpcUrl, 'txpool_inspect', []).catch(() => null);
      throw new Error(
        `devnet: timed out waiting for ${hashes.length - out.size} receipts; txpool: ${JSON.stringify(pool).slice(0, 1500)}`,
      );
    }
    const missing = hashes.filter((h) => !out.has(h));
    const got = await Promise.all(
      missing.map((h) => rpc<ReceiptLite | null>(rpcUrl, 'eth_getTransactionReceipt', [h])),
    );
    got.forEach((r, i) => {
      if (r) out.set(missing[i], r);
    });
    if (out.size < hashes.length) {
      if (opts.mine) await rpc(rpcUrl, 'evm_mine', []);
      else await new Promise((r) => setTimeout(r, 100));
    }
  }
  return hashes.map((h) => out.get(h)!);
}

/** Every address a deployment put code at: protocol contracts, tokens and seeded launches. */
export function deployedAddresses(d: DevnetDeployment): Address[] {
  return [
    ...Object.values(d.contracts),
    ...d.tokens.map((t) => t.address),
    ...(d.launchpad?.seededLaunches ?? []),
  ];
}

/**
 * How many of `addresses` have no code at the node's latest block (`eth_getCode`, one batch):
 * a reorg dropped the transactions that created them. @throws Error on RPC failure.
 */
export async function codelessCount(
  rpcUrl: string,
  addresses: readonly Address[],
  timeoutMs?: number,
): Promise<number> {
  const codes = await rpcBatch<Hex>(
    rpcUrl,
    addresses.map((a) => ['eth_getCode', [a, 'latest']]),
    timeoutMs,
  );
  return codes.filter((c) => c === '0x').length;
}

/** Gas of one replayed batch: under anvil's 60M block gas limit (anvil drops txs that overflow a block). */
const REPLAY_BATCH_GAS = 50_000_000n;

/**
 * Sends again the deployment transactions a reorg dropped (anvil does not put them back in its
 * pool): each recorded transaction without a receipt, in the original order. When the sender's
 * nonce at `pending` still equals the recorded nonce the same signed bytes are sent (creations
 * then land at the same addresses); a call whose nonce was meanwhile used by another transaction
 * of the same sender (e.g. the admin's later airdrops) is signed again with the next nonce — its
 * effect (a launch's token address comes from the launchpad's own nonce) is the same. Batched
 * under one block's gas; a sender change waits for the previous sender's transactions (launches
 * need the launchpad). `accounts` are the senders' keys.
 * A call signed again has a new hash, so a later replay (after another reorg, or a restart that
 * caught this one half-way) finds no receipt for the recorded one and sends it once more: a call
 * that then reverts (a pool initialised twice) is counted, not fatal — what must hold afterwards is
 * that every contract has code, which the callers check. A creation that reverts is fatal.
 * @returns the number of transactions sent again (0 when nothing was missing).
 * @throws Error on RPC failure, a refused transaction, a creation whose nonce was used by
 *   another transaction (its address cannot be restored), or a replayed creation that reverts.
 */
export async function replayDeployment(
  rpcUrl: string,
  txs: readonly SignedTx[],
  accounts: LocalAccount[],
): Promise<number> {
  const receipts: (ReceiptLite | null)[] = [];
  for (let i = 0; i < txs.length; i += 32)
    receipts.push(
      ...(await Promise.all(
        txs
          .slice(i, i + 32)
          .map((t) => rpc<ReceiptLite | null>(rpcUrl, 'eth_getTransactionReceipt', [keccak256(t.raw)])),
      )),
    );
  const unmined = txs.filter((_, i) => receipts[i] === null);
  const wallets = new Map<string, NonceWallet>();
  for (const a of accounts) wallets.set(a.address.toLowerCase(), new NonceWallet(a, rpcUrl));
  for (const w of wallets.values()) await w.syncNonce();
  let batch: Hex[] = [];
  /** Whether each transaction of `batch` creates a contract. */
  let creates: boolean[] = [];
  let gas = 0n;
  let from: string | null = null;
  const settle = async () => {
    if (batch.length === 0) return;
    const rs = await waitReceipts(rpcUrl, batch, { timeoutMs: 60_000 });
    const bad = rs.filter((r, i) => r.status !== '0x1' && creates[i]).length;
    if (bad > 0) throw new Error(`devnet: ${bad} replayed deployment creation(s) reverted`);
    batch = [];
    creates = [];
    gas = 0n;
  };
  for (const t of unmined) {
    if ((from !== null && t.from !== from) || gas + BigInt(t.gas) > REPLAY_BATCH_GAS) await settle();
    from = t.from;
    gas += BigInt(t.gas);
    const w = wallets.get(t.from.toLowerCase());
    if (!w) throw new Error(`devnet: no key for deployment sender ${t.from}`);
    const tx = parseTransaction(t.raw);
    if (w.nonce === t.nonce) {
      batch.push(await rpc<Hex>(rpcUrl, 'eth_sendRawTransaction', [t.raw]));
      creates.push(!tx.to);
      w.nonce++;
      continue;
    }
    if (!tx.to || w.nonce < t.nonce)
      throw new Error(
        `devnet: deployment tx ${keccak256(t.raw)} (nonce ${t.nonce}) cannot be restored: ${t.from} is at nonce ${w.nonce}; remove the devnet data directory to deploy afresh`,
      );
    batch.push(await w.send({ to: tx.to, data: tx.data, value: tx.value, gas: BigInt(t.gas) }));
    creates.push(false);
  }
  await settle();
  return unmined.length;
}
