/**
 * The traffic generator's shared state and the means every traffic family sends with: signed
 * sends from locally managed nonces ({@link TrafficGenerator.tx}, {@link TrafficGenerator.call}),
 * the wallets' worst-case funds book and its top-ups (native transfers from funded dev accounts),
 * lazy ERC-20 approvals (`approve`), `eth_call` reads, the seeded draws (wallets, pools, amounts)
 * and the counters reported to traffic.ts. The actions themselves live in one module per family
 * (uniswap-v2.ts, erc20.ts, launchpad.ts, …); scheduler.ts picks and runs them.
 *
 * Two PRNGs derive from the seed: `pick` draws the next action (once per step) and `rnd` every
 * parameter. Their call order is what makes a seed's traffic repeatable: an action draws its
 * parameters in a fixed order, and nothing draws outside the send loop.
 */
import { parentPort } from 'node:worker_threads';
import { type Abi, type Address, encodeFunctionData, type Hex, zeroAddress } from 'viem';
import { erc20Abi } from '../abis.js';
import { rpc, rpcBatch } from '../anvil.js';
import { FundsBook, noRefusals, type RefusedBy, refusalCause, worstCaseCost } from '../funds.js';
import { NATIVE_ETH, usdToRaw } from '../math.js';
import { prng } from '../prng.js';
import {
  devAccount,
  MAX_FEE_PER_GAS,
  NonceWallet,
  type ReceiptLite,
  type SignedTx,
  trafficAccount,
} from '../signer.js';
import type { FundingChainRecord, WorkerState } from '../traffic.js';
import type { DevnetDeployment, PoolInfo, TokenInfo, TrafficState } from '../types.js';
import { isNodeDown } from './support.js';

/** What traffic.ts hands the worker (its `workerData`). */
export interface Input {
  rpcUrl: string;
  deployment: DevnetDeployment;
  deploymentTxs: SignedTx[];
  seed: number;
  txPerSecond: number;
  blockTimeMs: number;
  walletCount: number;
  logEveryTxs: number;
  childBytecode: Hex | null;
}

/** 2^256 − 1: an unlimited approval, an amount no balance covers. */
export const MAX = 2n ** 256n - 1n;
/** One ether, wei. */
export const E18 = 10n ** 18n;
/** Refused sends in a row after which the set-up is checked (balances may be gone). */
const REFUSALS_BEFORE_CHECK = 100;
/** A wallet whose spendable balance falls below this is topped up (wei): above any one send's worst case. */
export const LOW_WATER = 50n * E18;
/** What a top-up sends (wei), from a funded dev account. */
const TOP_UP = 200n * E18;

/** A traffic wallet and what the generator remembers of it. */
export interface Wallet {
  w: NonceWallet;
  /** What it can spend, worst case (see funds.ts). */
  funds: FundsBook;
  /** `token:spender` pairs approved for all. */
  approved: Set<string>;
  /** Its V3 position NFTs. */
  v3Ids: bigint[];
  /** Its V4 positions (salt = the wallet). */
  v4: { pool: PoolInfo; tl: number; tu: number; liq: bigint }[];
  /** Launch tokens it may hold. */
  launchHoldings: Set<Address>;
}

/** A sent tx whose receipt an action waits for in the background. */
export type Pending = { hash: Hex; onReceipt: (r: ReceiptLite) => void };

/** One traffic action: sends (at most a few) transactions of its family. */
export type Action = (g: TrafficGenerator) => Promise<unknown>;

/** The generator's state and sending means (see the module comment). */
export class TrafficGenerator {
  readonly d: DevnetDeployment;
  readonly url: string;
  readonly pick: () => number; // action sequence (deterministic given the seed)
  readonly rnd: () => number; // action parameters
  readonly wallets: Wallet[] = [];
  readonly tokens: TokenInfo[];
  readonly tok = new Map<string, TokenInfo>();
  readonly admin: NonceWallet;
  readonly funders: NonceWallet[];
  nextWalletIndex = 0;
  govOwner: Wallet | null = null;
  govOwnerPending = false;
  openLaunches: Address[] = [];
  graduated: { token: Address; pair?: Address }[] = [];
  pending: Pending[] = [];
  stopped = false;
  sent = 0;
  /** Sends the node refused, by cause (their sum is `refused`). */
  refusedBy: RefusedBy = noRefusals();
  /** Actions that failed before sending anything (a read that reverted, a missing receipt). */
  failedActions = 0;
  /** Top-ups sent so far (wallets funded before they run dry). */
  topUps = 0;
  byAction: Record<string, number> = {};
  bootstrapped = false;
  childBytecode: Hex | null = null;
  lastLogAt = 0;
  launchCounter = 0;
  /** Funding chains made so far (reported in stats so tests can recover them from the index). */
  fundingChains: FundingChainRecord[] = [];
  // --- resilience state (reported to /health through traffic.ts) ---
  state: TrafficState = 'starting';
  since = new Date().toISOString();
  lastError: WorkerState['lastError'] = null;
  restarts = 0;
  setupRedone = 0;
  reorgsDetected = 0;
  /** The newest block seen (number, hash): a different hash at that height later means a reorg. */
  seen: { n: number; hash: Hex } | null = null;
  /** A reorg was seen and its recovery has not completed yet. */
  reorgPending = false;
  /** Symptoms of a lost set-up were seen (calls without code, refusals in a row). */
  suspect = false;
  suspectCheckAt = 0;
  suspectBackoffMs = 2_000;
  refusalsInARow = 0;
  /** The traffic wallet sending from `w`, if it is one (funding-chain hops and dev accounts are not). */
  booked = new Map<NonceWallet, Wallet>();
  /** Last seen mined nonce per sender, for gap detection (see chain.ts `healNonces`). */
  lastMined = new Map<NonceWallet, number>();

  constructor(readonly input: Input) {
    this.d = input.deployment;
    this.pick = prng(input.seed);
    this.rnd = prng(input.seed ^ 0x9e3779b9);
    this.url = input.rpcUrl;
    this.tokens = this.d.tokens;
    for (const t of this.tokens) this.tok.set(t.key, t);
    this.admin = new NonceWallet(devAccount(1), this.url);
    this.funders = [2, 3, 4, 5, 6, 7].map((i) => new NonceWallet(devAccount(i), this.url));
  }

  /** Sends a log line to the parent thread. */
  log(msg: string) {
    parentPort?.postMessage({ type: 'log', msg });
  }

  /** Enters `state` (and reports it) unless already there. */
  setState(state: TrafficState) {
    if (state === this.state) return;
    this.state = state;
    this.since = new Date().toISOString();
    this.postStats();
  }

  /** Reports state and counters to the parent thread (traffic.ts). */
  postStats() {
    const swaps = Object.entries(this.byAction)
      .filter(([k]) => k.includes('swap') || k.startsWith('graduated-'))
      .reduce((n, [, v]) => n + v, 0);
    const state: WorkerState = {
      state: this.state,
      since: this.since,
      lastError: this.lastError,
      swaps,
      restarts: this.restarts,
      setupRedone: this.setupRedone,
      reorgsDetected: this.reorgsDetected,
    };
    parentPort?.postMessage({
      type: 'stats',
      state,
      stats: {
        sent: this.sent,
        sendErrors: this.refused(),
        refusedBy: this.refusedBy,
        failedActions: this.failedActions,
        byAction: this.byAction,
        wallets: this.wallets.length,
        bootstrapped: this.bootstrapped,
        fundingChains: this.fundingChains,
      },
    });
  }

  /** A random element of `xs` (one `rnd` draw). */
  r<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)];
  }
  /** A random number in [lo, hi) (one `rnd` draw). */
  range(lo: number, hi: number) {
    return lo + this.rnd() * (hi - lo);
  }

  /** Sends refused by the node so far (all causes). */
  refused(): number {
    return Object.values(this.refusedBy).reduce((a, b) => a + b, 0);
  }

  /**
   * Sends one tx; counts it; throws only when the node does not answer (see {@link isNodeDown}).
   * A traffic wallet that could not pay the send's worst case is not asked to (null; a top-up is
   * on its way, or its balance is read first); one that falls below {@link LOW_WATER} is topped up.
   */
  async tx(
    label: string,
    w: NonceWallet,
    to: Address | undefined,
    data: Hex,
    gas: bigint,
    value = 0n,
    onReceipt?: (r: ReceiptLite) => void,
  ): Promise<Hex | null> {
    const wallet = this.booked.get(w);
    const cost = worstCaseCost(gas, MAX_FEE_PER_GAS, value);
    if (wallet && !wallet.funds.canPay(cost)) {
      // Not read yet: the next read decides; known and short: a top-up.
      if (wallet.funds.spendable() !== null) await this.topUp(wallet);
      return null;
    }
    const nonce = w.nonce;
    try {
      const hash = await w.send({ to, data, gas, value });
      wallet?.funds.spend(nonce, cost);
      this.sent++;
      this.refusalsInARow = 0;
      this.byAction[label] = (this.byAction[label] ?? 0) + 1;
      if (onReceipt) this.pending.push({ hash, onReceipt });
      if (this.sent % this.input.logEveryTxs === 0) this.logProgress();
      if (wallet && (wallet.funds.spendable() ?? 0n) < LOW_WATER) await this.topUp(wallet);
      return hash;
    } catch (e) {
      if (isNodeDown(e)) throw e;
      const cause = refusalCause((e as Error).message);
      this.refusedBy[cause]++;
      if (++this.refusalsInARow >= REFUSALS_BEFORE_CHECK) {
        this.refusalsInARow = 0;
        this.suspect = true;
      }
      const n = this.refused();
      if (n <= 20 || n % 100 === 0)
        this.log(
          `traffic: ${label} refused by node (${cause}; ${n} so far): ${(e as Error).message.slice(0, 160)}`,
        );
      return null;
    }
  }

  /** One log line of counters: sent, refused, top-ups, wallets, launches, sends by action. */
  logProgress() {
    const top = Object.entries(this.byAction)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    this.log(
      `traffic: sent=${this.sent} refused=${this.refused()} (funds ${this.refusedBy.insufficientFunds}) top-ups=${this.topUps} wallets=${this.wallets.length} launches=${this.openLaunches.length}/${this.graduated.length} | ${top}`,
    );
  }

  /** Sends {@link TOP_UP} to `x` from a funded dev account, unless one is already on its way. */
  async topUp(x: Wallet) {
    if (x.funds.topUpPending) return;
    x.funds.topUpPending = true;
    const from = this.funders[this.topUps++ % this.funders.length];
    const h = await this.tx('top-up', from, x.w.address, '0x', 21_000n, TOP_UP, () => {
      x.funds.topUpPending = false;
      x.funds.touch();
    });
    if (!h) x.funds.topUpPending = false;
  }

  /**
   * Reads the native balance and mined nonce (at one block) of every wallet whose book is due
   * (`all`: every wallet), and tops up those under {@link LOW_WATER}.
   */
  async readFunds(all = false) {
    const due = this.wallets.filter((x) => all || x.funds.needsRead());
    for (let i = 0; i < due.length; i += 50) {
      const part = due.slice(i, i + 50);
      const at = await rpc<Hex>(this.url, 'eth_blockNumber');
      const out = await rpcBatch<Hex>(
        this.url,
        part.flatMap(
          (x): Array<[string, unknown[]]> => [
            ['eth_getBalance', [x.w.address, at]],
            ['eth_getTransactionCount', [x.w.address, at]],
          ],
        ),
      );
      for (const [k, x] of part.entries())
        x.funds.read(BigInt(out[2 * k]), Number(out[2 * k + 1]), x.w.nonce);
    }
    for (const x of due) if ((x.funds.spendable() ?? LOW_WATER) < LOW_WATER) await this.topUp(x);
  }

  /** Makes `xs` active traffic wallets (their funds are read before they send). */
  addWallets(...xs: Wallet[]) {
    for (const x of xs) {
      this.booked.set(x.w, x);
      this.wallets.push(x);
    }
  }

  /** {@link tx} of a contract call: `functionName(...args)` of `abi` on `to`. */
  call(
    label: string,
    w: NonceWallet,
    to: Address,
    abi: Abi | readonly unknown[],
    functionName: string,
    args: unknown[],
    gas: bigint,
    value = 0n,
    onReceipt?: (r: ReceiptLite) => void,
  ) {
    const data = encodeFunctionData({ abi, functionName, args } as never);
    return this.tx(label, w, to, data, gas, value, onReceipt);
  }

  /** Approves `spender` for all of `token` (once per wallet; native ETH needs none). */
  async ensureApproval(wal: Wallet, token: Address, spender: Address) {
    const k = `${token}:${spender}`;
    if (token === zeroAddress || wal.approved.has(k)) return;
    wal.approved.add(k);
    await this.call('approve', wal.w, token, erc20Abi, 'approve', [spender, MAX], 80_000n);
  }

  /** `eth_call` of `functionName(...args)` on `to` at the latest block, decoded. */
  async read<T>(
    to: Address,
    abi: Abi | readonly unknown[],
    functionName: string,
    args: unknown[],
  ): Promise<T> {
    const { decodeFunctionResult } = await import('viem');
    const data = encodeFunctionData({ abi, functionName, args } as never);
    const out = await rpc<Hex>(this.url, 'eth_call', [{ to, data }, 'latest']);
    return decodeFunctionResult({ abi, functionName, data: out } as never) as T;
  }

  /** The next deterministic traffic wallet of the seed (not yet active: see {@link addWallets}). */
  newWallet(): Wallet {
    const acc = trafficAccount(this.input.seed, this.nextWalletIndex++);
    return {
      w: new NonceWallet(acc, this.url),
      funds: new FundsBook(),
      approved: new Set(),
      v3Ids: [],
      v4: [],
      launchHoldings: new Set(),
    };
  }

  /** `usd` dollars of token `t` in its base units. */
  usdAmount(t: TokenInfo, usd: number) {
    return usdToRaw(usd, t.usdPrice, t.decimals);
  }

  /** The deployment's pools of `protocol`. */
  pools(protocol: PoolInfo['protocol']) {
    return this.d.pools.filter((p) => p.protocol === protocol);
  }
  /** The token of `key` ('ETH': V4's native currency). */
  info(key: string): TokenInfo {
    return key === 'ETH' ? NATIVE_ETH : this.tok.get(key)!;
  }
  /** A random active wallet: one with funds to spare when there is one (the others await a top-up). */
  wallet(): Wallet {
    const ready = this.wallets.filter((x) => (x.funds.spendable() ?? 0n) >= LOW_WATER);
    return this.r(ready.length > 0 ? ready : this.wallets);
  }
  /** A random active wallet other than `not` (when there is another). */
  other(not: Wallet): Wallet {
    const o = this.wallet();
    return o === not && this.wallets.length > 1 ? this.other(not) : o;
  }

  /**
   * The common draw of a swap on `protocol`: a pool, a wallet, a direction, and an amount in worth
   * $20 to `maxUsd` of the input token.
   */
  swapDraw(protocol: PoolInfo['protocol'], maxUsd: number) {
    const p = this.r(this.pools(protocol));
    const x = this.wallet();
    const zeroIn = this.rnd() < 0.5;
    const tin = this.info(zeroIn ? p.token0Key : p.token1Key);
    const tout = this.info(zeroIn ? p.token1Key : p.token0Key);
    return { p, x, zeroIn, tin, tout, amountIn: this.usdAmount(tin, this.range(20, maxUsd)) };
  }

  /** The common draw of a liquidity change on `protocol`: a pool and a wallet that approved `spender` for both tokens. */
  async liquidityDraw(protocol: PoolInfo['protocol'], spender: Address) {
    const p = this.r(this.pools(protocol));
    const x = this.wallet();
    const [t0, t1] = [this.info(p.token0Key), this.info(p.token1Key)];
    await this.ensureApproval(x, t0.address, spender);
    await this.ensureApproval(x, t1.address, spender);
    return { p, x, t0, t1 };
  }
}
