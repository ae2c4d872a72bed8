/**
 * Reads on a moving chain (issue T part 5): the market maker's real situation. The replay server
 * (bench/replay-server.ts, moving-chain mode) serves recorded Ethereum mainnet transactions packed
 * into blocks of a given size, with a history that is there at the start and then one new block
 * per cadence. The indexer backfills the history, then follows the head; while it follows, the
 * bench reads token routes (detail, overview, holders, transfers, stats) and wallet routes
 * (overview, activity, transfers, first-seen, assets) at c=1 (closed-loop precise sampler) and c=32
 * (autocannon), with the response cache at its default. The same reads then run on the same
 * indexer once the chain has stopped (idle): the baseline of the same run.
 *
 * Reported per shape: c=1 p50/p99 following vs idle (and their ratio: the budget is p99 ≤ 2× idle),
 * c=32 req/s following vs idle, head-to-queryable (from the moment a block appears at the node to
 * the first response anchored at it; p50/p99), and the main-thread time of live blocks by size
 * (indexer_ingest_block_commit_seconds; the budget is p99 ≤ 15 ms for 150-transaction blocks).
 *
 * The same run's floor: a bare client polling the node every 10 ms (as the indexer does) fetches
 * each new block and its receipts, from the block's appearance; head-to-queryable is reported beside it.
 * The first `--quiet-blocks` blocks (about 30 s worth) are followed with no reads, for the
 * head-to-queryable of a quiet indexer; for every live block the indexer's own timeline
 * (indexer_ingest_live_stage_seconds) says which step its time went to, quiet and while reading.
 *
 * Usage: node dist/bench/live-shape.js [--shapes 2s,12s] [--follow-blocks 60] [--history 400]
 *          [--quiet-blocks N] [--slice-seconds 5] [--floor-alone N] [--prof] [--out report.md]
 * `--prof` runs the indexer under --cpu-prof and reports its main thread's self time while following.
 * Shapes: `2s` = a block every 2 s of ~200 transactions; `12s` = every 12 s of ~150.
 */
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { LIVE_STAGES } from '@chain-indexer/indexer/testing';
import { EventSource } from 'eventsource';
import { profileSection, topSelf } from './cpuprofile.js';
import {
  BENCH_KEY,
  benchArgs,
  cannon,
  cannonFigures,
  cleanupAll,
  emitReport,
  hex,
  type IndexerChild,
  latencyFigures,
  log,
  onCleanup,
  percentile,
  promValue,
  rpc,
  rpcBatch,
  sampleLatency,
  sleep,
  startIndexerChild,
} from './lib.js';
import { fixtureBlocks } from './mainnet-replay.js';
import { startReplayServer } from './replay-server.js';

type Json = Record<string, any>;
const qty = (n: number) => `0x${n.toString(16)}`;
const h32 = (s: string) => `0x${Buffer.from(s).toString('hex').padEnd(64, '0').slice(0, 64)}`;

interface Shape {
  name: string;
  cadenceMs: number;
  txPerBlock: number;
}
const SHAPES: Record<string, Shape> = {
  '2s': { name: '2 s blocks of ~200 transactions', cadenceMs: 2_000, txPerBlock: 200 },
  '12s': { name: '12 s blocks of ~150 transactions', cadenceMs: 12_000, txPerBlock: 150 },
};

/**
 * Writes a replay recording of `blocks` blocks of `txPerBlock` recorded mainnet transactions each
 * (the fixture blocks' transactions in order, cycled), renumbered and re-linked: fresh block and
 * transaction hashes, transaction and log indices rewritten; payloads otherwise as recorded.
 */
function writeShapedChain(file: string, blocks: number, txPerBlock: number): { txs: number; logs: number } {
  const fx = fixtureBlocks();
  const pairs: Array<{ tx: Json; rc: Json }> = [];
  for (const f of fx)
    for (let i = 0; i < f.block.transactions.length; i++)
      pairs.push({ tx: f.block.transactions[i], rc: f.receipts[i] });
  const template = fx[0].block;
  const fd = openSync(file, 'w');
  let parent = `0x${'0'.repeat(64)}`;
  let next = 0;
  let logs = 0;
  for (let k = 0; k < blocks; k++) {
    const hash = h32(`live-block:${k}`);
    const num = qty(k);
    const ts = qty(1_700_000_000 + 2 * k);
    const txs: Json[] = [];
    const rcs: Json[] = [];
    let logIndex = 0;
    for (let i = 0; i < txPerBlock; i++, next++) {
      const { tx, rc } = pairs[next % pairs.length];
      const th = h32(`live-tx:${k}:${i}`);
      txs.push({ ...tx, hash: th, blockHash: hash, blockNumber: num, transactionIndex: qty(i) });
      rcs.push({
        ...rc,
        transactionHash: th,
        transactionIndex: qty(i),
        blockHash: hash,
        blockNumber: num,
        logs: (rc.logs as Json[]).map((l) => ({
          ...l,
          blockHash: hash,
          blockNumber: num,
          transactionHash: th,
          transactionIndex: qty(i),
          logIndex: qty(logIndex++),
        })),
      });
    }
    logs += logIndex;
    const block = { ...template, number: num, hash, parentHash: parent, timestamp: ts, transactions: txs };
    writeSync(fd, `${k}\t${hash}\t${JSON.stringify(block)}\t${JSON.stringify(rcs)}\n`);
    parent = hash;
  }
  closeSync(fd);
  return { txs: blocks * txPerBlock, logs };
}

interface Reads {
  c1: ReturnType<typeof latencyFigures>;
  c32: ReturnType<typeof cannonFigures>;
}

/** One slice of c=1 then one of c=32 on `paths`. */
async function readSlice(base: string, paths: string[], seconds: number): Promise<Reads> {
  const c1 = latencyFigures(await sampleLatency({ base, paths, connections: 1, durationS: seconds }));
  const c32 = cannonFigures(await cannon({ url: base, paths, connections: 32, durationS: seconds }));
  return { c1, c32 };
}

interface ShapeResult {
  shape: Shape;
  txs: number;
  following: Record<string, Reads>;
  idle: Record<string, Reads>;
  /** Head-to-queryable while the bench reads (c=1 and c=32 slices). */
  headToQueryable: Lags;
  /** Head-to-queryable over the first blocks followed, before any read (the watcher's polls only). */
  quietHeadToQueryable: Lags;
  /**
   * The same run's floor, quiet and while reading: a bare client polling the node every 10 ms that
   * fetches each new block and its receipts (one batch, parsed), from the block's appearance, ms.
   */
  floor: { quiet: Lags; reading: Lags };
  /** With `--floor-alone N`: the floor over N blocks of the same shape with no indexer running ({@link floorAlone}). */
  floorAlone?: Lags | null;
  /** The live blocks' steps (timeline.ts), quiet and while reading. */
  stages: { quiet: Stages; reading: Stages };
  commitP99: Record<string, string>;
  /** Block frames of /stream/blocks: arrival after the block appeared at the node, ms. */
  frameLags: Lags;
  /** The serving thread's time per engine commit and the commit message's transit (absent before the engine). */
  serving: Hist;
  handover: Hist;
  blocksFollowed: number;
  /** With `--prof`: main-thread self time while following (the reads excluded: only ingest and reads share it). */
  profileTop?: string;
}

/** One prometheus histogram series: cumulative buckets, sum and count. */
interface Hist {
  buckets: Array<{ le: string; n: number }>;
  sum: number;
  count: number;
}

/** The series of histogram `name` whose labels include `label` (e.g. `size="150+"`). */
function histOf(metrics: string, name: string, label: string): Hist {
  const lines = metrics.split('\n').filter((l) => l.includes(label));
  const value = (l: string) => Number(l.split(' ').pop());
  return {
    buckets: lines
      .filter((l) => l.startsWith(`${name}_bucket`))
      .map((l) => ({ le: /le="([^"]+)"/.exec(l)![1], n: value(l) })),
    sum: value(lines.find((l) => l.startsWith(`${name}_sum`)) ?? '0'),
    count: value(lines.find((l) => l.startsWith(`${name}_count`)) ?? '0'),
  };
}

/** `b` minus `a`: the observations made between two scrapes. */
function histDiff(a: Hist, b: Hist): Hist {
  return {
    buckets: b.buckets.map((x, i) => ({ le: x.le, n: x.n - (a.buckets[i]?.n ?? 0) })),
    sum: b.sum - a.sum,
    count: b.count - a.count,
  };
}

/** The bucket bound the q-quantile falls in, in ms ('∞' past the last bound). */
function histQuantile(h: Hist, q: number): string {
  const total = h.buckets.find((r) => r.le === '+Inf')?.n ?? 0;
  if (!total) return 'n/a';
  const hit = h.buckets.find((r) => r.n >= q * total)!;
  return hit.le === '+Inf' ? '∞' : `${Number(hit.le) * 1000}`;
}

/**
 * The histogram bucket bound that p-quantile of `indexer_ingest_block_commit_seconds{size}` falls
 * in, over the blocks committed between two scrapes.
 */
function bucketQuantile(from: string, to: string, size: string, q: number): string {
  const of = (m: string) => histOf(m, 'indexer_ingest_block_commit_seconds', `size="${size}"`);
  const h = histDiff(of(from), of(to));
  if (!h.count) return 'n/a (no block of that size)';
  return `≤ ${histQuantile(h, q) === '∞' ? '∞' : `${histQuantile(h, q)} ms`} (${h.count} blocks)`;
}

/** The live block's steps (indexer_ingest_live_stage_seconds, packages/indexer/src/ingest/timeline.ts). */
const STAGES: readonly string[] = LIVE_STAGES;
type Stages = Record<string, Hist>;
const stagesOf = (metrics: string): Stages =>
  Object.fromEntries(
    STAGES.map((s) => [s, histOf(metrics, 'indexer_ingest_live_stage_seconds', `stage="${s}"`)]),
  );
const stagesDiff = (a: Stages, b: Stages): Stages =>
  Object.fromEntries(STAGES.map((s) => [s, histDiff(a[s], b[s])]));

interface Lags {
  n: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}
function lagFigures(lags: number[]): Lags {
  const sorted = [...lags].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1),
  };
}

/**
 * The routes read while following: the busiest tokens and wallets of the history.
 * Mainnet's busiest tokens (USDT, USDC, WETH) when the recording holds them, else the first listed.
 */
async function subjectGroups(ix: IndexerChild, name: string): Promise<Record<string, string[]>> {
  const busiest = [
    '0xdac17f958d2ee523a2206206994597c13d831ec7',
    '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
  ];
  let tokens: string[] = [];
  for (const t of busiest) if ((await ix.get(`/tokens/${t}`)).status === 200) tokens.push(t);
  if (!tokens.length)
    tokens = ((await ix.get('/tokens?limit=3')).body?.data ?? []).map((t: Json) => t.address);
  const holders = tokens.length
    ? ((await ix.get(`/tokens/${tokens[0]}/holders?limit=5`)).body?.data ?? [])
    : [];
  const wallets: string[] = holders.map((h: Json) => h.wallet).filter(Boolean);
  if (!tokens.length || !wallets.length) throw new Error(`${name}: no subjects (${tokens.length} tokens)`);
  return {
    token: tokens.flatMap((t: string) => [
      `/tokens/${t}`,
      `/tokens/${t}/overview`,
      `/tokens/${t}/holders?limit=20`,
      `/tokens/${t}/transfers?limit=20`,
      `/tokens/${t}/stats`,
    ]),
    wallet: wallets.flatMap((w) => [
      `/wallets/${w}/overview`,
      `/wallets/${w}/activity?limit=20`,
      `/wallets/${w}/transfers?limit=20`,
      `/wallets/${w}/first-seen`,
      `/wallets/${w}/assets?limit=20`,
    ]),
  };
}

async function runShape(
  shape: Shape,
  history: number,
  follow: number,
  slice: number,
  quiet: number,
  prof = false,
): Promise<ShapeResult> {
  const profDir = mkdtempSync(join(os.tmpdir(), 'live-shape-prof-'));
  const dir = mkdtempSync(join(os.tmpdir(), 'live-shape-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'chain.tsv');
  const c = writeShapedChain(file, history + quiet + follow, shape.txPerBlock);
  log(
    `${shape.name}: ${history} history + ${quiet} quiet + ${follow} following blocks, ${c.txs} txs, ${c.logs} logs`,
  );
  const replay = await startReplayServer(file, '0x1', undefined, {
    start: history - 1,
    cadenceMs: shape.cadenceMs,
    paused: true,
  });
  onCleanup(() => replay.stop());
  let t0 = 0;
  const reveal = (n: number) => t0 + (n - (history - 1)) * shape.cadenceMs;
  const ix = await startIndexerChild({
    rpcUrl: replay.url,
    chain: 'live',
    dataDir: join(dir, 'data'),
    // The replay server has no newHeads: the follower polls its node every 10 ms.
    env: { POLL_MS: '10', TRACES: 'off', VERIFY_ROOTS: 'off' },
    execArgv: prof ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [],
  });
  onCleanup(() => ix.stop());
  while ((await ix.anchor()) < history - 1) await sleep(100);
  // The chain starts moving once the history is indexed.
  // Blocks of the live window committed while catching up are not following: every live figure
  // below is the difference from this scrape.
  const goMetrics = await ix.metrics();
  t0 = Number(await rpc<string>(replay.url, 'replay_go'));
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  const followFromUs = nowUs();
  log(`${shape.name}: history indexed; following (${quiet} blocks without reads first)`);
  // Head-to-queryable: the first response anchored at n, from the moment n is at the node.
  const last = history + quiet + follow - 1;
  const quietLast = history + quiet - 1;
  const lags: number[] = [];
  const quietLags: number[] = [];
  let watching = true;
  const watcher = (async () => {
    let seen = await ix.anchor();
    while (watching && seen < last) {
      const a = await ix.anchor();
      const now = Date.now();
      for (let n = seen + 1; n <= a; n++)
        if (n >= history) (n <= quietLast ? quietLags : lags).push(now - reveal(n));
      if (a > seen) seen = a;
      await sleep(2);
    }
  })();
  // SSE: one consumer of /stream/blocks from the start of following; each block frame's arrival
  // against the moment its block appeared at the node (budget: p99 ≤ 60 ms at the 2 s cadence).
  const frameLags: number[] = [];
  const sse = new EventSource(`${ix.base}/stream/blocks`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, 'x-api-key': BENCH_KEY } }),
  });
  sse.addEventListener('block', (e) => {
    const now = Date.now();
    const n = Number((JSON.parse((e as MessageEvent).data) as { number: number | string }).number);
    if (n >= history && n <= last) frameLags.push(now - reveal(n));
  });
  onCleanup(() => sse.close());
  // The same run's floor: a bare client that follows the node as the indexer does (eth_blockNumber
  // every POLL_MS = 10 ms) and fetches each new block with its receipts in one batch, parsed, timed
  // from the moment the block appeared at the node. No indexer makes a block queryable before it
  // holds it, so head-to-queryable is this floor plus the indexer's own time.
  const floorLags: number[] = [];
  const quietFloorLags: number[] = [];
  const floor = followFloor(
    replay.url,
    history,
    last,
    reveal,
    () => watching,
    (n, lag) => (n <= quietLast ? quietFloorLags : floorLags).push(lag),
  );
  // Quiet blocks: only the watcher's polls (and the floor's) reach the indexer.
  while ((await ix.anchor()) < quietLast) await sleep(20);
  const quietMetrics = await ix.metrics();
  const groups = await subjectGroups(ix, shape.name);
  const following: Record<string, Reads> = {};
  const acc: Record<string, Reads[]> = { token: [], wallet: [] };
  while (Date.now() < reveal(last))
    for (const [g, paths] of Object.entries(groups)) acc[g].push(await readSlice(ix.base, paths, slice));
  for (const [g, list] of Object.entries(acc)) following[g] = merge(list);
  while ((await ix.anchor()) < last) await sleep(50);
  const followToUs = nowUs();
  watching = false;
  await watcher;
  await floor;
  const metrics = await ix.metrics();
  const idle: Record<string, Reads> = {};
  for (const [g, paths] of Object.entries(groups))
    idle[g] = merge([await readSlice(ix.base, paths, slice), await readSlice(ix.base, paths, slice)]);
  const commitP99 = Object.fromEntries(
    ['50-149', '150+'].map((s) => [s, bucketQuantile(goMetrics, metrics, s, 0.99)]),
  );
  sse.close();
  // The serving thread's own time per commit of the engine (registry re-read, frames published)
  // and the commit message's transit from the engine thread: absent on a build without an engine.
  const serving = histDiff(
    histOf(goMetrics, 'indexer_serving_commit_seconds', 'chain="'),
    histOf(metrics, 'indexer_serving_commit_seconds', 'chain="'),
  );
  const handover = histDiff(
    histOf(goMetrics, 'indexer_engine_handover_seconds', 'chain="'),
    histOf(metrics, 'indexer_engine_handover_seconds', 'chain="'),
  );
  void promValue;
  if (prof) {
    // The profile is written at exit: SIGTERM, then wait for the main thread's file.
    process.kill(ix.pid, 'SIGTERM');
    for (let i = 0; i < 300 && !readdirSync(profDir).some((f) => f.split('.')[4] === '0'); i++)
      await sleep(100);
  }
  await ix.stop();
  await replay.stop();
  let profileTop: string | undefined;
  const main0 = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile') && f.split('.')[4] === '0');
  if (main0) profileTop = topSelf(join(profDir, main0), 30, { fromUs: followFromUs, toUs: followToUs });
  rmSync(profDir, { recursive: true, force: true });
  return {
    shape,
    txs: c.txs,
    following,
    idle,
    headToQueryable: lagFigures(lags),
    quietHeadToQueryable: lagFigures(quietLags),
    floor: { quiet: lagFigures(quietFloorLags), reading: lagFigures(floorLags) },
    stages: {
      quiet: stagesDiff(stagesOf(goMetrics), stagesOf(quietMetrics)),
      reading: stagesDiff(stagesOf(quietMetrics), stagesOf(metrics)),
    },
    commitP99,
    frameLags: lagFigures(frameLags),
    serving,
    handover,
    blocksFollowed: quiet + follow,
    profileTop,
  };
}

/**
 * The floor of head-to-queryable: a bare client following the node as the indexer does
 * (`eth_blockNumber` every 10 ms, POLL_MS) that fetches each new block `from..to` with its
 * receipts in one batch, parsed; `lag(n, ms)` gets the time from block n's appearance at the node
 * (`reveal(n)`, epoch ms) to the fetch parsed. Stops after `to` or once `going()` is false.
 */
async function followFloor(
  url: string,
  from: number,
  to: number,
  reveal: (n: number) => number,
  going: () => boolean,
  lag: (n: number, ms: number) => void,
): Promise<void> {
  let next = from;
  while (going() && next <= to) {
    const head = Number(await rpc<string>(url, 'eth_blockNumber'));
    for (; next <= Math.min(head, to); next++) {
      await rpcBatch(url, [
        ['eth_getBlockByNumber', [hex(next), true]],
        ['eth_getBlockReceipts', [hex(next)]],
      ]);
      lag(next, Date.now() - reveal(next));
    }
    await sleep(10);
  }
}

/**
 * The floor alone (`--floor-alone N`): the same chain shape served by a fresh replay server and
 * followed by the bare client of {@link followFloor} for `blocks` blocks, with no indexer running:
 * what the node and this machine give a client that does nothing with the blocks.
 */
async function floorAlone(shape: Shape, blocks: number): Promise<Lags> {
  const dir = mkdtempSync(join(os.tmpdir(), 'live-shape-floor-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'chain.tsv');
  const history = 10;
  writeShapedChain(file, history + blocks, shape.txPerBlock);
  const replay = await startReplayServer(file, '0x1', undefined, {
    start: history - 1,
    cadenceMs: shape.cadenceMs,
    paused: true,
  });
  onCleanup(() => replay.stop());
  const t0 = Number(await rpc<string>(replay.url, 'replay_go'));
  const lags: number[] = [];
  await followFloor(
    replay.url,
    history,
    history + blocks - 1,
    (n) => t0 + (n - (history - 1)) * shape.cadenceMs,
    () => true,
    (_n, ms) => lags.push(ms),
  );
  await replay.stop();
  rmSync(dir, { recursive: true, force: true });
  return lagFigures(lags);
}

/** Slices of one group folded: worst p99, mean p50, mean req/s (the conservative reading). */
function merge(list: Reads[]): Reads {
  const mean = (f: (r: Reads) => number) => list.reduce((a, r) => a + f(r), 0) / list.length;
  const max = (f: (r: Reads) => number) => Math.max(...list.map(f));
  return {
    c1: { ...list[0].c1, p50ms: mean((r) => r.c1.p50ms), p99ms: max((r) => r.c1.p99ms) },
    c32: { ...list[0].c32, reqPerSec: mean((r) => r.c32.reqPerSec), p99ms: max((r) => r.c32.p99ms) },
  };
}

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { arg } = benchArgs(argv);
  const names = arg('--shapes', '2s,12s').split(',');
  const history = Number(arg('--history', '400'));
  const slice = Number(arg('--slice-seconds', '5'));
  const results: ShapeResult[] = [];
  for (const n of names) {
    const shape = SHAPES[n];
    if (!shape) throw new Error(`unknown shape ${n} (2s, 12s)`);
    // Enough blocks to read for at least 6 slice pairs, at least 20 blocks.
    const follow = Number(
      arg('--follow-blocks', String(Math.max(20, Math.ceil((6 * 4 * slice * 1000) / shape.cadenceMs)))),
    );
    // Blocks followed with no reads first: about 30 s worth, at least 5.
    const quiet = Number(arg('--quiet-blocks', String(Math.max(5, Math.ceil(30_000 / shape.cadenceMs)))));
    const aloneBlocks = Number(arg('--floor-alone', '0'));
    const alone = aloneBlocks > 0 ? await floorAlone(shape, aloneBlocks) : null;
    if (alone)
      log(`${shape.name}: floor alone over ${alone.n} blocks: p50 ${alone.p50} ms, p99 ${alone.p99} ms`);
    results.push({
      ...(await runShape(shape, history, follow, slice, quiet, argv.includes('--prof'))),
      floorAlone: alone,
    });
  }
  const lines = [
    '# Reads on a moving chain',
    '',
    `Recorded Ethereum mainnet transactions packed into blocks, served by bench/replay-server.ts as a moving chain (${history} blocks there at the start, then one per cadence); the indexer follows with POLL_MS=10 (the replay server offers no newHeads). Reads: closed-loop c=1 (precise sampler) and autocannon c=32, ${slice} s slices alternating token and wallet routes, with the response cache at its default; idle = the same reads on the same indexer after the chain stopped. Budget: following p99 ≤ 2 × idle p99.`,
  ];
  for (const r of results) {
    lines.push(
      '',
      `## ${r.shape.name} (${r.blocksFollowed} blocks followed)`,
      '',
      '| routes | c=1 p50 following / idle ms | c=1 p99 following / idle ms | p99 ÷ idle | ≤ 2× | c=32 req/s following / idle | c=32 p99 following / idle ms |',
      '| --- | ---: | ---: | ---: | --- | ---: | ---: |',
      ...Object.keys(r.following).map((g) => {
        const f = r.following[g];
        const i = r.idle[g];
        const ratio = f.c1.p99ms / i.c1.p99ms;
        return `| ${g} | ${f2(f.c1.p50ms)} / ${f2(i.c1.p50ms)} | ${f2(f.c1.p99ms)} / ${f2(i.c1.p99ms)} | ${f2(ratio)} | ${ratio <= 2 ? 'yes' : 'no'} | ${f2(f.c32.reqPerSec)} / ${f2(i.c32.reqPerSec)} | ${f2(f.c32.p99ms)} / ${f2(i.c32.p99ms)} |`;
      }),
      '',
      `Head-to-queryable (block at the node → first response anchored at it; budget at the 2 s cadence: p99 ≤ 50 ms):`,
      '',
      '| phase | blocks | p50 ms | p99 ms | max ms | mean ms |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      ...(
        [
          ['quiet (no reads, the watcher polls every 2 ms)', r.quietHeadToQueryable],
          ['while the bench reads (c=1 and c=32 slices)', r.headToQueryable],
          [
            'floor, quiet: a bare client polling every 10 ms fetches the block and its receipts',
            r.floor.quiet,
          ],
          ['floor, while the bench reads', r.floor.reading],
          ...(r.floorAlone
            ? [['floor alone: the same client and chain shape, no indexer running', r.floorAlone] as const]
            : []),
        ] as const
      ).map(
        ([name, l]) => `| ${name} | ${l.n} | ${f2(l.p50)} | ${f2(l.p99)} | ${f2(l.max)} | ${f2(l.mean)} |`,
      ),
      '',
      `The indexer's time above the floor (head-to-queryable − floor, same blocks' phase): quiet mean ${f2(r.quietHeadToQueryable.mean - r.floor.quiet.mean)} ms, p99 ${f2(r.quietHeadToQueryable.p99 - r.floor.quiet.p99)} ms; while reading mean ${f2(r.headToQueryable.mean - r.floor.reading.mean)} ms, p99 ${f2(r.headToQueryable.p99 - r.floor.reading.p99)} ms.`,
      '',
      "Where a live block's time goes (indexer_ingest_live_stage_seconds: the timeline of packages/indexer/src/ingest/timeline.ts from the head poll to visible; mean exact, p50/p99 as histogram bucket bounds; `node → seen` = mean head-to-queryable − mean total, the poll and the watcher's own delay):",
      '',
      '| step | quiet mean ms | quiet p50 ≤ | quiet p99 ≤ | reading mean ms | reading p50 ≤ | reading p99 ≤ |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...STAGES.map((st) => {
        const q = r.stages.quiet[st];
        const w = r.stages.reading[st];
        const mean = (h: Hist) => (h.count ? f2((h.sum / h.count) * 1000) : 'n/a');
        return `| ${st} | ${mean(q)} | ${histQuantile(q, 0.5)} | ${histQuantile(q, 0.99)} | ${mean(w)} | ${histQuantile(w, 0.5)} | ${histQuantile(w, 0.99)} |`;
      }),
      `| node → seen | ${f2(r.quietHeadToQueryable.mean - (r.stages.quiet.total.sum / (r.stages.quiet.total.count || 1)) * 1000)} | | | ${f2(r.headToQueryable.mean - (r.stages.reading.total.sum / (r.stages.reading.total.count || 1)) * 1000)} | | |`,
      '',
      `Live block build time p99 on the thread that builds (indexer_ingest_block_commit_seconds, histogram bucket; the engine thread since issue AA, the serving thread before): 50–149 txs ${r.commitP99['50-149']}; 150+ txs ${r.commitP99['150+']}.`,
      '',
      r.serving.count
        ? `Serving-thread time per commit of the engine (indexer_serving_commit_seconds: projection states, frames published; budget p99 ≤ 2 ms): mean ${f2((r.serving.sum / r.serving.count) * 1000)} ms, p99 ≤ ${histQuantile(r.serving, 0.99)} ms over ${r.serving.count} commits; the commit message's transit from the engine thread (indexer_engine_handover_seconds): mean ${f2((r.handover.sum / (r.handover.count || 1)) * 1000)} ms, p99 ≤ ${histQuantile(r.handover, 0.99)} ms.`
        : 'Serving-thread time per commit: not measured (this build has no engine thread: it builds on the serving thread, see the build time above).',
      '',
      `SSE block frames (/stream/blocks, one consumer, from the block appearing at the node; budget at the 2 s cadence: p99 ≤ 60 ms): ${r.frameLags.n} frames, p50 ${f2(r.frameLags.p50)} ms, p99 ${f2(r.frameLags.p99)} ms, max ${f2(r.frameLags.max)} ms.`,
    );
    if (r.profileTop)
      lines.push(
        ...profileSection(
          'Main-thread self time while following (--cpu-prof, samples between the chain starting to move and the last block anchored; the reads of the bench share the thread):',
          r.profileTop,
        ),
      );
  }
  const md = lines.join('\n');
  emitReport(md, arg);
}

main()
  .catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exitCode = 1;
  })
  .finally(cleanupAll);
