/**
 * The traffic generator's set-up and its recovery: the deployment's code (replayed when a reorg
 * dropped it), the wallets' funding (funding chains of native transfers on a fresh node, direct
 * refunds later), the airdrops of every test token from the admin treasury (ERC-20 `transfer`),
 * the ownable token's ownership (`transferOwnership`, `OwnershipTransferred`), the launchpad's
 * open launches. {@link bootstrap} does it first; {@link recover} checks it after a reorg, an
 * outage or symptoms of a lost set-up, and redoes what is missing.
 */
import type { Address, Hex } from 'viem';
import { erc20Abi } from '../abis.js';
import { rpc } from '../anvil.js';
import { codelessCount, deployedAddresses, devAccount, replayDeployment } from '../signer.js';
import type { TokenInfo } from '../types.js';
import { changedSince, headRef, waitFor } from './chain.js';
import { E18, type TrafficGenerator, type Wallet } from './generator.js';
import { refreshLaunches } from './launchpad.js';
import { pmap } from './support.js';

/** A wallet below this native balance after a reorg is funded again (wei). */
const MIN_NATIVE = E18;

/**
 * First set-up: the deployment is checked (and replayed if a reorg dropped part of it), the
 * `walletCount` wallets are funded through funding chains and airdropped unless already funded
 * (a reused node), the ownable token's ownership is taken over. The head is recorded before and
 * after each wait: if any of those blocks changed hash by the end, a reorg may have dropped part
 * of it, and the set-up is checked on chain and redone where missing. Restartable: a failed
 * attempt starts over from the same wallets.
 */
export async function bootstrap(g: TrafficGenerator) {
  g.wallets.length = 0;
  g.booked.clear();
  g.nextWalletIndex = 0;
  const refs = [await headRef(g)];
  g.seen = refs[0];
  const replayed = await ensureDeployment(g);
  if (replayed > 0) countRedo(g, `${replayed} deployment tx(s) sent again before bootstrap`);
  await syncDevNonces(g);
  const n = g.input.walletCount;
  const ws: Wallet[] = [];
  for (let i = 0; i < n; i++) ws.push(g.newWallet());
  await Promise.all(ws.map((x) => x.w.syncNonce()));
  const balances = await Promise.all(
    ws.map((x) => rpc<Hex>(g.url, 'eth_getBalance', [x.w.address, 'latest']).then(BigInt)),
  );
  // Funding chains funder → A → B → C → D (real transfers, so a funding graph can be recovered)
  // on a fresh node; on a reused one, wallets that ran low are topped up directly instead (a
  // chain hop from a wallet that spent its funds would be refused).
  const needsFunding = balances.every((b) => b < 10n * E18);
  if (needsFunding) {
    await fundByChains(g, ws, refs);
    // Airdrop every token (≈ $20k each) from the admin treasury; wrap some ETH.
    if (g.stopped) return;
    const hashes: Hex[] = [];
    for (const x of ws) hashes.push(...(await airdrop(g, x)));
    await waitFor(g, hashes);
    refs.push(await headRef(g));
  }
  g.addWallets(...ws);
  await g.readFunds(true);
  await ensureGov(g);
  g.openLaunches = [];
  g.graduated = [];
  await refreshLaunches(g, true);
  if (!g.reorgPending && (await changedSince(g, refs))) {
    g.reorgsDetected++;
    g.reorgPending = true;
    g.log('traffic: reorg seen during bootstrap; checking the set-up');
  }
  g.seen = await headRef(g);
  if (g.reorgPending) await recover(g, { dropPool: true, forget: true }, 'a reorg during bootstrap');
  g.bootstrapped = true;
  g.postStats();
  g.log(
    `traffic: bootstrapped ${g.wallets.length} wallets (${needsFunding ? 'funded via chains' : 'already funded'}), ${g.openLaunches.length} open launches`,
  );
}

/**
 * Funds fresh wallets `ws` through chains of four: a funder sends to the first, which forwards to
 * the second, and so on, one hop at a time (each waited for; its head is recorded in `refs`).
 */
async function fundByChains(g: TrafficGenerator, ws: Wallet[], refs: { n: number; hash: Hex }[]) {
  const n = ws.length;
  const chainLen = 4;
  const chains = Math.ceil(n / chainLen);
  for (let hop = 0; hop < chainLen; hop++) {
    // Stopped, or a reorg may have dropped the last hop: the set-up check funds what is missing.
    if (g.stopped || g.reorgPending) break;
    const hashes: Hex[] = [];
    for (let c = 0; c < chains; c++) {
      const idx = c * chainLen + hop;
      if (idx >= n) continue;
      const from = hop === 0 ? g.funders[c % g.funders.length] : ws[idx - 1].w;
      const amount = BigInt(100 * (chainLen - hop) + 50) * E18;
      const h = await g.tx('fund', from, ws[idx].w.address, '0x', 21_000n, amount);
      if (h) hashes.push(h);
    }
    await waitFor(g, hashes);
    refs.push(await headRef(g));
  }
}

/** The ownable token's owner: adopt a known wallet, or take it over from the admin. @returns 1 when ownership was transferred. */
async function ensureGov(g: TrafficGenerator): Promise<number> {
  const gov = g.tok.get('GOV');
  g.govOwnerPending = false;
  if (!gov || g.wallets.length === 0) return 0;
  const owner = (await g.read<Address>(gov.address, erc20Abi, 'owner', [])).toLowerCase();
  const known = g.wallets.find((x) => x.w.address.toLowerCase() === owner);
  g.govOwner = known ?? null;
  if (known || owner !== g.admin.address.toLowerCase()) return 0;
  const h = await g.call(
    'gov-transfer-ownership',
    g.admin,
    gov.address,
    erc20Abi,
    'transferOwnership',
    [g.wallets[0].w.address],
    100_000n,
  );
  if (h) await waitFor(g, [h]);
  g.govOwner = g.wallets[0];
  return 1;
}

/**
 * Checks that every deployed contract (protocol contracts, tokens, seeded launches) has code;
 * when a reorg dropped part of the deployment, sends its signed transactions again (same
 * nonces, so the same addresses). @returns the number of transactions sent again.
 * @throws Error when code is missing and cannot be restored.
 */
async function ensureDeployment(g: TrafficGenerator): Promise<number> {
  const addrs = deployedAddresses(g.d);
  const missing = () => codelessCount(g.url, addrs);
  const gone = await missing();
  if (gone === 0) return 0;
  if (g.input.deploymentTxs.length === 0)
    throw new Error(
      `${gone} deployed contract(s) have no code (dropped by a reorg?) and no deployment-txs.json to replay; remove the devnet data directory to deploy afresh`,
    );
  g.log(`traffic: ${gone} deployed contract(s) have no code (reorg): sending the deployment again`);
  const n = await replayDeployment(g.url, g.input.deploymentTxs, [devAccount(0), devAccount(1)]);
  const still = await missing();
  if (still > 0) throw new Error(`${still} deployed contract(s) still have no code after the replay`);
  return n;
}

/** Loads the admin's and funders' nonces from the node. */
async function syncDevNonces(g: TrafficGenerator) {
  await Promise.all([g.admin, ...g.funders].map((w) => w.syncNonce()));
}

/**
 * Funds again every wallet whose native balance is below {@link MIN_NATIVE} (direct transfer
 * from a funder) and airdrops again every token a wallet holds none of.
 * @returns the number of wallets that needed something.
 */
async function ensureFunds(g: TrafficGenerator): Promise<number> {
  const drops = g.tokens.filter((t) => t.kind !== 'weth');
  const natives = await pmap(g.wallets, (x) =>
    rpc<Hex>(g.url, 'eth_getBalance', [x.w.address, 'latest']).then(BigInt),
  );
  const tokenBals = await pmap(
    g.wallets,
    (x) => Promise.all(drops.map((t) => g.read<bigint>(t.address, erc20Abi, 'balanceOf', [x.w.address]))),
    8,
  );
  const hashes: Hex[] = [];
  let touched = 0;
  for (const [i, x] of g.wallets.entries()) {
    let needed = false;
    if (natives[i] < MIN_NATIVE) {
      needed = true;
      const from = g.funders[i % g.funders.length];
      const h = await g.tx('refund', from, x.w.address, '0x', 21_000n, 200n * E18);
      if (h) hashes.push(h);
    }
    for (const [k, t] of drops.entries()) {
      if (tokenBals[i][k] > 0n) continue;
      needed = true;
      const h = await airdropToken(g, x, t);
      if (h) hashes.push(h);
    }
    if (needed) touched++;
    // Keep each unmined batch well under one block's gas.
    if (hashes.length >= 300) await waitFor(g, hashes.splice(0));
  }
  await waitFor(g, hashes);
  return touched;
}

/** {@link ensureFunds} until a pass finds nothing missing (3 passes at most). @returns wallets redone. */
async function ensureFundsVerified(g: TrafficGenerator): Promise<number> {
  let total = 0;
  for (let pass = 0; pass < 3; pass++) {
    const n = await ensureFunds(g);
    if (n === 0) return total;
    total += n;
  }
  throw new Error('wallet funds still missing after 3 passes');
}

/** Counts, logs and reports one redone set-up (`what` was missing). */
function countRedo(g: TrafficGenerator, what: string) {
  g.setupRedone++;
  g.log(`traffic: set-up redone (${g.setupRedone} so far): ${what}`);
  g.postStats();
}

/**
 * Forgets what a reorg may have dropped: approvals, V3/V4 positions, launch holdings, receipts
 * being waited for, funding chains in progress; launches are read again from the chain.
 */
function forgetDropped(g: TrafficGenerator) {
  for (const x of g.wallets) {
    x.funds.forget();
    x.approved.clear();
    x.v3Ids = [];
    x.v4 = [];
    x.launchHoldings.clear();
  }
  g.pending = [];
  g.lastMined.clear();
  for (const rec of g.fundingChains) if (!rec.settled) rec.settled = true;
  g.openLaunches = [];
  g.graduated = [];
}

/**
 * Removes this generator's own transactions from the node's pool (admin, funders, wallets):
 * after a reorg, those sent on the dropped branch wait behind nonces the chain no longer
 * reaches. Other senders' pending transactions are left alone.
 */
async function dropOwnPending(g: TrafficGenerator) {
  const senders = [g.admin, ...g.funders, ...g.wallets.map((x) => x.w)].map((w) => w.address);
  await pmap(senders, (a) => rpc(g.url, 'anvil_removePoolTransactions', [a]).catch(() => undefined));
}

/**
 * Checks the set-up and redoes what is missing: deployment code, nonces, wallet funds and
 * airdrops, the ownable token's owner. After a reorg (`dropPool`) its own pending txs are
 * removed first (see {@link dropOwnPending}); with
 * `forget`, derived state a reorg may have invalidated is forgotten. Counts one `setupRedone`
 * when anything had to be redone.
 */
export async function recover(g: TrafficGenerator, o: { dropPool: boolean; forget: boolean }, why: string) {
  g.setState('starting');
  if (o.dropPool) await dropOwnPending(g);
  if (o.forget) forgetDropped(g);
  const reorg = o.forget;
  const replayed = await ensureDeployment(g);
  await syncDevNonces(g);
  await pmap(g.wallets, (x) => x.w.syncNonce());
  const funded = await ensureFundsVerified(g);
  await g.readFunds(true);
  const gov = await ensureGov(g);
  if (reorg || g.openLaunches.length + g.graduated.length === 0) {
    g.openLaunches = [];
    g.graduated = [];
    await refreshLaunches(g, true);
  }
  g.reorgPending = false;
  g.seen = await headRef(g);
  const parts = [
    replayed ? `${replayed} deployment tx(s) sent again` : '',
    funded ? `${funded} wallet(s) funded or airdropped again` : '',
    gov ? 'GOV ownership transferred again' : '',
  ].filter(Boolean);
  if (parts.length > 0) countRedo(g, `${why}: ${parts.join(', ')}`);
  else g.log(`traffic: set-up checked after ${why}: nothing missing`);
}

/** ≈ $20k of token `t` to `x`, from the admin's treasury. */
function airdropToken(g: TrafficGenerator, x: Wallet, t: TokenInfo) {
  return g.call(
    'airdrop',
    g.admin,
    t.address,
    erc20Abi,
    'transfer',
    [x.w.address, g.usdAmount(t, 20_000)],
    120_000n,
  );
}

/** {@link airdropToken} of every token but WETH. @returns the hashes of the sends accepted. */
export async function airdrop(g: TrafficGenerator, x: Wallet): Promise<Hex[]> {
  const hashes: Hex[] = [];
  for (const t of g.tokens) {
    const h = t.kind === 'weth' ? null : await airdropToken(g, x, t);
    if (h) hashes.push(h);
  }
  return hashes;
}
