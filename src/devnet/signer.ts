/**
 * Local signing with explicitly managed nonces: many txs per sender per block without waiting
 * for receipts. Every tx carries an explicit gas limit (no estimation: estimates would run
 * against a state that the pending txs are about to change, and reverting txs must still be
 * mined).
 */
import { type Address, type Hex, keccak256, type LocalAccount, toHex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAIN_ID, rpc } from './anvil.js';

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

/** Gas of one replayed batch: under anvil's 60M block gas limit (anvil drops txs that overflow a block). */
const REPLAY_BATCH_GAS = 50_000_000n;

/**
 * Sends again the deployment transactions a reorg dropped: for each sender, those whose nonce is
 * at or above the sender's nonce at `latest` (a reorg drops a suffix of each sender's
 * transactions; anvil does not put them back in its pool). The same signed bytes at the same
 * nonces create the same contracts at the same addresses, so every address in deployment.json
 * (and in the indexer's markets configuration) stays valid. Batched under one block's gas like
 * the deployment; a sender change waits for the previous sender's transactions (launches need the
 * launchpad).
 * @returns the number of transactions sent again (0 when nothing was missing).
 * @throws Error on RPC failure, a refused transaction or a replayed step that reverts.
 */
export async function replayDeployment(rpcUrl: string, txs: readonly SignedTx[]): Promise<number> {
  const senders = [...new Set(txs.map((t) => t.from))];
  const nonces = new Map<string, number>();
  for (const s of senders)
    nonces.set(s, Number(await rpc<Hex>(rpcUrl, 'eth_getTransactionCount', [s, 'latest'])));
  const todo = txs.filter((t) => t.nonce >= nonces.get(t.from)!);
  let batch: Hex[] = [];
  let gas = 0n;
  let from: string | null = null;
  const settle = async () => {
    if (batch.length === 0) return;
    const rs = await waitReceipts(rpcUrl, batch, { timeoutMs: 60_000 });
    const bad = rs.filter((r) => r.status !== '0x1').length;
    if (bad > 0) throw new Error(`devnet: ${bad} replayed deployment transaction(s) reverted`);
    batch = [];
    gas = 0n;
  };
  for (const t of todo) {
    if ((from !== null && t.from !== from) || gas + BigInt(t.gas) > REPLAY_BATCH_GAS) await settle();
    from = t.from;
    gas += BigInt(t.gas);
    batch.push(await rpc<Hex>(rpcUrl, 'eth_sendRawTransaction', [t.raw]));
  }
  await settle();
  return todo.length;
}
