/**
 * The traces lane against the node's own trace ceiling, in one run on one anvil node.
 *
 * Chain: the transfer chain of bench/transfer-chain.ts (`--blocks` × `--tx` plain ERC-20 transfers).
 * 1. Trace ceiling: `debug_traceBlockByNumber(n, {tracer: 'callTracer'})` for every block, with the
 *    lane's own concurrency (4 blocks in flight, packages/indexer/src/ingest/traces.ts IN_FLIGHT), bodies read as
 *    text and not parsed: what the node and the loopback can give. Measured before and after the
 *    indexer runs (best pass).
 * 2. Per round, one indexer with TRACES=on and one with TRACES=off (fresh data directories, the
 *    default configuration otherwise), alternating: time until the main lanes reach the head
 *    (`/checkpoints` anchor), and with traces on, until the traces lane does (`/health`
 *    traces.checkpoint), sampling `/health` traces.behindBlocks all along.
 *
 * Reports the traces lane's rate (blocks traced per second between the first traced block and the
 * head) as a ratio of the trace ceiling, and the main lanes' time to head with traces on against
 * off (the lane must never hold them back).
 *
 * Usage: node dist/bench/traces-lane.js [--blocks 300] [--tx 50] [--senders 500] [--wallets 5000]
 *          [--rounds 2] [--out report.md]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { cpuSeconds } from './ingest-transfers.js';
import { benchArgs, emitReport, hex, log, runIfEntry, sleep, startIndexerChild } from './lib.js';
import { type TransferChain, transferChainFromArgs } from './transfer-chain.js';

/** Blocks the traces lane traces concurrently (packages/indexer/src/ingest/traces.ts IN_FLIGHT). */
const LANE_IN_FLIGHT = 4;

/** The node's trace ceiling: every block of 0..head traced by callTracer, `concurrency` in flight. */
export async function traceCeiling(
  url: string,
  head: number,
  concurrency = LANE_IN_FLIGHT,
): Promise<{ seconds: number; blocksPerSecond: number; bytes: number }> {
  let next = 0;
  let bytes = 0;
  const t0 = performance.now();
  const worker = async () => {
    for (;;) {
      const n = next++;
      if (n > head) return;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: n,
          method: 'debug_traceBlockByNumber',
          params: [hex(n), { tracer: 'callTracer' }],
        }),
      });
      const text = await res.text();
      if (!text.includes('"result"')) throw new Error(`debug_traceBlockByNumber ${n}: ${text.slice(0, 200)}`);
      bytes += text.length;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, blocksPerSecond: (head + 1) / seconds, bytes };
}

export interface LaneRun {
  label: string;
  traces: boolean;
  /** Seconds from spawn until the main lanes' anchor reached the head. */
  mainToHeadSeconds: number;
  /** Seconds from spawn until the traces lane's checkpoint reached the head (traces on). */
  tracesToHeadSeconds: number | null;
  /** Traced blocks per second, from the first traced block until the head (traces on). */
  tracesBlocksPerSecond: number | null;
  /**
   * Traced blocks per second after the main lanes reached the head (the lane no longer waits for
   * committed blocks: its own rate); null when it was less than 10 blocks behind then.
   */
  catchUpBlocksPerSecond: number | null;
  /** Largest /health traces.behindBlocks seen, and its value when the main lanes reached head. */
  maxBehind: number | null;
  behindAtMainHead: number | null;
  /** Process CPU seconds until the main lanes reached head. */
  cpuSecondsToMainHead: number;
}

async function runLane(chain: TransferChain, label: string, main: string, traces: boolean): Promise<LaneRun> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'traces-lane-data-'));
  const t0 = performance.now();
  const ix = await startIndexerChild({
    rpcUrl: chain.node.rpcUrl,
    chain: 'bench',
    dataDir,
    main,
    env: { TRACES: traces ? 'on' : 'off' },
  });
  let mainHead: number | null = null;
  let cpuAtMainHead = 0;
  let tracesHead: number | null = null;
  let firstTraced: { t: number; block: number } | null = null;
  let maxBehind: number | null = null;
  let behindAtMainHead: number | null = null;
  for (;;) {
    const h = (await ix.get('/health').catch(() => null))?.body;
    const now = performance.now();
    const anchor: number = h?.anchor?.block ?? -1;
    const tr = h?.traces as { checkpoint: number | null; behindBlocks: number | null } | undefined;
    if (tr && typeof tr.behindBlocks === 'number') maxBehind = Math.max(maxBehind ?? 0, tr.behindBlocks);
    if (traces && tr?.checkpoint != null && firstTraced === null)
      firstTraced = { t: now, block: tr.checkpoint };
    if (mainHead === null && anchor >= chain.head) {
      mainHead = now;
      cpuAtMainHead = cpuSeconds(ix.pid);
      behindAtMainHead = tr?.behindBlocks ?? null;
    }
    if (traces && tracesHead === null && tr?.checkpoint != null && tr.checkpoint >= chain.head)
      tracesHead = now;
    if (mainHead !== null && (!traces || tracesHead !== null)) break;
    if (now - t0 > 3_600_000) throw new Error(`${label}: not at head after an hour`);
    await sleep(50);
  }
  await ix.stop();
  rmSync(dataDir, { recursive: true, force: true });
  const rate =
    traces && firstTraced && tracesHead !== null && tracesHead > firstTraced.t
      ? (chain.head - firstTraced.block) / ((tracesHead - firstTraced.t) / 1000)
      : null;
  return {
    label,
    traces,
    mainToHeadSeconds: ((mainHead as number) - t0) / 1000,
    tracesToHeadSeconds: tracesHead === null ? null : (tracesHead - t0) / 1000,
    tracesBlocksPerSecond: rate,
    catchUpBlocksPerSecond:
      traces && tracesHead !== null && mainHead !== null && (behindAtMainHead ?? 0) >= 10
        ? (behindAtMainHead as number) / ((tracesHead - mainHead) / 1000)
        : null,
    maxBehind,
    behindAtMainHead,
    cpuSecondsToMainHead: cpuAtMainHead,
  };
}

const f1 = (x: number | null) => (x === null ? 'n/a' : x.toFixed(1));

/** Markdown report of one run. */
export function laneReport(
  chain: TransferChain,
  ceilings: Array<{ blocksPerSecond: number }>,
  runs: LaneRun[],
): string {
  const ceil = Math.max(...ceilings.map((c) => c.blocksPerSecond));
  const on = runs.filter((r) => r.traces);
  const off = runs.filter((r) => !r.traces);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const lines = [
    `Chain: anvil, ${chain.head + 1} blocks, ${chain.spec.blocks} × ${chain.spec.txPerBlock} ERC-20 transfers; ${chain.txCount} txs.`,
    '',
    `Trace ceiling (\`debug_traceBlockByNumber\` callTracer, ${LANE_IN_FLIGHT} blocks in flight, bodies unparsed; before and after the indexer runs): ${ceilings.map((c) => `${c.blocksPerSecond.toFixed(1)} blocks/s`).join(', ')} → ceiling ${ceil.toFixed(1)} blocks/s = ${((ceil * chain.txCount) / (chain.head + 1)).toFixed(0)} traced tx/s.`,
    '',
    '| run | TRACES | main lanes at head (from spawn) | traces lane at head | traces lane blocks/s (first traced → head) | ÷ trace ceiling | catch-up blocks/s (main at head → traces at head) | ÷ trace ceiling | /health behindBlocks: max / when main reached head | process CPU s to main head |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map(
      (r) =>
        `| ${r.label} | ${r.traces ? 'on' : 'off'} | ${f1(r.mainToHeadSeconds)} s | ${r.tracesToHeadSeconds === null ? 'n/a' : `${f1(r.tracesToHeadSeconds)} s`} | ${f1(r.tracesBlocksPerSecond)} | ${r.tracesBlocksPerSecond === null ? 'n/a' : (r.tracesBlocksPerSecond / ceil).toFixed(2)} | ${f1(r.catchUpBlocksPerSecond)} | ${r.catchUpBlocksPerSecond === null ? 'n/a' : (r.catchUpBlocksPerSecond / ceil).toFixed(2)} | ${r.maxBehind ?? 'null'} / ${r.behindAtMainHead ?? 'null'} | ${f1(r.cpuSecondsToMainHead)} |`,
    ),
  ];
  if (on.length && off.length) {
    const mOn = mean(on.map((r) => r.mainToHeadSeconds));
    const mOff = mean(off.map((r) => r.mainToHeadSeconds));
    lines.push(
      '',
      `Main lanes to head, mean: traces on ${mOn.toFixed(1)} s, off ${mOff.toFixed(1)} s (on ÷ off = ${(mOn / mOff).toFixed(2)}); spread within each setting: on ${on.map((r) => f1(r.mainToHeadSeconds)).join(' / ')} s, off ${off.map((r) => f1(r.mainToHeadSeconds)).join(' / ')} s.`,
    );
  }
  return lines.join('\n');
}

/** CLI entry (see the module doc). */
export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { arg, mains } = benchArgs(argv);
  const chain = await transferChainFromArgs(arg, 300);
  const [, main] = mains[0];
  const ceilings = [await traceCeiling(chain.node.rpcUrl, chain.head)];
  log(`trace ceiling: ${ceilings[0].blocksPerSecond.toFixed(1)} blocks/s`);
  const runs: LaneRun[] = [];
  const rounds = Number(arg('--rounds', '2'));
  for (let round = 1; round <= rounds; round++)
    for (const traces of round % 2 ? [true, false] : [false, true]) {
      const label = `round ${round}, traces ${traces ? 'on' : 'off'}`;
      const r = await runLane(chain, label, main, traces);
      log(
        `${label}: main at head ${f1(r.mainToHeadSeconds)} s, traces at head ${f1(r.tracesToHeadSeconds)} s, ${f1(r.tracesBlocksPerSecond)} traced blocks/s, max behind ${r.maxBehind}`,
      );
      runs.push(r);
    }
  ceilings.push(await traceCeiling(chain.node.rpcUrl, chain.head));
  const md = laneReport(chain, ceilings, runs);
  emitReport(md, arg);
}

runIfEntry('traces-lane.js', main);
