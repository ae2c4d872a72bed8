/**
 * Traffic generator (runs inside a worker thread; see traffic.ts). Sends ~txPerSecond signed
 * txs from a pool of wallets with locally managed nonces and never waits for a receipt on the
 * send path, so each block carries many txs. Receipts are polled in the background only where
 * the generator needs a result (V3 token ids, launch addresses, wallet activation).
 *
 * It keeps going (see {@link Generator.run}): a node that stops answering (connection refused,
 * timeouts) puts it in `retrying` with exponential backoff until the node answers again; a reorg
 * (a block hash it saw changed) or symptoms of a lost set-up (calls answering no data, long runs
 * of refused txs) make it check its set-up — deployment code, wallet funds and airdrops, the
 * ownable token's owner — and redo what is missing before traffic resumes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  type Abi,
  type Address,
  decodeEventLog,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  keccak256,
  toHex,
  zeroAddress,
} from 'viem';
import {
  erc20Abi,
  forwarderAbi,
  launchpadAbi,
  modifyLiquidityTestAbi,
  npmAbi,
  poolSwapTestAbi,
  swapRouterAbi,
  v2PairAbi,
  v2RouterAbi,
  wethAbi,
} from './abis.js';
import { rpc, rpcBatch } from './anvil.js';
import { FundsBook, noRefusals, type RefusedBy, refusalCause, worstCaseCost } from './funds.js';
import {
  alignTick,
  FAR_DEADLINE,
  MAX_SQRT_PRICE_MINUS_1,
  MIN_SQRT_PRICE_PLUS_1,
  NATIVE_ETH,
  usdToRaw,
} from './math.js';
import { prng } from './prng.js';
import {
  codelessCount,
  deployedAddresses,
  devAccount,
  MAX_FEE_PER_GAS,
  NonceWallet,
  type ReceiptLite,
  replayDeployment,
  type SignedTx,
  trafficAccount,
} from './signer.js';
import type { FundingChainRecord, WorkerState } from './traffic.js';
import type { DevnetDeployment, PoolInfo, TokenInfo, TrafficState } from './types.js';

interface Input {
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

const MAX = 2n ** 256n - 1n;
const E18 = 10n ** 18n;
/** A wallet below this native balance after a reorg is funded again (wei). */
const MIN_NATIVE = E18;
/** Longest wait between two attempts to reach the node, ms. */
const MAX_BACKOFF_MS = 30_000;
/** Refused sends in a row after which the set-up is checked (balances may be gone). */
const REFUSALS_BEFORE_CHECK = 100;
/** A wallet whose spendable balance falls below this is topped up (wei): above any one send's worst case. */
const LOW_WATER = 50n * E18;
/** What a top-up sends (wei), from a funded dev account. */
const TOP_UP = 200n * E18;
/** Period of the balance reads behind the top-ups, ms. */
const FUNDS_READ_MS = 2_000;

/**
 * Whether an error means the node did not answer (refused connection, reset, timeout) rather than
 * answering with an error: those are retried with backoff until the node is back.
 */
export function isNodeDown(e: unknown): boolean {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return true;
  const text = `${err?.message ?? ''} ${err?.cause?.code ?? ''} ${err?.cause?.message ?? ''}`;
  return /fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|other side closed|UND_ERR|timed? ?out/i.test(
    text,
  );
}

/** Whether an error says a call found no contract (empty return data): the set-up may be gone. */
const isMissingCode = (e: unknown) => /zero data|returned no data|\(0x\)/i.test((e as Error)?.message ?? '');

const errText = (e: unknown) => {
  const err = e as Error & { cause?: { code?: string } };
  const cause = err?.cause?.code ? ` (${err.cause.code})` : '';
  return `${err?.name && err.name !== 'Error' ? `${err.name}: ` : ''}${err?.message ?? String(e)}${cause}`.slice(
    0,
    300,
  );
};

/** Maps f over xs with at most `width` calls in flight. */
async function pmap<T, R>(xs: readonly T[], f: (x: T) => Promise<R>, width = 32): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < xs.length; i += width) out.push(...(await Promise.all(xs.slice(i, i + width).map(f))));
  return out;
}
const CHILD_ABI = [
  {
    type: 'constructor',
    inputs: [
      { name: 't', type: 'uint256' },
      { name: 'p', type: 'address' },
    ],
    stateMutability: 'payable',
  },
] as const;

interface Wallet {
  w: NonceWallet;
  /** What it can spend, worst case (see funds.ts). */
  funds: FundsBook;
  approved: Set<string>;
  v3Ids: bigint[];
  v4: { pool: PoolInfo; tl: number; tu: number; liq: bigint }[];
  launchHoldings: Set<Address>;
}

type Pending = { hash: Hex; onReceipt: (r: ReceiptLite) => void };

class Generator {
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

  log(msg: string) {
    parentPort?.postMessage({ type: 'log', msg });
  }

  setState(state: TrafficState) {
    if (state === this.state) return;
    this.state = state;
    this.since = new Date().toISOString();
    this.postStats();
  }

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

  r<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)];
  }
  range(lo: number, hi: number) {
    return lo + this.rnd() * (hi - lo);
  }

  /** Sends refused by the node so far (all causes). */
  refused(): number {
    return Object.values(this.refusedBy).reduce((a, b) => a + b, 0);
  }

  /** The traffic wallet sending from `w`, if it is one (funding-chain hops and dev accounts are not). */
  booked = new Map<NonceWallet, Wallet>();

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

  usdAmount(t: TokenInfo, usd: number) {
    return usdToRaw(usd, t.usdPrice, t.decimals);
  }

  // ------------------------------------------------------------------------------- bootstrap
  /**
   * First set-up: the deployment is checked (and replayed if a reorg dropped part of it), the
   * `walletCount` wallets are funded through funding chains and airdropped unless already funded
   * (a reused node), the ownable token's ownership is taken over. The head is recorded before and
   * after each wait: if any of those blocks changed hash by the end, a reorg may have dropped part
   * of it, and the set-up is checked on chain and redone where missing. Restartable: a failed
   * attempt starts over from the same wallets.
   */
  async bootstrap() {
    this.wallets.length = 0;
    this.booked.clear();
    this.nextWalletIndex = 0;
    const refs = [await this.headRef()];
    this.seen = refs[0];
    const replayed = await this.ensureDeployment();
    if (replayed > 0) this.countRedo(`${replayed} deployment tx(s) sent again before bootstrap`);
    await this.syncDevNonces();
    const n = this.input.walletCount;
    const chainLen = 4;
    const chains = Math.ceil(n / chainLen);
    const ws: Wallet[] = [];
    for (let i = 0; i < n; i++) ws.push(this.newWallet());
    await Promise.all(ws.map((x) => x.w.syncNonce()));
    const balances = await Promise.all(
      ws.map((x) => rpc<Hex>(this.url, 'eth_getBalance', [x.w.address, 'latest']).then(BigInt)),
    );
    // Funding chains funder → A → B → C → D (real transfers, so a funding graph can be recovered)
    // on a fresh node; on a reused one, wallets that ran low are topped up directly instead (a
    // chain hop from a wallet that spent its funds would be refused).
    const needsFunding = balances.every((b) => b < 10n * E18);
    if (needsFunding) {
      for (let hop = 0; hop < chainLen; hop++) {
        // Stopped, or a reorg may have dropped the last hop: the set-up check funds what is missing.
        if (this.stopped || this.reorgPending) break;
        const hashes: Hex[] = [];
        for (let c = 0; c < chains; c++) {
          const idx = c * chainLen + hop;
          if (idx >= n) continue;
          const from = hop === 0 ? this.funders[c % this.funders.length] : ws[idx - 1].w;
          const amount = BigInt(100 * (chainLen - hop) + 50) * E18;
          const h = await this.tx('fund', from, ws[idx].w.address, '0x', 21_000n, amount);
          if (h) hashes.push(h);
        }
        await this.waitFor(hashes);
        refs.push(await this.headRef());
      }
      // Airdrop every token (≈ $20k each) from the admin treasury; wrap some ETH.
      if (this.stopped) return;
      const hashes: Hex[] = [];
      for (const x of ws) hashes.push(...(await this.airdrop(x)));
      await this.waitFor(hashes);
      refs.push(await this.headRef());
    }
    this.addWallets(...ws);
    await this.readFunds(true);
    await this.ensureGov();
    this.openLaunches = [];
    this.graduated = [];
    await this.refreshLaunches(true);
    if (!this.reorgPending && (await this.changedSince(refs))) {
      this.reorgsDetected++;
      this.reorgPending = true;
      this.log('traffic: reorg seen during bootstrap; checking the set-up');
    }
    this.seen = await this.headRef();
    if (this.reorgPending) await this.recover({ dropPool: true, forget: true }, 'a reorg during bootstrap');
    this.bootstrapped = true;
    this.postStats();
    this.log(
      `traffic: bootstrapped ${this.wallets.length} wallets (${needsFunding ? 'funded via chains' : 'already funded'}), ${this.openLaunches.length} open launches`,
    );
  }

  /** The ownable token's owner: adopt a known wallet, or take it over from the admin. @returns 1 when ownership was transferred. */
  async ensureGov(): Promise<number> {
    const gov = this.tok.get('GOV');
    this.govOwnerPending = false;
    if (!gov || this.wallets.length === 0) return 0;
    const owner = (await this.read<Address>(gov.address, erc20Abi, 'owner', [])).toLowerCase();
    const known = this.wallets.find((x) => x.w.address.toLowerCase() === owner);
    this.govOwner = known ?? null;
    if (known || owner !== this.admin.address.toLowerCase()) return 0;
    const h = await this.call(
      'gov-transfer-ownership',
      this.admin,
      gov.address,
      erc20Abi,
      'transferOwnership',
      [this.wallets[0].w.address],
      100_000n,
    );
    if (h) await this.waitFor([h]);
    this.govOwner = this.wallets[0];
    return 1;
  }

  // ------------------------------------------------------------------------------ resilience
  async headRef(): Promise<{ n: number; hash: Hex }> {
    const b = await rpc<{ number: Hex; hash: Hex }>(this.url, 'eth_getBlockByNumber', ['latest', false]);
    return { n: Number(b.number), hash: b.hash };
  }

  /** Whether any of the recorded blocks has another hash now (or is gone). */
  async changedSince(refs: { n: number; hash: Hex }[]): Promise<boolean> {
    const now = await pmap(refs, (r) =>
      rpc<{ hash: Hex } | null>(this.url, 'eth_getBlockByNumber', [toHex(r.n), false]),
    );
    return now.some((b, i) => b?.hash !== refs[i].hash);
  }

  /** {@link reorged}, counted and logged; marks a set-up check as due. */
  async noticeReorg(): Promise<boolean> {
    if (!(await this.reorged())) return false;
    this.reorgsDetected++;
    this.reorgPending = true;
    this.log(`traffic: reorg seen (now at block ${this.seen?.n}); checking the set-up`);
    return true;
  }

  /**
   * Whether the chain was reorganised since the last check: the block at the height seen last has
   * another hash now (or the chain is shorter). Records the new head.
   */
  async reorged(): Promise<boolean> {
    const head = await this.headRef();
    const seen = this.seen;
    this.seen = head;
    if (!seen) return false;
    if (head.n < seen.n) return true;
    if (head.n === seen.n) return head.hash !== seen.hash;
    const then = await rpc<{ hash: Hex } | null>(this.url, 'eth_getBlockByNumber', [toHex(seen.n), false]);
    return then?.hash !== seen.hash;
  }

  /**
   * Checks that every deployed contract (protocol contracts, tokens, seeded launches) has code;
   * when a reorg dropped part of the deployment, sends its signed transactions again (same
   * nonces, so the same addresses). @returns the number of transactions sent again.
   * @throws Error when code is missing and cannot be restored.
   */
  async ensureDeployment(): Promise<number> {
    const addrs = deployedAddresses(this.d);
    const missing = () => codelessCount(this.url, addrs);
    const gone = await missing();
    if (gone === 0) return 0;
    if (this.input.deploymentTxs.length === 0)
      throw new Error(
        `${gone} deployed contract(s) have no code (dropped by a reorg?) and no deployment-txs.json to replay; remove the devnet data directory to deploy afresh`,
      );
    this.log(`traffic: ${gone} deployed contract(s) have no code (reorg): sending the deployment again`);
    const n = await replayDeployment(this.url, this.input.deploymentTxs, [devAccount(0), devAccount(1)]);
    const still = await missing();
    if (still > 0) throw new Error(`${still} deployed contract(s) still have no code after the replay`);
    return n;
  }

  /** Loads the admin's and funders' nonces from the node. */
  async syncDevNonces() {
    await Promise.all([this.admin, ...this.funders].map((w) => w.syncNonce()));
  }

  /**
   * Funds again every wallet whose native balance is below {@link MIN_NATIVE} (direct transfer
   * from a funder) and airdrops again every token a wallet holds none of.
   * @returns the number of wallets that needed something.
   */
  async ensureFunds(): Promise<number> {
    const drops = this.tokens.filter((t) => t.kind !== 'weth');
    const natives = await pmap(this.wallets, (x) =>
      rpc<Hex>(this.url, 'eth_getBalance', [x.w.address, 'latest']).then(BigInt),
    );
    const tokenBals = await pmap(
      this.wallets,
      (x) =>
        Promise.all(drops.map((t) => this.read<bigint>(t.address, erc20Abi, 'balanceOf', [x.w.address]))),
      8,
    );
    const hashes: Hex[] = [];
    let touched = 0;
    for (const [i, x] of this.wallets.entries()) {
      let needed = false;
      if (natives[i] < MIN_NATIVE) {
        needed = true;
        const from = this.funders[i % this.funders.length];
        const h = await this.tx('refund', from, x.w.address, '0x', 21_000n, 200n * E18);
        if (h) hashes.push(h);
      }
      for (const [k, t] of drops.entries()) {
        if (tokenBals[i][k] > 0n) continue;
        needed = true;
        const h = await this.airdropToken(x, t);
        if (h) hashes.push(h);
      }
      if (needed) touched++;
      // Keep each unmined batch well under one block's gas.
      if (hashes.length >= 300) await this.waitFor(hashes.splice(0));
    }
    await this.waitFor(hashes);
    return touched;
  }

  /** {@link ensureFunds} until a pass finds nothing missing (3 passes at most). @returns wallets redone. */
  async ensureFundsVerified(): Promise<number> {
    let total = 0;
    for (let pass = 0; pass < 3; pass++) {
      const n = await this.ensureFunds();
      if (n === 0) return total;
      total += n;
    }
    throw new Error('wallet funds still missing after 3 passes');
  }

  countRedo(what: string) {
    this.setupRedone++;
    this.log(`traffic: set-up redone (${this.setupRedone} so far): ${what}`);
    this.postStats();
  }

  /**
   * Forgets what a reorg may have dropped: approvals, V3/V4 positions, launch holdings, receipts
   * being waited for, funding chains in progress; launches are read again from the chain.
   */
  forgetDropped() {
    for (const x of this.wallets) {
      x.funds.forget();
      x.approved.clear();
      x.v3Ids = [];
      x.v4 = [];
      x.launchHoldings.clear();
    }
    this.pending = [];
    this.lastMined.clear();
    for (const rec of this.fundingChains) if (!rec.settled) rec.settled = true;
    this.openLaunches = [];
    this.graduated = [];
  }

  /**
   * Removes this generator's own transactions from the node's pool (admin, funders, wallets):
   * after a reorg, those sent on the dropped branch wait behind nonces the chain no longer
   * reaches. Other senders' pending transactions are left alone.
   */
  async dropOwnPending() {
    const senders = [this.admin, ...this.funders, ...this.wallets.map((x) => x.w)].map((w) => w.address);
    await pmap(senders, (a) => rpc(this.url, 'anvil_removePoolTransactions', [a]).catch(() => undefined));
  }

  /**
   * Checks the set-up and redoes what is missing: deployment code, nonces, wallet funds and
   * airdrops, the ownable token's owner. After a reorg (`dropPool`) its own pending txs are
   * removed first (see {@link dropOwnPending}); with
   * `forget`, derived state a reorg may have invalidated is forgotten. Counts one `setupRedone`
   * when anything had to be redone.
   */
  async recover(o: { dropPool: boolean; forget: boolean }, why: string) {
    this.setState('starting');
    if (o.dropPool) await this.dropOwnPending();
    if (o.forget) this.forgetDropped();
    const reorg = o.forget;
    const replayed = await this.ensureDeployment();
    await this.syncDevNonces();
    await pmap(this.wallets, (x) => x.w.syncNonce());
    const funded = await this.ensureFundsVerified();
    await this.readFunds(true);
    const gov = await this.ensureGov();
    if (reorg || this.openLaunches.length + this.graduated.length === 0) {
      this.openLaunches = [];
      this.graduated = [];
      await this.refreshLaunches(true);
    }
    this.reorgPending = false;
    this.seen = await this.headRef();
    const parts = [
      replayed ? `${replayed} deployment tx(s) sent again` : '',
      funded ? `${funded} wallet(s) funded or airdropped again` : '',
      gov ? 'GOV ownership transferred again' : '',
    ].filter(Boolean);
    if (parts.length > 0) this.countRedo(`${why}: ${parts.join(', ')}`);
    else this.log(`traffic: set-up checked after ${why}: nothing missing`);
  }

  /** ≈ $20k of token `t` to `x`, from the admin's treasury. */
  airdropToken(x: Wallet, t: TokenInfo) {
    return this.call(
      'airdrop',
      this.admin,
      t.address,
      erc20Abi,
      'transfer',
      [x.w.address, this.usdAmount(t, 20_000)],
      120_000n,
    );
  }

  /** {@link airdropToken} of every token but WETH. @returns the hashes of the sends accepted. */
  async airdrop(x: Wallet): Promise<Hex[]> {
    const hashes: Hex[] = [];
    for (const t of this.tokens) {
      const h = t.kind === 'weth' ? null : await this.airdropToken(x, t);
      if (h) hashes.push(h);
    }
    return hashes;
  }

  /**
   * Waits (30 s at most) until every hash has a receipt. Returns early when a reorg is noticed
   * (the txs may be gone for good: the caller's set-up check redoes what is missing).
   */
  async waitFor(hashes: Hex[], timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    const left = new Set(hashes);
    let lastCheck = Date.now();
    while (left.size > 0 && Date.now() < deadline && !this.stopped) {
      if (Date.now() - lastCheck > 1000) {
        lastCheck = Date.now();
        if (await this.noticeReorg()) return;
      }
      const arr = [...left];
      const rs = await Promise.all(
        arr.map((h) =>
          rpc<ReceiptLite | null>(this.url, 'eth_getTransactionReceipt', [h]).catch((e) => {
            if (isNodeDown(e)) throw e;
            return null;
          }),
        ),
      );
      rs.forEach((r, i) => {
        if (r) left.delete(arr[i]);
      });
      if (left.size > 0) await sleep(Math.min(250, this.input.blockTimeMs / 2));
    }
  }

  async pollReceipts() {
    if (this.pending.length === 0) return;
    const batch = this.pending.splice(0, 200);
    const rs = await Promise.all(
      batch.map((p) =>
        rpc<ReceiptLite | null>(this.url, 'eth_getTransactionReceipt', [p.hash]).catch((e) => {
          if (isNodeDown(e)) throw e;
          return null;
        }),
      ),
    );
    rs.forEach((r, i) => {
      if (!r) this.pending.push(batch[i]);
      else {
        try {
          batch[i].onReceipt(r);
        } catch (e) {
          this.log(`traffic: receipt handler failed: ${(e as Error).message}`);
        }
      }
    });
  }

  /** Last seen mined nonce per sender, for gap detection. */
  lastMined = new Map<NonceWallet, number>();

  /**
   * Anvil can drop a tx (e.g. one that does not fit the block being built), which leaves a nonce
   * gap that nothing fills. A sender whose mined nonce did not move since the last check while
   * our local nonce is ahead is reset to the mined nonce.
   */
  async healNonces() {
    const all = [...this.wallets.map((w) => w.w), this.admin];
    const mined = await Promise.all(
      all.map((w) =>
        rpc<Hex>(this.url, 'eth_getTransactionCount', [w.address, 'pending'])
          .then(Number)
          .catch((e) => {
            if (isNodeDown(e)) throw e;
            return -1;
          }),
      ),
    );
    let healed = 0;
    all.forEach((w, i) => {
      const m = mined[i];
      if (m < 0) return;
      // Pending count below our nonce on two checks in a row: txs after a gap sit queued forever.
      if (w.nonce > m && this.lastMined.get(w) === m) {
        w.nonce = m;
        healed++;
      }
      this.lastMined.set(w, w.nonce > m ? m : -1);
    });
    if (healed > 0) this.log(`traffic: reset ${healed} stalled nonce(s) after dropped txs`);
  }

  async refreshLaunches(initial = false) {
    const lp = this.d.launchpad.address;
    if (initial) {
      const n = Number(await this.read<bigint>(lp, launchpadAbi, 'launchesLength', []));
      for (let i = Math.max(0, n - 30); i < n; i++) {
        const t = await this.read<Address>(lp, launchpadAbi, 'launches', [BigInt(i)]);
        this.openLaunches.push(t);
      }
    }
    const still: Address[] = [];
    for (const t of this.openLaunches) {
      const c = await this.read<[bigint, bigint, boolean, Address]>(lp, launchpadAbi, 'curves', [t]);
      if (c[2]) this.graduated.push({ token: t });
      else still.push(t);
    }
    this.openLaunches = still;
  }

  // --------------------------------------------------------------------------------- actions
  pools(protocol: PoolInfo['protocol']) {
    return this.d.pools.filter((p) => p.protocol === protocol);
  }
  info(key: string): TokenInfo {
    return key === 'ETH' ? NATIVE_ETH : this.tok.get(key)!;
  }
  /** A random active wallet: one with funds to spare when there is one (the others await a top-up). */
  wallet(): Wallet {
    const ready = this.wallets.filter((x) => (x.funds.spendable() ?? 0n) >= LOW_WATER);
    return this.r(ready.length > 0 ? ready : this.wallets);
  }
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

  async v2Swap() {
    const { x, tin, tout, amountIn } = this.swapDraw('uniswap-v2', 3000);
    const router = this.d.contracts.uniswapV2Router02;
    const tail = [[tin.address, tout.address], x.w.address, FAR_DEADLINE];
    const ethIn = tin.kind === 'weth' && this.rnd() < 0.6;
    if (!ethIn) await this.ensureApproval(x, tin.address, router);
    const ethOut = !ethIn && tout.kind === 'weth' && this.rnd() < 0.5;
    const label = ethIn ? 'v2-swap-eth-in' : ethOut ? 'v2-swap-eth-out' : 'v2-swap';
    const fn = `swapExact${ethIn ? 'ETH' : 'Tokens'}For${ethOut ? 'ETH' : 'Tokens'}SupportingFeeOnTransferTokens`;
    const [args, value] = ethIn ? [[0n, ...tail], amountIn] : [[amountIn, 0n, ...tail], 0n];
    return this.call(label, x.w, router, v2RouterAbi, fn, args, 300_000n, value);
  }

  async v3Swap() {
    const { p, x, tin, tout, amountIn } = this.swapDraw('uniswap-v3', 5000);
    const router = this.d.contracts.swapRouter;
    const params = {
      tokenIn: tin.address,
      tokenOut: tout.address,
      fee: p.fee,
      recipient: x.w.address,
      deadline: FAR_DEADLINE,
      amountIn,
      amountOutMinimum: 0n,
      sqrtPriceLimitX96: 0n,
    };
    const ethIn = tin.kind === 'weth' && this.rnd() < 0.5;
    if (!ethIn) await this.ensureApproval(x, tin.address, router);
    const [label, value] = ethIn ? ['v3-swap-eth-in', amountIn] : ['v3-swap', 0n];
    return this.call(label, x.w, router, swapRouterAbi, 'exactInputSingle', [params], 350_000n, value);
  }

  key(p: PoolInfo) {
    return {
      currency0: p.token0,
      currency1: p.token1,
      fee: p.fee,
      tickSpacing: p.tickSpacing!,
      hooks: p.hooks ?? zeroAddress,
    };
  }

  async v4Swap() {
    const { p, x, zeroIn: zeroForOne, tin, amountIn } = this.swapDraw('uniswap-v4', 3000);
    const router = this.d.contracts.poolSwapTest;
    const native = tin.address === zeroAddress;
    if (!native) await this.ensureApproval(x, tin.address, router);
    return this.call(
      'v4-swap',
      x.w,
      router,
      poolSwapTestAbi,
      'swap',
      [
        this.key(p),
        {
          zeroForOne,
          amountSpecified: -amountIn,
          sqrtPriceLimitX96: zeroForOne ? MIN_SQRT_PRICE_PLUS_1 : MAX_SQRT_PRICE_MINUS_1,
        },
        { takeClaims: false, settleUsingBurn: false },
        '0x',
      ],
      450_000n,
      native ? amountIn : 0n,
    );
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

  async v2Add() {
    const router = this.d.contracts.uniswapV2Router02;
    const { x, t0, t1 } = await this.liquidityDraw('uniswap-v2', router);
    const usd = this.range(200, 4000);
    const [a0, a1] = [this.usdAmount(t0, usd), this.usdAmount(t1, usd)];
    const args = [t0.address, t1.address, a0, a1, 0n, 0n, x.w.address, FAR_DEADLINE];
    return this.call('v2-add-liquidity', x.w, router, v2RouterAbi, 'addLiquidity', args, 400_000n);
  }

  async v2Remove() {
    const p = this.r(this.pools('uniswap-v2'));
    const x = this.wallet();
    const lp = await this.read<bigint>(p.address, v2PairAbi, 'balanceOf', [x.w.address]);
    if (lp === 0n) return this.v2Add();
    const router = this.d.contracts.uniswapV2Router02;
    await this.ensureApproval(x, p.address, router);
    const share = (lp * BigInt(Math.floor(this.range(20, 100)))) / 100n;
    const args = [p.token0, p.token1, share, 0n, 0n, x.w.address, FAR_DEADLINE];
    return this.call('v2-remove-liquidity', x.w, router, v2RouterAbi, 'removeLiquidity', args, 400_000n);
  }

  async v3Mint() {
    const npm = this.d.contracts.nonfungiblePositionManager;
    const { p, x, t0, t1 } = await this.liquidityDraw('uniswap-v3', npm);
    const slot = await this.read<[bigint, number]>(
      p.address,
      (await import('./abis.js')).v3PoolAbi,
      'slot0',
      [],
    );
    const tick = Number(slot[1]);
    const width = Math.floor(this.range(200, 6000));
    const tl = alignTick(tick - width, p.tickSpacing!);
    const tu = alignTick(tick + width, p.tickSpacing!) + p.tickSpacing!;
    const usd = this.range(200, 5000);
    return this.call(
      'v3-mint',
      x.w,
      npm,
      npmAbi,
      'mint',
      [
        {
          token0: t0.address,
          token1: t1.address,
          fee: p.fee,
          tickLower: tl,
          tickUpper: tu,
          amount0Desired: this.usdAmount(t0, usd),
          amount1Desired: this.usdAmount(t1, usd),
          amount0Min: 0n,
          amount1Min: 0n,
          recipient: x.w.address,
          deadline: FAR_DEADLINE,
        },
      ],
      800_000n,
      0n,
      (r) => {
        if (r.status !== '0x1') return;
        for (const l of r.logs) {
          if (l.address.toLowerCase() !== npm.toLowerCase()) continue;
          try {
            const ev = decodeEventLog({ abi: npmAbi, data: l.data, topics: l.topics as [Hex, ...Hex[]] });
            if (ev.eventName === 'IncreaseLiquidity') x.v3Ids.push(ev.args.tokenId);
          } catch {
            /* Transfer etc. */
          }
        }
      },
    );
  }

  async v3Decrease() {
    const x =
      this.wallets.find((w) => w.v3Ids.length > 0 && this.rnd() < 0.5) ??
      this.wallets.find((w) => w.v3Ids.length > 0);
    if (!x) return this.v3Mint();
    const id = x.v3Ids[Math.floor(this.rnd() * x.v3Ids.length)];
    const pos = await this.read<readonly unknown[]>(
      this.d.contracts.nonfungiblePositionManager,
      npmAbi,
      'positions',
      [id],
    );
    const liq = pos[7] as bigint;
    const npm = this.d.contracts.nonfungiblePositionManager;
    const full = this.rnd() < 0.4 || liq < 1000n;
    const dec = full ? liq : liq / 2n;
    const calls: Hex[] = [];
    if (dec > 0n)
      calls.push(
        encodeFunctionData({
          abi: npmAbi,
          functionName: 'decreaseLiquidity',
          args: [{ tokenId: id, liquidity: dec, amount0Min: 0n, amount1Min: 0n, deadline: FAR_DEADLINE }],
        }),
      );
    calls.push(
      encodeFunctionData({
        abi: npmAbi,
        functionName: 'collect',
        args: [
          { tokenId: id, recipient: x.w.address, amount0Max: 2n ** 128n - 1n, amount1Max: 2n ** 128n - 1n },
        ],
      }),
    );
    if (full) x.v3Ids = x.v3Ids.filter((i) => i !== id);
    return this.call('v3-decrease-collect', x.w, npm, npmAbi, 'multicall', [calls], 500_000n);
  }

  async v4Add() {
    const { p, x, t0, t1 } = await this.liquidityDraw('uniswap-v4', this.d.contracts.poolModifyLiquidityTest);
    // Small full-ish range position around the seeded price: amounts stay well under balances.
    const { amountsFor, liquidityFor, priceToTick, rawPrice } = await import('./math.js');
    const price = rawPrice(t0.usdPrice, t0.decimals, t1.usdPrice, t1.decimals);
    const tick = priceToTick(price);
    const s = p.tickSpacing!;
    const tl = alignTick(tick - 4000 - Math.floor(this.rnd() * 4000), s);
    const tu = alignTick(tick + 4000 + Math.floor(this.rnd() * 4000), s);
    const usd = this.range(100, 2000);
    const liq =
      liquidityFor(price, tl, tu, Number(this.usdAmount(t0, usd)), Number(this.usdAmount(t1, usd))) / 2n;
    if (liq <= 0n) return null;
    const [need0] = amountsFor(price, tl, tu, Number(liq));
    const value = t0.address === zeroAddress ? BigInt(Math.ceil(need0 * 3)) + 10n ** 15n : 0n;
    return this.modifyV4('v4-add-liquidity', x, { pool: p, tl, tu, liq }, value, (r) => {
      if (r.status === '0x1') x.v4.push({ pool: p, tl, tu, liq });
    });
  }

  /** A V4 liquidity change of `x`'s position `pos` (salt = the wallet) by `pos.liq` (negative: removal). */
  modifyV4(
    label: string,
    x: Wallet,
    pos: Wallet['v4'][number],
    value = 0n,
    onReceipt?: (r: ReceiptLite) => void,
  ) {
    const salt = toHex(BigInt(x.w.address), { size: 32 });
    const change = { tickLower: pos.tl, tickUpper: pos.tu, liquidityDelta: pos.liq, salt };
    const router = this.d.contracts.poolModifyLiquidityTest;
    const args = [this.key(pos.pool), change, '0x'];
    return this.call(
      label,
      x.w,
      router,
      modifyLiquidityTestAbi,
      'modifyLiquidity',
      args,
      700_000n,
      value,
      onReceipt,
    );
  }

  async v4Remove() {
    const x =
      this.wallets.find((w) => w.v4.length > 0 && this.rnd() < 0.5) ??
      this.wallets.find((w) => w.v4.length > 0);
    if (!x) return this.v4Add();
    const pos = x.v4.shift()!;
    return this.modifyV4('v4-remove-liquidity', x, { ...pos, liq: -pos.liq });
  }

  async tokenTransfer() {
    const x = this.wallet();
    const to = this.other(x);
    const t = this.r(this.tokens);
    return this.call(
      `transfer-${t.kind}`,
      x.w,
      t.address,
      erc20Abi,
      'transfer',
      [to.w.address, this.usdAmount(t, this.range(1, 500))],
      120_000n,
    );
  }

  async nativeTransfer() {
    const x = this.wallet();
    const to = this.other(x);
    return this.tx(
      'eth-transfer',
      x.w,
      to.w.address,
      '0x',
      21_000n,
      BigInt(Math.floor(this.range(0.01, 2) * 1e6)) * 10n ** 12n,
    );
  }

  async spawnWallet() {
    const x = this.wallet();
    const fresh = this.newWallet();
    return this.tx('fund-new-wallet', x.w, fresh.w.address, '0x', 21_000n, 30n * E18, (r) => {
      if (r.status !== '0x1') return;
      fresh.w.nonce = 0;
      this.addWallets(fresh);
      this.airdrop(fresh).catch((e) =>
        this.log(`traffic: airdrop failed: ${(e as Error).message.slice(0, 200)}`),
      );
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
  async fundingChain() {
    const root = this.wallet();
    const t = this.r(this.tokens.filter((x) => x.kind === 'standard' || x.kind === 'stable'));
    const len = 2 + Math.floor(this.rnd() * 3);
    const fresh = Array.from({ length: len }, () => this.newWallet());
    const natives: bigint[] = [];
    const amounts: bigint[] = [];
    let native = BigInt(len) * 2n * E18 + BigInt(Math.floor(this.rnd() * 1e6)) * 10n ** 12n;
    let amount = this.usdAmount(t, this.range(200, 2000));
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
    this.fundingChains.push(rec);
    const settle = (complete: boolean) => {
      rec.complete = complete;
      rec.settled = true;
      this.addWallets(...fresh.slice(0, rec.hops.length));
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
      h.nativeTx = await this.tx('funding-chain', from.w, to.w.address, '0x', 21_000n, natives[k], (r) => {
        h.nativeOk = r.status === '0x1';
        mined();
      });
      h.tokenTx = await this.call(
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

  async ownerMint() {
    const gov = this.tok.get('GOV')!;
    const o = this.govOwner;
    if (!o || this.govOwnerPending) return this.tokenTransfer();
    if (this.rnd() < 0.15) {
      const next = this.other(o);
      this.govOwnerPending = true;
      return this.call(
        'gov-transfer-ownership',
        o.w,
        gov.address,
        erc20Abi,
        'transferOwnership',
        [next.w.address],
        100_000n,
        0n,
        (r) => {
          this.govOwnerPending = false;
          if (r.status === '0x1') this.govOwner = next;
        },
      );
    }
    return this.call(
      'gov-owner-mint',
      o.w,
      gov.address,
      erc20Abi,
      'mint',
      [this.wallet().w.address, this.usdAmount(gov, this.range(100, 10_000))],
      120_000n,
    );
  }

  async rebase() {
    const t = this.tok.get('RBS')!;
    return this.call(
      'rebase',
      this.admin,
      t.address,
      erc20Abi,
      'rebase',
      [BigInt(1 + Math.floor(this.rnd() * 50))],
      80_000n,
    );
  }

  async revert() {
    const x = this.wallet();
    const kind = Math.floor(this.rnd() * 4);
    const fwd = this.d.contracts.valueForwarder;
    const send = (
      label: string,
      to: Address,
      abi: readonly unknown[],
      fn: string,
      args: unknown[],
      gas: bigint,
      value = 0n,
    ) => this.call(label, x.w, to, abi, fn, args, gas, value);
    if (kind === 0)
      return send('revert-fail', fwd, forwarderAbi, 'fail', ['devnet: deliberate revert'], 60_000n);
    if (kind === 1) {
      const recips = [this.other(x).w.address, this.other(x).w.address];
      return send('revert-split', fwd, forwarderAbi, 'splitThenRevert', [recips], 150_000n, 10n ** 16n);
    }
    if (kind === 2) {
      const t = this.r(this.tokens.filter((t) => t.kind !== 'weth'));
      return send(
        'revert-overdraw',
        t.address,
        erc20Abi,
        'transfer',
        [this.other(x).w.address, 2n ** 200n],
        100_000n,
      );
    }
    const p = this.r(this.pools('uniswap-v2'));
    const weth = this.tok.get('WETH')!;
    const other = p.token0 === weth.address ? p.token1 : p.token1 === weth.address ? p.token0 : null;
    if (!other) return send('revert-fail', fwd, forwarderAbi, 'fail', ['devnet: no pair'], 60_000n);
    const path = [weth.address, other];
    const fn = 'swapExactETHForTokensSupportingFeeOnTransferTokens';
    const router = this.d.contracts.uniswapV2Router02;
    return send(
      'revert-slippage',
      router,
      v2RouterAbi,
      fn,
      [MAX, path, x.w.address, FAR_DEADLINE],
      300_000n,
      10n ** 16n,
    );
  }

  async forwardSplit() {
    const x = this.wallet();
    const n = 2 + Math.floor(this.rnd() * 4);
    const recips = Array.from({ length: n }, () => this.other(x).w.address);
    return this.call(
      'forwarder-split',
      x.w,
      this.d.contracts.valueForwarder,
      forwarderAbi,
      'split',
      [recips],
      60_000n + 40_000n * BigInt(n),
      BigInt(Math.floor(this.range(0.01, 1) * 1e6)) * 10n ** 12n,
    );
  }

  async forwardSpawn() {
    const x = this.wallet();
    const salt =
      this.rnd() < 0.5
        ? `0x${'0'.repeat(64)}`
        : keccak256(toHex(`${x.w.address}:${x.w.nonce}:${this.input.seed}`));
    return this.call(
      'forwarder-spawn',
      x.w,
      this.d.contracts.valueForwarder,
      forwarderAbi,
      'spawn',
      [salt, this.other(x).w.address],
      400_000n,
      10n ** 16n,
    );
  }

  async deploy() {
    const x = this.wallet();
    if (!this.childBytecode) return this.forwardSpawn();
    const data = encodeDeployData({
      abi: CHILD_ABI,
      bytecode: this.childBytecode,
      args: [BigInt(this.sent), this.other(x).w.address],
    });
    return this.tx('contract-deploy', x.w, undefined, data, 400_000n, this.rnd() < 0.5 ? 10n ** 15n : 0n);
  }

  async launch() {
    const x = this.wallet();
    const n = ++this.launchCounter;
    const words = ['Moon', 'Frog', 'Cat', 'Doge', 'Rocket', 'Based', 'Turbo', 'Giga', 'Pixel', 'Laser'];
    const name = `${this.r(words)} ${this.r(words)} ${n}`;
    const symbol = `${name
      .split(' ')
      .map((s) => s[0])
      .join('')}${n}`
      .toUpperCase()
      .slice(0, 10);
    const cid = keccak256(toHex(`${this.input.seed}:${n}`)).slice(2, 48);
    const forms = [
      `ipfs://Qm${cid}`,
      `ipfs://bafy${cid}`,
      `https://ipfs.io/ipfs/Qm${cid}`,
      `https://cdn.launch.example/${cid}.json`,
      `ar://${cid}`,
      `ipfs://ipfs/Qm${cid}`,
      `  https://gateway.pinata.cloud/ipfs/bafy${cid}  `,
    ];
    const value = this.rnd() < 0.5 ? BigInt(Math.floor(this.range(0.01, 0.5) * 1e6)) * 10n ** 12n : 0n;
    const lp = this.d.launchpad.address;
    return this.call(
      'launch-create',
      x.w,
      lp,
      launchpadAbi,
      'createLaunch',
      [name, symbol, this.r(forms), this.r(forms)],
      3_000_000n,
      value,
      (r) => {
        if (r.status !== '0x1') return;
        for (const l of r.logs) {
          if (l.address.toLowerCase() !== lp.toLowerCase()) continue;
          try {
            const ev = decodeEventLog({
              abi: launchpadAbi,
              data: l.data,
              topics: l.topics as [Hex, ...Hex[]],
            });
            if (ev.eventName === 'LaunchCreated') {
              this.openLaunches.push(ev.args.token);
              if (value > 0n) x.launchHoldings.add(ev.args.token);
            }
          } catch {
            /* other events */
          }
        }
      },
    );
  }

  async curveBuy() {
    if (this.openLaunches.length === 0) return this.launch();
    const x = this.wallet();
    // Favour the newest launches so some reach graduation quickly.
    const i = Math.max(
      0,
      this.openLaunches.length - 1 - Math.floor(this.rnd() * Math.min(3, this.openLaunches.length)),
    );
    const token = this.openLaunches[i];
    x.launchHoldings.add(token);
    const value = BigInt(Math.floor(this.range(0.05, 0.8) * 1e6)) * 10n ** 12n;
    return this.call(
      'curve-buy',
      x.w,
      this.d.launchpad.address,
      launchpadAbi,
      'buy',
      [token, 0n],
      4_000_000n,
      value,
    );
  }

  async curveSell() {
    const holders = this.wallets.filter((w) =>
      [...w.launchHoldings].some((t) => this.openLaunches.includes(t)),
    );
    if (holders.length === 0) return this.curveBuy();
    const x = this.r(holders);
    const token = this.r([...x.launchHoldings].filter((t) => this.openLaunches.includes(t)));
    const bal = await this.read<bigint>(token, erc20Abi, 'balanceOf', [x.w.address]);
    if (bal === 0n) return this.curveBuy();
    await this.ensureApproval(x, token, this.d.launchpad.address);
    return this.call(
      'curve-sell',
      x.w,
      this.d.launchpad.address,
      launchpadAbi,
      'sell',
      [token, (bal * BigInt(Math.floor(this.range(20, 90)))) / 100n, 0n],
      200_000n,
    );
  }

  async graduatedSwap() {
    if (this.graduated.length === 0) return this.curveBuy();
    const g = this.r(this.graduated);
    const x = this.wallet();
    const weth = this.tok.get('WETH')!;
    return this.call(
      'graduated-v2-buy',
      x.w,
      this.d.contracts.uniswapV2Router02,
      v2RouterAbi,
      'swapExactETHForTokensSupportingFeeOnTransferTokens',
      [0n, [weth.address, g.token], x.w.address, FAR_DEADLINE],
      300_000n,
      BigInt(Math.floor(this.range(0.01, 0.3) * 1e6)) * 10n ** 12n,
    );
  }

  async wrap() {
    const x = this.wallet();
    const weth = this.tok.get('WETH')!;
    if (this.rnd() < 0.6)
      return this.call(
        'weth-deposit',
        x.w,
        weth.address,
        wethAbi,
        'deposit',
        [],
        80_000n,
        BigInt(Math.floor(this.range(0.1, 3) * 1e6)) * 10n ** 12n,
      );
    return this.call(
      'weth-withdraw',
      x.w,
      weth.address,
      wethAbi,
      'withdraw',
      [BigInt(Math.floor(this.range(0.05, 1) * 1e6)) * 10n ** 12n],
      80_000n,
    );
  }

  /** [weight, action] — the action mix per sent "intent" (approvals come on top, lazily). */
  readonly mix: [number, () => Promise<unknown>][] = [
    [14, () => this.v2Swap()],
    [12, () => this.v3Swap()],
    [12, () => this.v4Swap()],
    [5, () => this.v2Add()],
    [3, () => this.v2Remove()],
    [4, () => this.v3Mint()],
    [3, () => this.v3Decrease()],
    [4, () => this.v4Add()],
    [3, () => this.v4Remove()],
    [9, () => this.tokenTransfer()],
    [6, () => this.nativeTransfer()],
    [1, () => this.spawnWallet()],
    [2, () => this.fundingChain()],
    [3, () => this.ownerMint()],
    [1, () => this.rebase()],
    [4, () => this.revert()],
    [5, () => this.forwardSplit()],
    [3, () => this.forwardSpawn()],
    [2, () => this.deploy()],
    [3, () => this.launch()],
    [9, () => this.curveBuy()],
    [4, () => this.curveSell()],
    [2, () => this.graduatedSwap()],
    [2, () => this.wrap()],
  ];

  async step() {
    const total = this.mix.reduce((s, [w]) => s + w, 0);
    let r = this.pick() * total;
    for (const [w, f] of this.mix) {
      r -= w;
      if (r <= 0) {
        try {
          await f();
        } catch (e) {
          if (isNodeDown(e)) throw e;
          if (isMissingCode(e)) this.suspect = true;
          this.failedActions++;
          this.log(`traffic: action failed: ${(e as Error).message.slice(0, 200)}`);
        }
        return;
      }
    }
  }

  /**
   * Runs until stopped, never giving up: bootstrap, then the send loop. Whatever ends the loop
   * (the node not answering, a failed set-up step) is logged and reported (`retrying`, lastError,
   * restarts); the node is probed with exponential backoff (1 s doubling to 30 s) and, once it
   * answers, the set-up is checked (a reorg or a restarted node may have dropped it) before
   * traffic resumes.
   */
  async run() {
    let backoff = 1_000;
    while (!this.stopped) {
      try {
        this.setState('starting');
        if (!this.bootstrapped) await this.bootstrap();
        else
          await this.recover({ dropPool: this.reorgPending, forget: this.reorgPending }, 'an interruption');
        this.setState('running');
        backoff = 1_000;
        await this.loop();
      } catch (e) {
        if (this.stopped) break;
        this.restarts++;
        this.lastError = { message: errText(e), at: new Date().toISOString() };
        this.setState('retrying');
        const what = isNodeDown(e) ? 'the node does not answer' : 'a step failed';
        this.log(
          `traffic: ${what} (${this.lastError.message}); paused, retrying with backoff from ${backoff} ms`,
        );
        backoff = await this.waitForNode(backoff);
      }
    }
    this.postStats();
  }

  /** Sleeps, probes the node, doubles the wait while it does not answer. @returns the next backoff. */
  async waitForNode(backoff: number): Promise<number> {
    let wait = backoff;
    let tries = 0;
    while (!this.stopped) {
      await sleep(wait);
      if (this.stopped) break;
      try {
        await rpc(this.url, 'eth_blockNumber', [], 2_000);
        if (tries > 0) this.log(`traffic: the node answers again after ${tries + 1} probes; resuming`);
        return Math.min(wait * 2, MAX_BACKOFF_MS);
      } catch (e) {
        tries++;
        this.lastError = { message: errText(e), at: new Date().toISOString() };
        this.postStats();
        if (tries === 1 || wait < MAX_BACKOFF_MS || tries % 10 === 0)
          this.log(
            `traffic: node still unavailable (${this.lastError.message}); next probe in ${Math.min(wait * 2, MAX_BACKOFF_MS)} ms`,
          );
        wait = Math.min(wait * 2, MAX_BACKOFF_MS);
      }
    }
    return wait;
  }

  /** The send loop: returns when stopped, throws when the node stops answering. */
  async loop() {
    const tickMs = 50;
    let budget = 0;
    let last = Date.now();
    let lastPoll = 0;
    let lastLaunchRefresh = Date.now();
    let lastStats = 0;
    let lastHeal = Date.now();
    let lastChainCheck = Date.now();
    let lastFunds = Date.now();
    while (!this.stopped) {
      const now = Date.now();
      budget = Math.min(budget + ((now - last) / 1000) * this.input.txPerSecond, this.input.txPerSecond * 2);
      last = now;
      while (budget >= 1 && !this.stopped) {
        budget -= 1;
        await this.step();
      }
      if (now - lastChainCheck > 1000) {
        lastChainCheck = now;
        if ((await this.noticeReorg()) || this.reorgPending) {
          await this.recover({ dropPool: true, forget: true }, 'a reorg');
          this.setState('running');
        } else if (this.suspect && now >= this.suspectCheckAt) {
          // Calls found no code or sends kept being refused: check the set-up, backing off
          // (2 s doubling to 60 s) while the symptom persists without anything missing.
          this.suspect = false;
          this.suspectCheckAt = now + this.suspectBackoffMs;
          const before = this.setupRedone;
          await this.recover({ dropPool: false, forget: true }, 'calls without code or refused sends');
          this.suspectBackoffMs =
            this.setupRedone > before ? 2_000 : Math.min(this.suspectBackoffMs * 2, 60_000);
          this.setState('running');
        }
      }
      if (now - lastPoll > Math.min(500, this.input.blockTimeMs)) {
        lastPoll = now;
        await this.pollReceipts().catch((e) => {
          if (isNodeDown(e)) throw e;
        });
      }
      if (now - lastLaunchRefresh > 2000) {
        lastLaunchRefresh = now;
        await this.refreshLaunches().catch((e) => {
          if (isNodeDown(e)) throw e;
          if (isMissingCode(e)) this.suspect = true;
        });
      }
      if (now - lastHeal > Math.max(3000, this.input.blockTimeMs * 4)) {
        lastHeal = now;
        await this.healNonces().catch((e) => {
          if (isNodeDown(e)) throw e;
        });
      }
      if (now - lastFunds > FUNDS_READ_MS) {
        lastFunds = now;
        await this.readFunds().catch((e) => {
          if (isNodeDown(e)) throw e;
        });
      }
      if (now - lastStats > 1000) {
        lastStats = now;
        this.postStats();
      }
      await sleep(tickMs);
    }
  }
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

const input = workerData as Input;
const gen = new Generator(input);
gen.childBytecode = input.childBytecode;
// A stray rejection (a background receipt handler) is logged; the generator keeps running.
process.on('unhandledRejection', (e) => gen.log(`traffic: unhandled rejection: ${errText(e)}`));
parentPort?.on('message', (m: { type: string }) => {
  if (m.type === 'stop') gen.stopped = true;
});
gen.run().then(
  () => process.exit(0),
  (e: Error) => {
    // run() catches everything it can retry; this is a bug: traffic.ts logs the exit and restarts.
    gen.log(`traffic: generator crashed: ${e.stack ?? e.message}`);
    process.exit(1);
  },
);
