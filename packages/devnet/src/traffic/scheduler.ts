/**
 * The traffic scheduler: draws the next action from the weighted {@link MIX} (one `pick` draw per
 * step), runs it, and keeps the send loop going at `txPerSecond` — with receipt polling, launch
 * refreshes, nonce healing and funds reads in between — until stopped. It never gives up: an
 * outage of the node puts it in `retrying` with exponential backoff, and a reorg or symptoms of a
 * lost set-up make it check and redo the set-up (setup.ts) before traffic resumes. Sends nothing
 * itself; every transaction comes from the action families.
 */
import { rpc } from '../anvil.js';
import { healNonces, noticeReorg, pollReceipts } from './chain.js';
import { ownerMint, rebase, tokenTransfer } from './erc20.js';
import { revert } from './faults.js';
import { deploy, forwardSpawn, forwardSplit } from './forwarder.js';
import type { Action, TrafficGenerator } from './generator.js';
import { curveBuy, curveSell, graduatedSwap, launch, refreshLaunches } from './launchpad.js';
import { bootstrap, recover } from './setup.js';
import { errText, isMissingCode, isNodeDown, sleep } from './support.js';
import { v2Add, v2Remove, v2Swap } from './uniswap-v2.js';
import { v3Decrease, v3Mint, v3Swap } from './uniswap-v3.js';
import { v4Add, v4Remove, v4Swap } from './uniswap-v4.js';
import { fundingChain, nativeTransfer, spawnWallet, wrap } from './wallets.js';

/** Longest wait between two attempts to reach the node, ms. */
const MAX_BACKOFF_MS = 30_000;
/** Period of the balance reads behind the top-ups, ms. */
const FUNDS_READ_MS = 2_000;

/**
 * [weight, action] — the action mix per sent "intent" (approvals come on top, lazily). The order
 * is part of the seed's traffic: a step walks it with one `pick` draw, so reordering or reweighting
 * changes every seeded run.
 */
export const MIX: readonly [number, Action][] = [
  [14, v2Swap],
  [12, v3Swap],
  [12, v4Swap],
  [5, v2Add],
  [3, v2Remove],
  [4, v3Mint],
  [3, v3Decrease],
  [4, v4Add],
  [3, v4Remove],
  [9, tokenTransfer],
  [6, nativeTransfer],
  [1, spawnWallet],
  [2, fundingChain],
  [3, ownerMint],
  [1, rebase],
  [4, revert],
  [5, forwardSplit],
  [3, forwardSpawn],
  [2, deploy],
  [3, launch],
  [9, curveBuy],
  [4, curveSell],
  [2, graduatedSwap],
  [2, wrap],
];

/** Draws one action of {@link MIX} and runs it; a failure that is not the node's is counted and logged. */
export async function step(g: TrafficGenerator) {
  const total = MIX.reduce((s, [w]) => s + w, 0);
  let r = g.pick() * total;
  for (const [w, f] of MIX) {
    r -= w;
    if (r <= 0) {
      try {
        await f(g);
      } catch (e) {
        if (isNodeDown(e)) throw e;
        if (isMissingCode(e)) g.suspect = true;
        g.failedActions++;
        g.log(`traffic: action failed: ${(e as Error).message.slice(0, 200)}`);
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
export async function run(g: TrafficGenerator) {
  let backoff = 1_000;
  while (!g.stopped) {
    try {
      g.setState('starting');
      if (!g.bootstrapped) await bootstrap(g);
      else await recover(g, { dropPool: g.reorgPending, forget: g.reorgPending }, 'an interruption');
      g.setState('running');
      backoff = 1_000;
      await loop(g);
    } catch (e) {
      if (g.stopped) break;
      g.restarts++;
      g.lastError = { message: errText(e), at: new Date().toISOString() };
      g.setState('retrying');
      const what = isNodeDown(e) ? 'the node does not answer' : 'a step failed';
      g.log(`traffic: ${what} (${g.lastError.message}); paused, retrying with backoff from ${backoff} ms`);
      backoff = await waitForNode(g, backoff);
    }
  }
  g.postStats();
}

/** Sleeps, probes the node, doubles the wait while it does not answer. @returns the next backoff. */
async function waitForNode(g: TrafficGenerator, backoff: number): Promise<number> {
  let wait = backoff;
  let tries = 0;
  while (!g.stopped) {
    await sleep(wait);
    if (g.stopped) break;
    try {
      await rpc(g.url, 'eth_blockNumber', [], 2_000);
      if (tries > 0) g.log(`traffic: the node answers again after ${tries + 1} probes; resuming`);
      return Math.min(wait * 2, MAX_BACKOFF_MS);
    } catch (e) {
      tries++;
      g.lastError = { message: errText(e), at: new Date().toISOString() };
      g.postStats();
      if (tries === 1 || wait < MAX_BACKOFF_MS || tries % 10 === 0)
        g.log(
          `traffic: node still unavailable (${g.lastError.message}); next probe in ${Math.min(wait * 2, MAX_BACKOFF_MS)} ms`,
        );
      wait = Math.min(wait * 2, MAX_BACKOFF_MS);
    }
  }
  return wait;
}

/**
 * After a reorg (or while one is pending) the set-up is checked; otherwise, when calls found no
 * code or sends kept being refused, it is checked too, backing off (2 s doubling to 60 s) while the
 * symptom persists without anything missing.
 */
async function checkChain(g: TrafficGenerator, now: number) {
  if ((await noticeReorg(g)) || g.reorgPending) {
    await recover(g, { dropPool: true, forget: true }, 'a reorg');
    g.setState('running');
  } else if (g.suspect && now >= g.suspectCheckAt) {
    g.suspect = false;
    g.suspectCheckAt = now + g.suspectBackoffMs;
    const before = g.setupRedone;
    await recover(g, { dropPool: false, forget: true }, 'calls without code or refused sends');
    g.suspectBackoffMs = g.setupRedone > before ? 2_000 : Math.min(g.suspectBackoffMs * 2, 60_000);
    g.setState('running');
  }
}

/** Rethrows an outage of the node (which ends the loop); other errors of a background chore are dropped. */
const onlyNodeDown = (e: unknown) => {
  if (isNodeDown(e)) throw e;
};

/** The send loop: returns when stopped, throws when the node stops answering. */
async function loop(g: TrafficGenerator) {
  const tickMs = 50;
  const { txPerSecond, blockTimeMs } = g.input;
  let budget = 0;
  let last = Date.now();
  let lastPoll = 0;
  let lastLaunchRefresh = Date.now();
  let lastStats = 0;
  let lastHeal = Date.now();
  let lastChainCheck = Date.now();
  let lastFunds = Date.now();
  while (!g.stopped) {
    const now = Date.now();
    budget = Math.min(budget + ((now - last) / 1000) * txPerSecond, txPerSecond * 2);
    last = now;
    while (budget >= 1 && !g.stopped) {
      budget -= 1;
      await step(g);
    }
    if (now - lastChainCheck > 1000) {
      lastChainCheck = now;
      await checkChain(g, now);
    }
    if (now - lastPoll > Math.min(500, blockTimeMs)) {
      lastPoll = now;
      await pollReceipts(g).catch(onlyNodeDown);
    }
    if (now - lastLaunchRefresh > 2000) {
      lastLaunchRefresh = now;
      await refreshLaunches(g).catch((e) => {
        onlyNodeDown(e);
        if (isMissingCode(e)) g.suspect = true;
      });
    }
    if (now - lastHeal > Math.max(3000, blockTimeMs * 4)) {
      lastHeal = now;
      await healNonces(g).catch(onlyNodeDown);
    }
    if (now - lastFunds > FUNDS_READ_MS) {
      lastFunds = now;
      await g.readFunds().catch(onlyNodeDown);
    }
    if (now - lastStats > 1000) {
      lastStats = now;
      g.postStats();
    }
    await sleep(tickMs);
  }
}
