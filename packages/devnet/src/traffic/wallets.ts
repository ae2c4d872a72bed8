/**
 * Native-currency traffic between the generator's wallets: plain ETH transfers, new wallets funded
 * by an active one (then airdropped and made active), multi-hop funding chains of fresh wallets
 * (native value plus a plain ERC-20 `transfer` per hop, recorded for the tests' funding-graph
 * checks) and WETH9 `deposit`/`withdraw` (`Deposit`, `Withdrawal`).
 */
import { erc20Abi, wethAbi } from '../abis.js';
import type { FundingChainRecord } from '../traffic.js';
import { E18, type TrafficGenerator, type Wallet } from './generator.js';
import { airdrop } from './setup.js';

/** 0.01–2 ETH from one wallet to another. */
export async function nativeTransfer(g: TrafficGenerator) {
  const x = g.wallet();
  const to = g.other(x);
  return g.tx(
    'eth-transfer',
    x.w,
    to.w.address,
    '0x',
    21_000n,
    BigInt(Math.floor(g.range(0.01, 2) * 1e6)) * 10n ** 12n,
  );
}

/** 30 ETH to the seed's next wallet, which is airdropped and joins the active pool once mined. */
export async function spawnWallet(g: TrafficGenerator) {
  const x = g.wallet();
  const fresh = g.newWallet();
  return g.tx('fund-new-wallet', x.w, fresh.w.address, '0x', 21_000n, 30n * E18, (r) => {
    if (r.status !== '0x1') return;
    fresh.w.nonce = 0;
    g.addWallets(fresh);
    airdrop(g, fresh).catch((e) => g.log(`traffic: airdrop failed: ${(e as Error).message.slice(0, 200)}`));
  });
}

/**
 * A multi-hop funding chain of 2–4 fresh wallets: a pool wallet sends native currency and a plain
 * ERC-20 to fresh wallet 1, which (once both are mined) forwards 60 % of the native value and half
 * of the tokens to fresh wallet 2, and so on. Amounts and the token are drawn now, from the
 * seeded parameter PRNG, so the chain's shape is deterministic for a seed; only the blocks it
 * lands in depend on timing. The fresh wallets join the active pool when the chain settles (not
 * before: each hop must stay its wallet's earliest incoming transfer of both assets).
 */
export async function fundingChain(g: TrafficGenerator) {
  const root = g.wallet();
  const t = g.r(g.tokens.filter((x) => x.kind === 'standard' || x.kind === 'stable'));
  const len = 2 + Math.floor(g.rnd() * 3);
  const fresh = Array.from({ length: len }, () => g.newWallet());
  const natives: bigint[] = [];
  const amounts: bigint[] = [];
  let native = BigInt(len) * 2n * E18 + BigInt(Math.floor(g.rnd() * 1e6)) * 10n ** 12n;
  let amount = g.usdAmount(t, g.range(200, 2000));
  for (let k = 0; k < len; k++) {
    natives.push(native);
    amounts.push(amount);
    native = (native * 6n) / 10n;
    amount = amount / 2n;
  }
  const rec: FundingChainRecord = {
    root: root.w.address.toLowerCase(),
    token: t.address.toLowerCase(),
    wallets: fresh.map((f) => f.w.address.toLowerCase()),
    hops: [],
    complete: false,
    settled: false,
  };
  g.fundingChains.push(rec);
  const settle = (complete: boolean) => {
    rec.complete = complete;
    rec.settled = true;
    g.addWallets(...fresh.slice(0, rec.hops.length));
  };
  const hop = async (k: number, from: Wallet): Promise<unknown> => {
    const to = fresh[k];
    const h: FundingChainRecord['hops'][number] = {
      from: from.w.address.toLowerCase(),
      to: to.w.address.toLowerCase(),
      native: natives[k].toString(),
      amount: amounts[k].toString(),
      nativeTx: null,
      tokenTx: null,
      nativeOk: null,
      tokenOk: null,
    };
    rec.hops.push(h);
    const mined = () => {
      if (h.nativeOk === null || h.tokenOk === null) return;
      if (!(h.nativeOk && h.tokenOk)) return settle(false);
      // A failed next hop (the node went away) ends the chain; the loop notices the node itself.
      if (k + 1 < len) return void hop(k + 1, to).catch(() => settle(false));
      settle(true);
    };
    h.nativeTx = await g.tx('funding-chain', from.w, to.w.address, '0x', 21_000n, natives[k], (r) => {
      h.nativeOk = r.status === '0x1';
      mined();
    });
    h.tokenTx = await g.call(
      'funding-chain',
      from.w,
      t.address,
      erc20Abi,
      'transfer',
      [to.w.address, amounts[k]],
      120_000n,
      0n,
      (r) => {
        h.tokenOk = r.status === '0x1';
        mined();
      },
    );
    if (!h.nativeTx || !h.tokenTx) settle(false);
    return h.tokenTx;
  };
  return hop(0, root);
}

/** WETH9: a deposit of 0.1–3 ETH (60 %) or a withdrawal of 0.05–1 WETH. */
export async function wrap(g: TrafficGenerator) {
  const x = g.wallet();
  const weth = g.tok.get('WETH')!;
  if (g.rnd() < 0.6)
    return g.call(
      'weth-deposit',
      x.w,
      weth.address,
      wethAbi,
      'deposit',
      [],
      80_000n,
      BigInt(Math.floor(g.range(0.1, 3) * 1e6)) * 10n ** 12n,
    );
  return g.call(
    'weth-withdraw',
    x.w,
    weth.address,
    wethAbi,
    'withdraw',
    [BigInt(Math.floor(g.range(0.05, 1) * 1e6)) * 10n ** 12n],
    80_000n,
  );
}
