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

export class NonceWallet {
  nonce = 0;
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
      return await rpc<Hex>(this.rpcUrl, 'eth_sendRawTransaction', [raw]);
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
