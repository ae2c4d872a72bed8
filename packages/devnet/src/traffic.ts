/**
 * Traffic driver: runs the generator (traffic-worker) in a worker thread so the caller's event
 * loop only receives small stats/log messages. When running from TypeScript sources (vitest),
 * the worker gets a tiny module hook that transpiles `.ts` with the `typescript` package.
 */
import type { Worker } from 'node:worker_threads';
import { addRefusals, noRefusals, type RefusedBy } from './funds.js';
import type { SignedTx } from './signer.js';
import { spawnModuleWorker } from './ts-loader.js';
import type { DevnetDeployment, TrafficState, TrafficStatus } from './types.js';

export interface TrafficOptions {
  rpcUrl: string;
  deployment: DevnetDeployment;
  /** The deployment's signed transactions, sent again when a reorg dropped them (may be empty). */
  deploymentTxs?: SignedTx[];
  /** PRNG seed: the sequence of chosen actions and the wallet keys derive from it. */
  seed: number;
  /** Target send rate, txs per second. */
  txPerSecond: number;
  /** Block period of the node, ms (sizes receipt polling). */
  blockTimeMs: number;
  /** Wallets funded at start through multi-hop funding chains (default 24). */
  walletCount?: number;
  /** One compact log line per this many sent txs (default 200). */
  logEveryTxs?: number;
  /** Init code of a small contract for plain-creation txs (compiled `Child`); without it those become forwarder CREATEs. */
  childBytecode?: `0x${string}`;
  log: (msg: string) => void;
}

/**
 * One multi-hop funding chain the generator made: a pool wallet `root` funds fresh wallet
 * `wallets[0]` with native currency and ERC-20 `token`, which forwards part of both to fresh
 * `wallets[1]`, and so on. Each fresh wallet receives nothing before its hop (it joins the pool of
 * active wallets only when its chain ends), so each hop is that wallet's earliest incoming transfer
 * of both assets. `hops` lists the hops sent, in order, with the status of each transaction once
 * known; the chain stops at the first hop whose two transactions did not both succeed.
 */
export interface FundingChainRecord {
  root: string;
  /** ERC-20 forwarded along the chain (lowercase address). */
  token: string;
  /** The fresh wallets, in chain order (lowercase). */
  wallets: string[];
  hops: Array<{
    from: string;
    to: string;
    /** Native value sent, wei (decimal string). */
    native: string;
    /** Token amount sent, base units (decimal string). */
    amount: string;
    nativeTx: string | null;
    tokenTx: string | null;
    /** Receipt statuses; null until the receipt was seen (or when the tx was refused). */
    nativeOk: boolean | null;
    tokenOk: boolean | null;
  }>;
  /** True once every hop's two transactions succeeded. */
  complete: boolean;
  /** True once the chain will send nothing more (complete, or stopped at a failed hop). */
  settled: boolean;
}

export interface TrafficStats {
  /** Txs accepted by the node. */
  sent: number;
  /** Txs the node refused (nonce, balance, fee, gas); the generator resyncs and continues. */
  sendErrors: number;
  /** The same, by cause. */
  refusedBy: RefusedBy;
  /** Actions that failed before sending anything (a read that reverted, …). */
  failedActions: number;
  /** Sent txs per action name. */
  byAction: Record<string, number>;
  /** Wallets currently active. */
  wallets: number;
  /** True once funding chains and airdrops are mined. */
  bootstrapped: boolean;
  /** Multi-hop funding chains made by the `funding-chain` action (native and ERC-20), in order. */
  fundingChains: FundingChainRecord[];
}

/** What the worker reports besides {@link TrafficStats} (see {@link TrafficStatus}). */
export interface WorkerState {
  state: TrafficState;
  since: string;
  lastError: { message: string; at: string } | null;
  swaps: number;
  restarts: number;
  setupRedone: number;
  reorgsDetected: number;
}

export interface TrafficHandle {
  stats(): TrafficStats;
  /** State and counters for /health (never throws). */
  status(): TrafficStatus;
  /** Resolves once bootstrap (funding, airdrops) is mined and random traffic has started. */
  ready: Promise<void>;
  /** Stops the generator for good; `reason` is logged and reported as `stopReason`. */
  stop(reason?: string): Promise<void>;
}

/** How long a stopping worker may take to finish before it is terminated, ms (shutdown has a deadline). */
const STOP_GRACE_MS = 1_000;
/** Backoff before restarting a worker that exited unexpectedly: 1 s doubling to 60 s. */
const WORKER_RESTART_MAX_MS = 60_000;

const emptyStats = (): TrafficStats => ({
  sent: 0,
  sendErrors: 0,
  refusedBy: noRefusals(),
  failedActions: 0,
  byAction: {},
  wallets: 0,
  bootstrapped: false,
  fundingChains: [],
});

/**
 * Starts the generator in a worker thread. The worker retries node failures by itself (see
 * traffic-worker.ts); should it still exit (a bug, out of memory), this logs why and starts a new
 * one after a backoff (1 s doubling to 60 s), counted in `restarts`. `stop()` asks it to finish
 * and terminates it after 1 s; the state is then `stopped` with the reason.
 */
export async function startTraffic(o: TrafficOptions): Promise<TrafficHandle> {
  let stats = emptyStats();
  const now = () => new Date().toISOString();
  let ws: WorkerState = {
    state: 'starting',
    since: now(),
    lastError: null,
    swaps: 0,
    restarts: 0,
    setupRedone: 0,
    reorgsDetected: 0,
  };
  // Counters of earlier workers (a restarted worker counts from zero).
  const base = {
    sent: 0,
    refused: 0,
    refusedBy: noRefusals(),
    failedActions: 0,
    swaps: 0,
    restarts: 0,
    setupRedone: 0,
    reorgsDetected: 0,
  };
  let stopReason: string | null = null;
  let stopping = false;
  let worker: Worker | null = null;
  let exitP: Promise<void> = Promise.resolve();
  let restartTimer: NodeJS.Timeout | null = null;
  let backoffMs = 1_000;
  let readyResolve!: () => void;
  const ready = new Promise<void>((res) => {
    readyResolve = res;
  });
  ready.catch(() => undefined);

  const launch = () => {
    const w = spawnModuleWorker('traffic-worker', {
      rpcUrl: o.rpcUrl,
      deployment: o.deployment,
      deploymentTxs: o.deploymentTxs ?? [],
      seed: o.seed,
      txPerSecond: o.txPerSecond,
      blockTimeMs: o.blockTimeMs,
      walletCount: o.walletCount ?? 24,
      logEveryTxs: o.logEveryTxs ?? 200,
      childBytecode: o.childBytecode ?? null,
    });
    worker = w;
    w.unref();
    let error: Error | null = null;
    w.on('message', (m: { type: string; msg?: string; stats?: TrafficStats; state?: WorkerState }) => {
      if (m.type === 'log' && m.msg) o.log(m.msg);
      else if (m.type === 'stats' && m.stats) {
        stats = m.stats;
        if (m.state) ws = m.state;
        if (stats.bootstrapped) readyResolve();
        if (ws.state === 'running') backoffMs = 1_000;
      }
    });
    w.on('error', (e) => {
      error = e;
      o.log(`traffic: worker error: ${e.stack ?? e.message}`);
    });
    exitP = new Promise<void>((r) =>
      w.once('exit', (code) => {
        worker = null;
        // Fold this worker's counters into the totals before a new one starts from zero.
        base.sent += stats.sent;
        base.refused += stats.sendErrors;
        base.refusedBy = addRefusals(base.refusedBy, stats.refusedBy);
        base.failedActions += stats.failedActions;
        base.swaps += ws.swaps;
        base.restarts += ws.restarts;
        base.setupRedone += ws.setupRedone;
        base.reorgsDetected += ws.reorgsDetected;
        stats = { ...emptyStats(), bootstrapped: stats.bootstrapped, fundingChains: stats.fundingChains };
        ws = { ...ws, swaps: 0, restarts: 0, setupRedone: 0, reorgsDetected: 0 };
        if (stopping) {
          ws = { ...ws, state: 'stopped', since: now() };
          o.log(`traffic: generator stopped (${stopReason})`);
        } else {
          const why = error ? `${error.message}` : `worker exited with code ${code}`;
          ws = { ...ws, state: 'retrying', since: now(), lastError: { message: why, at: now() } };
          base.restarts++;
          o.log(`traffic: generator exited unexpectedly (${why}); restarting it in ${backoffMs} ms`);
          restartTimer = setTimeout(() => {
            restartTimer = null;
            if (!stopping) launch();
          }, backoffMs);
          restartTimer.unref();
          backoffMs = Math.min(backoffMs * 2, WORKER_RESTART_MAX_MS);
        }
        r();
      }),
    );
  };
  launch();

  return {
    stats: () => stats,
    status: () => ({
      state: ws.state,
      since: ws.since,
      stopReason: ws.state === 'stopped' ? stopReason : null,
      lastError: ws.lastError,
      sent: base.sent + stats.sent,
      swaps: base.swaps + ws.swaps,
      refused: base.refused + stats.sendErrors,
      refusedBy: addRefusals(base.refusedBy, stats.refusedBy),
      failedActions: base.failedActions + stats.failedActions,
      restarts: base.restarts + ws.restarts,
      setupRedone: base.setupRedone + ws.setupRedone,
      reorgsDetected: base.reorgsDetected + ws.reorgsDetected,
      wallets: stats.wallets,
    }),
    ready,
    stop: async (reason = 'stop requested (shutdown)') => {
      if (stopping) return exitP;
      stopping = true;
      stopReason = reason;
      if (restartTimer) clearTimeout(restartTimer);
      const w = worker as Worker | null;
      if (!w) {
        ws = { ...ws, state: 'stopped', since: now() };
        o.log(`traffic: generator stopped (${stopReason})`);
        return;
      }
      w.postMessage({ type: 'stop' });
      const t = setTimeout(() => void w.terminate(), STOP_GRACE_MS);
      await exitP;
      clearTimeout(t);
    },
  };
}
