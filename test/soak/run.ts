/**
 * Reorg and crash soak (issue U): `npm run soak -- --seed N --minutes M [--finality window|tag]
 * [--digest-every K] [--stats FILE] [--keep]`.
 *
 * Set-up, all real processes on loopback:
 *  - `devnet`: the embedded devnet as `npm start` runs it (dist/app/main.js without RPC_URL: anvil,
 *    the real Uniswap V2/V3/V4 deployment, the full traffic generator, its own indexer), on its own
 *    ports and data dir, with DEVNET_KEEP=1 so the node outlives the indexer's stops (a kill -9
 *    leaves it anyway: the node is detached);
 *  - `proxied`: a second indexer reading the same node through the RPC fault proxy
 *    (test/harness/rpc-proxy.ts);
 *  - `late`: a third indexer (TRACES=off) started after a seeded number of bursts, from block 0;
 *  - readers: SSE consumers of every stream topic on `devnet` and `proxied` that resume with
 *    Last-Event-ID after every drop, and route sweeps on every indexer;
 *  - a seeded schedule (test/soak/schedule.ts): a reorg during the traffic set-up, then bursts of
 *    reorgs (depth 1–64; 1–16 with FINALITY=window, whose UNFINALISED_WINDOW is 16) 1–3 s apart,
 *    some sent while an indexer rolls back, kill -9 and restart of the indexers (some mid-rollback),
 *    node faults through the proxy, SSE churn.
 * Odd seeds run with FINALITY=window UNFINALISED_WINDOW=16 (history segments and the hand-over
 * under faults), even seeds with the default finality (`--finality` overrides).
 *
 * After each burst the node is frozen and every indexer, once at the node's head, is checked
 * (test/soak/checks.ts): balances, supplies, pool states against the node at the anchor, the
 * streams' frames against the read routes; every `--digest-every` checks (and at the end) the
 * indexers are stopped and each store's digest is compared table by table with a fresh index of the
 * same chain. On the first divergence the soak stops and prints the seed, the first diverging row,
 * the block range and the schedule steps that led to it, keeps its work dir, and exits 1.
 * The figures of the run (reorgs, restarts, faults, checks) are printed as one JSON line, and
 * appended to `--stats` (test/soak/report.ts turns those lines into test/faults/SOAK.md).
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAnvil } from '@chain-indexer/devnet/anvil';
import { dumpStacks } from '../harness/anvil.js';
import { freePortRun } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { mulberry32, type RpcProxy, startRpcProxy } from '../harness/rpc-proxy.js';
import {
  checkLaunchFrames,
  checkPools,
  checkStreams,
  checkTokens,
  confirm,
  type Divergence,
  emptyResult,
  merge,
} from './checks.js';
import { freeze, hashAt, headOf, NodeHung, NodeRpcError, rpc, thaw } from './node.js';
import { createSchedule, describeStep, type Step, type Target } from './schedule.js';
import { type Consumer, STREAMS, startConsumer } from './streams.js';
import { compareDigests, type Reference, refDigest, waitLog } from './support.js';
import { type Sweeper, startSweeper } from './sweep.js';

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
if (!arg('--seed')) {
  process.stderr.write(
    'usage: npm run soak -- --seed N [--minutes M] [--finality window|tag] [--digest-every K] [--stats FILE] [--keep]\n',
  );
  process.exit(2);
}
const SEED = Number(arg('--seed'));
const MINUTES = Number(arg('--minutes') ?? 16);
const FINALITY = (arg('--finality') ?? (SEED % 2 === 1 ? 'window' : 'tag')) as 'window' | 'tag';
const DIGEST_EVERY = Number(arg('--digest-every') ?? 1);
const WINDOW = FINALITY === 'window' ? 16 : 128;
const CHAIN = 'devnet';
const STREAM_KEY = 'soak-streams-key';
/** anvil dev accounts 8 and 9 (the traffic generator funds from 2–7): senders of reorg replacements. */
const DEV = ['0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f', '0xa0ee7a142d267c1f36714e4a8f75612f20a79720'];

/** A failure that ends the soak: what it was and the row, range and detail that show it. */
class SoakFailure extends Error {
  constructor(
    readonly kind: 'divergence' | 'contract' | 'stream' | 'stuck' | 'node_hung' | 'node_died' | 'crash',
    message: string,
    readonly divergence?: Divergence,
  ) {
    super(message);
  }
}

const t0 = Date.now();
const elapsed = () => (Date.now() - t0) / 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const work = arg('--work') ?? join(tmpdir(), `soak-${SEED}-${process.pid}`);
mkdirSync(work, { recursive: true });
const rand = mulberry32(SEED ^ 0x5eed);

/** The executed steps with the heights seen: the reproduction. */
const steps: Array<{ t: number; node: number | null; heads: Record<string, number | null>; step: string }> =
  [];
const counters = {
  reorgs: 0,
  reorgDepths: [] as number[],
  kills: 0,
  killsMidRollback: 0,
  reorgsMidRollback: 0,
  stops: 0,
  faultWindows: 0,
  nodeRestarts: 0,
  staleWindows: 0,
  sseChurns: 0,
  checks: 0,
  digests: 0,
  /** Mismatches the node took back when asked again about the same block (checks.ts confirm). */
  nodeRaces: 0,
  made: {} as Record<string, number>,
};

interface Ix {
  name: Target;
  idx: IndexerProcess;
  dir: string;
  logFile: string;
}
const ixs = new Map<Target, Ix>();
const consumers: Consumer[] = [];
const sweepers: Sweeper[] = [];
let devUrl = '';
/** Node stalls the watchdog saw: eth_blockNumber unanswered for 5 s or more (count, longest ms). */
const stalls = { count: 0, longestMs: 0 };
let watchdog: NodeJS.Timeout | null = null;
let watchdogStopped = false;

/** Probes the node every 2 s; an answer 5 s or more late is a stall (recorded, not a failure). */
function startWatchdog(): void {
  const probe = async () => {
    const t = Date.now();
    await rpc(devUrl, 'eth_blockNumber', [], 600_000).catch(() => undefined);
    const ms = Date.now() - t;
    if (ms >= 5_000) {
      stalls.count++;
      stalls.longestMs = Math.max(stalls.longestMs, ms);
      process.stdout.write(
        `[${elapsed().toFixed(1)} s] node stall: eth_blockNumber answered after ${ms} ms\n`,
      );
    }
    if (!watchdogStopped) watchdog = setTimeout(() => void probe(), 2_000);
  };
  void probe();
}
let proxy: RpcProxy;
const timers = new Set<NodeJS.Timeout>();
/** Ends a fault window after `ms` (cleared with the others when the run stops). */
const undoAfter = (ms: number, undo: () => void) => timers.add(setTimeout(undo, ms));

const indexedHead = async (x: Ix): Promise<number | null> =>
  x.idx.port
    ? ((await x.idx.get('/checkpoints', { timeoutMs: 3_000 }).catch(() => null))?.body?.anchor?.block ?? null)
    : null;

async function note(step: string): Promise<void> {
  const heads: Record<string, number | null> = {};
  for (const [n, x] of ixs) heads[n] = await indexedHead(x);
  const node = await headOf(devUrl).catch(() => null);
  steps.push({ t: Math.round(elapsed() * 10) / 10, node, heads, step });
  const line = `[${elapsed().toFixed(1)} s] node ${node} ${JSON.stringify(heads)} ${step}\n`;
  process.stdout.write(line);
  appendFileSync(join(work, 'steps.log'), line);
}

/** Sends anvil_reorg of `depth` (capped below the head) with replacement transfers; returns the depth. */
async function reorg(depth: number, txs: number): Promise<number> {
  const head = await headOf(devUrl);
  const d = Math.max(1, Math.min(depth, head - 1));
  const reps = Array.from({ length: txs }, (_, i) => [
    { from: DEV[i % 2], to: DEV[(i + 1) % 2], value: `0x${(1 + Math.floor(rand() * 1e9)).toString(16)}` },
    Math.floor(rand() * d),
  ]);
  await rpc(devUrl, 'anvil_reorg', [d, reps]);
  counters.reorgs++;
  counters.reorgDepths.push(d);
  return d;
}

const env = (extra: Record<string, string>) => ({
  LOG_LEVEL: 'info',
  KEYS_FILE: join(work, 'keys.json'),
  // The node-consistency check (ingest/node-check.ts) every 5 s: under node faults and reorgs it
  // must not take a fault or a reorg for a node that contradicts itself.
  NODE_CHECK_INTERVAL_MS: '5000',
  ...(FINALITY === 'window' ? { FINALITY: 'window', UNFINALISED_WINDOW: String(WINDOW) } : {}),
  ...extra,
});

/** The markets and launchpad files of the devnet's deployment (what the embedded devnet derives). */
function deploymentEnv(): Record<string, string> {
  const dep = JSON.parse(readFileSync(join(work, 'devnet', 'devnet', 'deployment.json'), 'utf8'));
  const c = dep.contracts;
  const stables = dep.tokens.filter((t: any) => t.kind === 'stable').map((t: any) => t.address.toLowerCase());
  const weth = dep.tokens.filter((t: any) => t.kind === 'weth').map((t: any) => t.address.toLowerCase());
  writeFileSync(
    join(work, 'markets.json'),
    JSON.stringify({
      v2Factories: [c.uniswapV2Factory],
      v3Factories: [c.uniswapV3Factory],
      v4Managers: [c.poolManager],
      usdStablecoins: stables,
      quoteAssets: [...stables, ...weth, '0x0000000000000000000000000000000000000000'],
    }),
  );
  const pad = dep.launchpad;
  writeFileSync(
    join(work, 'launchpads.json'),
    JSON.stringify({
      'devnet-pad': {
        [CHAIN]: {
          factories: [pad.address],
          curve: pad.address,
          graduationTargetWei: pad.graduationTargetWei,
        },
      },
    }),
  );
  return { MARKETS_FILE: join(work, 'markets.json'), LAUNCHPADS_FILE: join(work, 'launchpads.json') };
}

/** Tokens whose balances move without Transfer events by design (not checked against balanceOf). */
function oddTokens(): Set<string> {
  const dep = JSON.parse(readFileSync(join(work, 'devnet', 'devnet', 'deployment.json'), 'utf8'));
  return new Set(
    dep.tokens
      .filter((t: any) => t.kind === 'fee-on-transfer' || t.kind === 'rebasing')
      .map((t: any) => t.address.toLowerCase()),
  );
}

async function launch(name: Target, rpcUrl: string | null, extra: Record<string, string>): Promise<Ix> {
  const dir = join(work, name);
  const logFile = join(work, `${name}.log`);
  const idx = await startIndexer({
    rpcUrl: rpcUrl ?? undefined,
    chain: CHAIN,
    dataDir: dir,
    logFile,
    env: env(rpcUrl === null ? { ...extra, RPC_URL: '' } : extra),
    startTimeoutMs: 240_000,
  });
  const x = { name, idx, dir, logFile };
  ixs.set(name, x);
  return x;
}

/**
 * The store generation of `x` (the namespace of its stream ids), read from the first id of its
 * heads stream (retried until the indexer has committed a block and serves streams).
 */
async function generationOf(x: Ix): Promise<string> {
  for (const t1 = Date.now(); Date.now() - t1 < 180_000; await sleep(500)) {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), 5_000);
    try {
      const res = await fetch(
        `http://127.0.0.1:${x.idx.port}/index/v1/${CHAIN}/stream/heads?after_sequence=0`,
        {
          headers: { 'x-api-key': STREAM_KEY },
          signal: ctl.signal,
        },
      );
      if (res.status !== 200) continue;
      const reader = res.body!.getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += new TextDecoder().decode(value);
        const m = /id: v1\.heads-([0-9a-f]+)\.\d+/.exec(buf);
        if (m) return m[1];
      }
    } catch {
      // not serving yet, or no frame within 5 s: again
    } finally {
      clearTimeout(timer);
      ctl.abort();
    }
  }
  throw new Error(`${x.name}: no stream id within 180 s`);
}

async function follow(x: Ix): Promise<void> {
  const gen = await generationOf(x);
  for (const s of STREAMS)
    consumers.push(
      startConsumer({
        name: `${x.name}:${s.topic}`,
        idx: x.idx,
        chain: CHAIN,
        key: STREAM_KEY,
        ...s,
        fromStartOf: gen,
      }),
    );
  sweepers.push(startSweeper(x.name, x.idx, mulberry32(SEED + sweepers.length + 1)));
}

/** A kill -9 of `x` and its restart on the same data dir after `downMs`. */
async function killRestart(x: Ix, downMs: number): Promise<void> {
  await x.idx.kill9();
  counters.kills++;
  await sleep(downMs);
  await x.idx.restart();
}

/** Sends a reorg and waits for `x` to log its rollback (false: not seen within 15 s). */
async function reorgAndSeeRollback(
  x: Ix,
  depth: number,
  txs: number,
): Promise<{ depth: number; seen: boolean }> {
  const from = logSize(x);
  const d = await reorg(depth, txs);
  return { depth: d, seen: await waitLog(x.logFile, 'reorg: rolling back', from, 15_000) };
}
const logSize = (x: Ix) => {
  try {
    return readFileSync(x.logFile).length;
  } catch {
    return 0;
  }
};

/** Runs one step of a burst. */
async function runStep(s: Step): Promise<void> {
  const target = (t: Target) => ixs.get(t) ?? ixs.get('devnet')!;
  switch (s.kind) {
    case 'pause':
      await sleep(s.ms);
      return;
    case 'reorg': {
      const d = await reorg(s.depth, s.txs);
      await note(`${describeStep(s)} → depth ${d}`);
      return;
    }
    case 'reorg_during_rollback': {
      const first = await reorgAndSeeRollback(target(s.target), s.depth, s.txs);
      const d2 = await reorg(s.second, s.txs);
      if (first.seen) counters.reorgsMidRollback++;
      await note(
        `${describeStep(s)} → depths ${first.depth}, ${d2}${first.seen ? '' : ' (rollback not seen within 15 s: sent anyway)'}`,
      );
      return;
    }
    case 'kill': {
      await killRestart(target(s.target), s.downMs);
      await note(describeStep(s));
      return;
    }
    case 'kill_during_rollback': {
      const x = target(s.target);
      const r = await reorgAndSeeRollback(x, s.depth, s.txs);
      if (s.delayMs) await sleep(s.delayMs);
      await killRestart(x, 0);
      if (r.seen) counters.killsMidRollback++;
      await note(`${describeStep(s)} → depth ${r.depth}${r.seen ? '' : ' (rollback not seen within 15 s)'}`);
      return;
    }
    case 'node_faults':
      proxy.schedule({ seed: s.seed, rate: s.rate, maxDelayMs: 1_000 });
      counters.faultWindows++;
      undoAfter(s.ms, () => proxy.schedule(null));
      await note(describeStep(s));
      return;
    case 'node_restart':
      counters.nodeRestarts++;
      void proxy.restartUpstream(s.ms).catch(() => undefined);
      await note(describeStep(s));
      return;
    case 'stale_head':
      proxy.setStaleHead(Math.max(0, (await headOf(devUrl)) - s.lag));
      counters.staleWindows++;
      undoAfter(s.ms, () => proxy.setStaleHead(null));
      await note(describeStep(s));
      return;
    case 'sse_churn':
      for (let i = 0; i < s.count && consumers.length; i++)
        consumers[Math.floor(rand() * consumers.length)].churn();
      counters.sseChurns += s.count;
      await note(describeStep(s));
      return;
  }
}

/** Ends every fault window now (checks read a node that answers truthfully). */
function calm(): void {
  for (const t of timers) clearTimeout(t);
  timers.clear();
  proxy.schedule(null);
  proxy.setStaleHead(null);
}

/** Waits until every consumer of `x` holds its topic's last sequence as /health reads it now. */
async function streamsCaughtUp(x: Ix): Promise<void> {
  const mine = consumers.filter((c) => c.name.startsWith(`${x.name}:`));
  const h = (await x.idx.get('/health')).body;
  const last = new Map<string, number>((h.streams?.topics ?? []).map((t: any) => [t.topic, t.lastSequence]));
  for (const t1 = Date.now(); ; ) {
    const behind = mine.filter((c) => c.lastSeq() < (last.get(c.topic) ?? 0));
    if (!behind.length) return;
    if (Date.now() - t1 > 60_000)
      throw new SoakFailure(
        'stream',
        `${x.name}: consumers behind after 60 s: ${behind.map((c) => `${c.name} ${c.lastSeq()}/${last.get(c.topic)}`).join(', ')}`,
      );
    await sleep(200);
  }
}

let prevCheckHead = -1;
const refs = new Map<string, Reference>();
const consumersOf = (x: Ix) => consumers.filter((c) => c.name.startsWith(`${x.name}:`));

/** Ends the soak on the check's divergences and on what the readers found (contract, streams). */
function verdict(res: ReturnType<typeof emptyResult>): void {
  for (const [k, v] of Object.entries(res.made)) counters.made[k] = (counters.made[k] ?? 0) + v;
  if (res.divergences.length) {
    writeFileSync(join(work, 'divergences.json'), JSON.stringify(res.divergences, null, 1));
    throw new SoakFailure(
      'divergence',
      `${res.divergences.length} divergences (all in ${join(work, 'divergences.json')})`,
      res.divergences[0],
    );
  }
  const problems = [...consumers.flatMap((c) => c.problems()), ...sweepers.flatMap((s) => s.problems())];
  if (problems.length)
    throw new SoakFailure(
      problems[0].includes('breaks') || problems[0].includes('ContractViolation') ? 'contract' : 'stream',
      problems.slice(0, 5).join('\n'),
    );
}

/**
 * One check round (see the file comment). State and streams are checked while the node keeps
 * mining (at each response's anchor, streams up to a block every indexer holds): a frozen node
 * would pile the traffic generator's transactions up into one huge block. The node is frozen for
 * the rest: convergence of every lane, the launch frames, the digests.
 */
async function check(final: boolean): Promise<void> {
  calm();
  counters.checks++;
  const t = { start: Date.now(), converged: 0, state: 0, streams: 0, digest: 0 };
  const H0 = await headOf(devUrl);
  await note(`check ${counters.checks}: state and streams up to block ${H0}`);
  for (const x of ixs.values()) {
    try {
      await x.idx.waitForHead(H0 + 1, x.name === 'late' ? 600_000 : 240_000);
    } catch (err) {
      throw new SoakFailure(
        'stuck',
        `${x.name} did not reach block ${H0 + 1}: ${(err as Error).message.slice(0, 3000)}`,
      );
    }
  }
  t.converged = Date.now();
  const skip = oddTokens();
  const state = emptyResult();
  for (const x of ixs.values()) {
    merge(state, await checkTokens(x.name, x.idx, devUrl, skip));
    merge(state, await checkPools(x.name, x.idx, devUrl));
  }
  const res = await confirm(state, () => headOf(devUrl));
  for (const d of res.nodeRaces ?? []) {
    counters.nodeRaces++;
    await note(
      `node race (not a divergence): ${d.row} at block ${d.block}: index ${d.index}, node ${d.truth}`,
    );
  }
  res.nodeRaces = [];
  t.state = Date.now();
  const from = Math.max(0, prevCheckHead - 64);
  for (const x of ixs.values()) {
    if (!consumersOf(x).length) continue;
    await streamsCaughtUp(x);
    merge(res, await checkStreams(x.name, x.idx, consumersOf(x), from, H0));
  }
  t.streams = Date.now();
  verdict(res);
  const H = await freeze(devUrl);
  const hash = (await hashAt(devUrl, H))!;
  await note(`check ${counters.checks}: node frozen at ${H}`);
  const { waitConverged } = await import('../faults/lib.js');
  for (const x of ixs.values()) {
    try {
      await waitConverged(x.idx, H, hash, x.name === 'late' ? 600_000 : 240_000);
    } catch (err) {
      throw new SoakFailure(
        'stuck',
        `${x.name} did not converge on ${H} ${hash}: ${(err as Error).message.slice(0, 3000)}`,
      );
    }
  }
  const frozen = emptyResult();
  for (const x of ixs.values()) {
    if (!consumersOf(x).length) continue;
    await streamsCaughtUp(x);
    merge(frozen, await checkLaunchFrames(x.name, x.idx, consumersOf(x), from));
  }
  verdict(frozen);
  if (final || counters.checks % DIGEST_EVERY === 0) await digestRound(H, hash, final);
  t.digest = Date.now();
  for (const c of consumers) c.prune(H - 64);
  prevCheckHead = H;
  await thaw(devUrl, 1);
  const s = (a: number, b: number) => Math.round((b - a) / 100) / 10;
  await note(
    `check ${counters.checks} passed in ${s(t.start, t.digest)} s (reach ${s(t.start, t.converged)}, state ${s(t.converged, t.state)}, ` +
      `streams ${s(t.state, t.streams)}, freeze and digests ${s(t.streams, t.digest)}): ${JSON.stringify({ ...res.made, ...frozen.made })}`,
  );
}

/** Stops every indexer, compares each store with a fresh index of the chain, restarts them. */
async function digestRound(H: number, hash: string, final: boolean): Promise<void> {
  counters.digests++;
  for (const x of ixs.values()) {
    await x.idx.stop();
    counters.stops++;
  }
  for (const x of ixs.values()) {
    const refName = x.name === 'late' ? 'traces-off' : 'traces-on';
    let ref = refs.get(refName);
    if (!ref) {
      ref = {
        name: refName,
        dir: join(work, `ref-${refName}`),
        head: null,
        env: env({ ...deploymentEnv(), ...(x.name === 'late' ? { TRACES: 'off' } : {}) }),
      };
      refs.set(refName, ref);
    }
    const want = await refDigest(ref, devUrl, CHAIN, H, hash, final, join(work, `ref-${refName}.log`));
    const d = await compareDigests(x.dir, ref.dir, want);
    counters.made.digest_tables = (counters.made.digest_tables ?? 0) + d.tables;
    if (d.first)
      throw new SoakFailure(
        'divergence',
        `${x.name} store differs from a fresh index (tables ${d.differing.join(', ')})`,
        {
          check: 'digest',
          indexer: x.name,
          block: H,
          row: `table ${d.first.table} key ${d.first.key}`,
          index: String(d.first.a).slice(0, 800),
          truth: `fresh index: ${String(d.first.b).slice(0, 800)}`,
        },
      );
  }
  // The devnet's indexer first: it reuses its node (and restarts the traffic generator).
  for (const n of ['devnet', 'proxied', 'late'] as const) await ixs.get(n)?.idx.restart();
}

async function main(): Promise<void> {
  writeFileSync(
    join(work, 'keys.json'),
    JSON.stringify([{ name: 'soak-streams', key: STREAM_KEY, scopes: ['read', 'stream'], maxStreams: 64 }]),
  );
  const port = await freePortRun(1);
  devUrl = `http://127.0.0.1:${port}`;
  const schedule = createSchedule(SEED, { maxDepth: Math.min(64, WINDOW) });
  process.stdout.write(
    `soak seed ${SEED}, ${MINUTES} min, FINALITY=${FINALITY} (window ${WINDOW}), work dir ${work}\n`,
  );
  const dev = await launch('devnet', null, {
    DEVNET_PORT: String(port),
    DEVNET_KEEP: '1',
    DEVNET_SEED: String(SEED % 1000),
    SCANNER: 'off',
    POLL_MS: '100',
  });
  await note('devnet up: embedded devnet deployed, traffic set-up starting');
  startWatchdog();
  proxy = await startRpcProxy({ upstream: devUrl });
  const dep = deploymentEnv();
  const proxied = await launch('proxied', proxy.url, { ...dep, WS_URL: 'off', DECODE_THREADS: '1' });
  await follow(dev);
  await follow(proxied);
  // The set-up reorg: while the traffic generator funds its wallets and airdrops.
  const depBlock = JSON.parse(
    readFileSync(join(work, 'devnet', 'devnet', 'deployment.json'), 'utf8'),
  ).deployedAtBlock;
  while ((await headOf(devUrl)) < depBlock + schedule.setupReorg.afterBlocks) await sleep(100);
  const traffic = (await dev.idx.get('/health')).body.devnet?.traffic?.state;
  const d = await reorg(schedule.setupReorg.depth, schedule.setupReorg.txs);
  await note(`set-up reorg depth ${d} (traffic generator ${traffic})`);
  await check(false);
  let lateStarted = false;
  while (elapsed() < MINUTES * 60) {
    const burst = schedule.next(lateStarted);
    await note(
      `burst ${burst.index}: quiet ${burst.quietMs} ms, ${burst.steps.filter((s) => s.kind !== 'pause').length} steps`,
    );
    await sleep(burst.quietMs);
    for (const s of burst.steps) await runStep(s);
    await sleep(2_000);
    await check(false);
    if (!lateStarted && burst.index >= schedule.lateStartAfterBurst) {
      const late = await launch('late', devUrl, { ...deploymentEnv(), TRACES: 'off', DECODE_THREADS: '1' });
      sweepers.push(startSweeper('late', late.idx, mulberry32(SEED + 99)));
      lateStarted = true;
      await note('late indexer started (TRACES=off, from block 0)');
    }
  }
  await check(true);
}

/** Node faults each indexer logged (ingest/node-check.ts), and pauses they caused. */
function nodeFaultsLogged(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of ixs.values()) {
    try {
      out[x.name] =
        readFileSync(x.logFile, 'utf8').split('node fault: the node contradicts itself').length - 1;
    } catch {
      out[x.name] = 0;
    }
  }
  return out;
}

/** The run's figures, as one JSON line (report.ts reads these). */
/**
 * The commit checked out when this run started (`git rev-parse --short HEAD` here; read at start,
 * since commits made while a run goes on do not change the code it runs), or null.
 */
const BUILD: string | null = (() => {
  const r = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', timeout: 5_000 });
  return r.status === 0 ? r.stdout.trim() : null;
})();

function figures(ok: boolean, failure: SoakFailure | null) {
  const p = proxy?.stats();
  return {
    seed: SEED,
    build: BUILD,
    finality: FINALITY,
    window: WINDOW,
    ok,
    minutes: Math.round(elapsed() / 6) / 10,
    reorgs: counters.reorgs,
    reorgDepths: counters.reorgDepths,
    reorgsMidRollback: counters.reorgsMidRollback,
    kills: counters.kills,
    killsMidRollback: counters.killsMidRollback,
    stops: counters.stops,
    faults: {
      proxyInjected: p?.totalFaults ?? 0,
      byKind: p?.faults ?? {},
      windows: counters.faultWindows,
      nodeRestarts: counters.nodeRestarts,
      staleWindows: counters.staleWindows,
    },
    proxyRequests: p?.requests ?? 0,
    nodeStalls: stalls,
    nodeRaces: counters.nodeRaces,
    nodeFaultsFound: nodeFaultsLogged(),
    sseChurns: counters.sseChurns,
    sse: consumers.reduce(
      (a, c) => ({
        frames: a.frames + c.stats().frames,
        reorgFrames: a.reorgFrames + c.stats().reorgFrames,
        resumes: a.resumes + c.stats().resumes,
      }),
      { frames: 0, reorgFrames: 0, resumes: 0 },
    ),
    sweeps: sweepers.reduce((a, s) => a + s.stats().requests, 0),
    checks: counters.checks,
    digests: counters.digests,
    made: counters.made,
    divergences: failure?.kind === 'divergence' ? 1 : 0,
    failure: failure
      ? {
          kind: failure.kind,
          message: failure.message.slice(0, 2000),
          divergence: failure.divergence ?? null,
        }
      : null,
  };
}

async function teardown(keep: boolean): Promise<void> {
  watchdogStopped = true;
  if (watchdog) clearTimeout(watchdog);
  calm();
  for (const c of consumers) c.close();
  await Promise.all(sweepers.map((s) => s.stop()));
  for (const x of ixs.values()) await x.idx.stop().catch(() => undefined);
  await proxy?.close().catch(() => undefined);
  await killAnvil(join(work, 'devnet', 'devnet')).catch(() => undefined);
  if (!keep) rmSync(work, { recursive: true, force: true });
}

for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    void teardown(true).finally(() => process.exit(130));
  });

/**
 * Whether the node still answers: `hung` (no answer in 10 s), `died` (connection refused: the
 * node process is gone), else `ok`. A failure that is really the node's is reported as such.
 */
async function nodeState(): Promise<'ok' | 'hung' | 'died'> {
  if (!devUrl) return 'ok';
  try {
    await rpc(devUrl, 'eth_blockNumber', [], 10_000);
    return 'ok';
  } catch (err) {
    return err instanceof NodeHung ? 'hung' : err instanceof NodeRpcError ? 'ok' : 'died';
  }
}

/** Terminal colour codes (anvil colours its panic report). */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** The last lines of the devnet node's log (anvil's panic message, the front's last words). */
function nodeLogTail(): string {
  try {
    const text = readFileSync(join(work, 'devnet', 'devnet', 'anvil.log'), 'utf8').replace(ANSI, '');
    const panic = text.indexOf('The application panicked');
    return panic >= 0 ? text.slice(panic, panic + 400) : text.slice(-600);
  } catch {
    return '(no node log)';
  }
}
/**
 * What the devnet front had in flight when the node stopped answering (`devnet_frontStatus`, which
 * the front answers itself): its serialiser's queued and running calls and the miner's counters.
 */
async function frontStatus(): Promise<string> {
  try {
    return JSON.stringify(await rpc(devUrl, 'devnet_frontStatus', [], 2_000));
  } catch (err) {
    return `(front status unavailable: ${(err as Error).message})`;
  }
}
const anvilPid = () => {
  try {
    return (
      Number(JSON.parse(readFileSync(join(work, 'devnet', 'devnet', 'anvil.json'), 'utf8')).pid) || undefined
    );
  } catch {
    return undefined;
  }
};

let failure: SoakFailure | null = null;
try {
  await main();
} catch (err) {
  failure =
    err instanceof SoakFailure
      ? err
      : err instanceof NodeHung
        ? new SoakFailure(
            'node_hung',
            `${err.message}; front ${await frontStatus()}; ${dumpStacks(Number(readFileSync(join(work, 'devnet', 'devnet', 'anvil.pid'), 'utf8')) || undefined)}`,
          )
        : (err as Error).name === 'ContractViolation'
          ? new SoakFailure('contract', (err as Error).message)
          : new SoakFailure('crash', (err as Error).stack ?? String(err));
}
if (failure && failure.kind !== 'node_hung') {
  const state = await nodeState();
  if (state === 'hung')
    failure = new SoakFailure(
      'node_hung',
      `the node does not answer eth_blockNumber within 10 s (front ${await frontStatus()}; ${dumpStacks(anvilPid())}); what failed first: ${failure.message}`,
    );
  if (state === 'died')
    failure = new SoakFailure(
      'node_died',
      `the devnet node refuses connections (its process is gone); its log ends: ${nodeLogTail()}\nwhat failed first: ${failure.message}`,
    );
}
const fig = figures(failure === null, failure);
if (failure) {
  const last = steps.filter((s) => s.step.startsWith('check') && s.step.includes('passed')).pop();
  const lines = [
    '',
    `SOAK FAILED (${failure.kind}): seed ${SEED}, FINALITY=${FINALITY}, UNFINALISED_WINDOW=${WINDOW}, after ${elapsed().toFixed(0)} s`,
    failure.message,
    ...(failure.divergence
      ? [
          `first diverging row (${failure.divergence.check}, indexer ${failure.divergence.indexer}, at block ${failure.divergence.block}): ${failure.divergence.row}`,
          `  index: ${failure.divergence.index}`,
          `  truth: ${failure.divergence.truth}`,
        ]
      : []),
    `block range: since the last passed check (node head ${last?.node ?? 'none: before the first check'}) up to ${steps[steps.length - 1]?.node ?? '?'}`,
    'schedule steps (t s, node head, indexed heads, step):',
    ...steps.map((s) => `  ${s.t.toFixed(1)}  ${s.node}  ${JSON.stringify(s.heads)}  ${s.step}`),
    `reproduce: npm run soak -- --seed ${SEED} --minutes ${MINUTES} --finality ${FINALITY}`,
    `work dir kept (stores, logs): ${work}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  writeFileSync(join(work, 'failure.txt'), lines.join('\n'));
}
process.stdout.write(`${JSON.stringify(fig)}\n`);
if (arg('--stats')) writeFileSync(arg('--stats')!, `${JSON.stringify(fig)}\n`, { flag: 'a' });
await teardown(failure !== null || args.includes('--keep'));
process.exit(failure ? 1 : 0);
