/**
 * Whether an indexer's answer is right, for the transfer-chain peers (bench/ingest-transfers.ts
 * `--peer`): a sample of the token's holders and their `balanceOf` on the node at the head, the
 * yardstick every indexer's balances are held to. A peer whose balances differ does not count.
 */
import { hex, rpcBatch } from './lib.js';
import type { TransferChain } from './transfer-chain.js';

/** balanceOf(address) */
const BALANCE_OF = '0x70a08231';

/**
 * The wallets checked: every 50th wallet (senders and receivers alike, seeded addresses) and the
 * deployer, which minted the supply and funded the senders (lowercase).
 */
export async function sampleHolders(chain: TransferChain, every = 50): Promise<string[]> {
  const [deployer] = (await rpcBatch(chain.node.rpcUrl, [['eth_accounts', []]]))[0] as string[];
  const out = new Set<string>([deployer.toLowerCase()]);
  for (let i = 0; i < chain.wallets.length; i += every) out.add(chain.wallets[i]);
  return [...out];
}

/** `balanceOf(wallet)` of `token` at block `at` for every wallet (one JSON-RPC batch). */
export async function balancesOnNode(
  url: string,
  token: string,
  wallets: string[],
  at: number,
): Promise<Map<string, bigint>> {
  const res = await rpcBatch(
    url,
    wallets.map((w) => [
      'eth_call',
      [{ to: token, data: `${BALANCE_OF}${w.slice(2).padStart(64, '0')}` }, hex(at)],
    ]),
  );
  return new Map(wallets.map((w, i) => [w, BigInt(res[i] as string)]));
}

/** Outcome of holding an indexer's balances to the node's. */
export interface BalanceCheck {
  checked: number;
  /** Wallets whose balance differs (at most 5 shown): wallet, indexer, node. */
  wrong: Array<{ wallet: string; got: string; want: string }>;
  wrongCount: number;
}

/** Compares `got` (wallet → balance, absent = 0) with `want` for every wallet of `want`. */
export function compareBalances(got: Map<string, bigint>, want: Map<string, bigint>): BalanceCheck {
  const wrong: BalanceCheck['wrong'] = [];
  let wrongCount = 0;
  for (const [w, v] of want) {
    const g = got.get(w) ?? 0n;
    if (g === v) continue;
    wrongCount++;
    if (wrong.length < 5) wrong.push({ wallet: w, got: g.toString(), want: v.toString() });
  }
  return { checked: want.size, wrong, wrongCount };
}

/** "50 of 50 balances equal balanceOf at head" or the first differences. */
export function checkCell(c: BalanceCheck | undefined): string {
  if (!c) return 'not checked';
  if (!c.wrongCount) return `${c.checked} of ${c.checked} sampled balances = balanceOf at head`;
  return `WRONG: ${c.wrongCount} of ${c.checked} differ (${c.wrong
    .map((x) => `${x.wallet}: ${x.got} ≠ ${x.want}`)
    .join('; ')})`;
}
