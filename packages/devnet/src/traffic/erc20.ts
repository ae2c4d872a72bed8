/**
 * ERC-20 traffic on the deployment's test tokens, whatever their kind (plain, stable, WETH,
 * fee-on-transfer, rebasing, bytes32 or reverting metadata): wallet-to-wallet `transfer`s
 * (`Transfer`), the ownable token's owner minting to wallets and handing ownership on
 * (`mint`, `transferOwnership`, `OwnershipTransferred`), and the admin's `rebase` of the rebasing
 * token (balances change without `Transfer`). Approvals come lazily with the actions that need them.
 */
import { erc20Abi } from '../abis.js';
import type { TrafficGenerator } from './generator.js';

/** $1–500 of a random token from one wallet to another. */
export async function tokenTransfer(g: TrafficGenerator) {
  const x = g.wallet();
  const to = g.other(x);
  const t = g.r(g.tokens);
  return g.call(
    `transfer-${t.kind}`,
    x.w,
    t.address,
    erc20Abi,
    'transfer',
    [to.w.address, g.usdAmount(t, g.range(1, 500))],
    120_000n,
  );
}

/**
 * The ownable token (GOV): its owner hands ownership to another wallet (15 %) or mints $100–10k
 * to a wallet; a plain transfer while the owner is unknown or a hand-over is pending.
 */
export async function ownerMint(g: TrafficGenerator) {
  const gov = g.tok.get('GOV')!;
  const o = g.govOwner;
  if (!o || g.govOwnerPending) return tokenTransfer(g);
  if (g.rnd() < 0.15) {
    const next = g.other(o);
    g.govOwnerPending = true;
    return g.call(
      'gov-transfer-ownership',
      o.w,
      gov.address,
      erc20Abi,
      'transferOwnership',
      [next.w.address],
      100_000n,
      0n,
      (r) => {
        g.govOwnerPending = false;
        if (r.status === '0x1') g.govOwner = next;
      },
    );
  }
  return g.call(
    'gov-owner-mint',
    o.w,
    gov.address,
    erc20Abi,
    'mint',
    [g.wallet().w.address, g.usdAmount(gov, g.range(100, 10_000))],
    120_000n,
  );
}

/** The admin rebases the rebasing token (RBS) by 1–50 bps. */
export async function rebase(g: TrafficGenerator) {
  const t = g.tok.get('RBS')!;
  return g.call(
    'rebase',
    g.admin,
    t.address,
    erc20Abi,
    'rebase',
    [BigInt(1 + Math.floor(g.rnd() * 50))],
    80_000n,
  );
}
