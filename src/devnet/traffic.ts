/**
 * Traffic driver: runs the generator (traffic-worker) in a worker thread so the caller's event
 * loop only receives small stats/log messages. When running from TypeScript sources (vitest),
 * the worker gets a tiny module hook that transpiles `.ts` with the `typescript` package.
 */
import { Worker } from 'node:worker_threads';
import type { DevnetDeployment } from './types.js';

export interface TrafficOptions {
  rpcUrl: string;
  deployment: DevnetDeployment;
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
  /** Txs the node refused (nonce/balance); the generator resyncs and continues. */
  sendErrors: number;
  /** Sent txs per action name. */
  byAction: Record<string, number>;
  /** Wallets currently active. */
  wallets: number;
  /** True once funding chains and airdrops are mined. */
  bootstrapped: boolean;
  /** Multi-hop funding chains made by the `funding-chain` action (native and ERC-20), in order. */
  fundingChains: FundingChainRecord[];
}

export interface TrafficHandle {
  stats(): TrafficStats;
  /** Resolves once bootstrap (funding, airdrops) is mined and random traffic has started. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

const LOADER = `
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
let ts;
export async function resolve(spec, ctx, next) {
  if (ctx.parentURL && ctx.parentURL.endsWith('.ts') && spec.startsWith('.') && spec.endsWith('.js')) {
    const url = new URL(spec.slice(0, -3) + '.ts', ctx.parentURL);
    if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true, format: 'module' };
  }
  return next(spec, ctx);
}
export async function load(url, ctx, next) {
  if (url.startsWith('file:') && url.endsWith('.ts')) {
    ts ??= createRequire(url)('typescript');
    const file = fileURLToPath(url);
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false },
    }).outputText;
    return { format: 'module', source: out, shortCircuit: true };
  }
  return next(url, ctx);
}`;

function spawnWorker(workerData: unknown): Worker {
  const fromTs = import.meta.url.endsWith('.ts');
  const url = new URL(fromTs ? './traffic-worker.ts' : './traffic-worker.js', import.meta.url);
  if (!fromTs) return new Worker(url, { workerData });
  const loader = `data:text/javascript,${encodeURIComponent(LOADER)}`;
  const boot = `require('node:module').register(${JSON.stringify(loader)}); import(${JSON.stringify(url.href)}).catch((e) => { console.error(e); process.exit(1); });`;
  return new Worker(boot, { eval: true, workerData, execArgv: [] });
}

/** Starts the generator in a worker thread. `stop()` asks it to finish and terminates it after 5 s. */
export async function startTraffic(o: TrafficOptions): Promise<TrafficHandle> {
  let stats: TrafficStats = {
    sent: 0,
    sendErrors: 0,
    byAction: {},
    wallets: 0,
    bootstrapped: false,
    fundingChains: [],
  };
  const worker = spawnWorker({
    rpcUrl: o.rpcUrl,
    deployment: o.deployment,
    seed: o.seed,
    txPerSecond: o.txPerSecond,
    blockTimeMs: o.blockTimeMs,
    walletCount: o.walletCount ?? 24,
    logEveryTxs: o.logEveryTxs ?? 200,
    childBytecode: o.childBytecode ?? null,
  });
  worker.unref();
  let exited = false;
  const exitP = new Promise<void>((r) =>
    worker.once('exit', () => {
      exited = true;
      r();
    }),
  );
  let readyResolve!: () => void;
  let readyReject!: (e: Error) => void;
  const ready = new Promise<void>((res, rej) => {
    readyResolve = res;
    readyReject = rej;
  });
  ready.catch(() => undefined);
  worker.on('message', (m: { type: string; msg?: string; stats?: TrafficStats }) => {
    if (m.type === 'log' && m.msg) o.log(m.msg);
    else if (m.type === 'stats' && m.stats) {
      stats = m.stats;
      if (stats.bootstrapped) readyResolve();
    }
  });
  worker.on('error', (e) => {
    o.log(`traffic: worker error: ${e.stack ?? e.message}`);
    readyReject(e);
  });
  void exitP.then(() => readyReject(new Error('traffic worker exited')));
  return {
    stats: () => stats,
    ready,
    stop: async () => {
      if (exited) return;
      worker.postMessage({ type: 'stop' });
      const t = setTimeout(() => void worker.terminate(), 5_000);
      await exitP;
      clearTimeout(t);
    },
  };
}
