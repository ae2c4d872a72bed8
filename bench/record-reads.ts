/**
 * Chain-record reads on a moving chain, with the record cache on and off (RECORD_CACHE=off).
 *
 * Every block is a store write, and the response cache answers a request again only until the
 * next one; so on a moving chain the first read of each record after a block runs the handler
 * (two or three RocksDB point reads and the body built again) unless the record cache answers it.
 * This bench measures exactly those reads: the release bench's chain (bench/chain.ts: blocks of
 * 1–3 transactions splitting 52 logs, so receipts of up to ~25 KB), an indexer at the head, then
 * per round one new block (`anvil_mine`, empty), and once the indexer's anchor shows it, one c = 1
 * pass over the sample transactions' receipts (`/transactions/{hash}/receipt`) and envelopes
 * (`/transactions/{hash}`) — every read the first of its key since the block — then a second pass
 * over the same paths (response-cache hits: the floor). Builds alternate by round (`--env`
 * label=K=V; default `on` and `off`), each on its own fresh indexer.
 *
 * Usage: node dist/bench/record-reads.js [--blocks 2000] [--rounds 2] [--passes 40]
 *          [--env label=K=V,K2=V2]… [--out report.md]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { buildChain } from './chain.js';
import { closedLoop } from './http-sampler.js';
import {
  BENCH_KEY,
  benchArgs,
  emitReport,
  envFor,
  lanesAtHead,
  log,
  percentile,
  rpc,
  runIfEntry,
  sleep,
  startIndexerChild,
} from './lib.js';

interface Pass {
  /** Latency of each read, ms, by route. */
  receipt: number[];
  transaction: number[];
}

/** One c = 1 pass over `paths` (each read once), latencies by route. */
async function pass(base: string, paths: string[], into: Pass): Promise<void> {
  await closedLoop({
    base,
    paths,
    connections: 1,
    amount: paths.length,
    headers: { 'x-api-key': BENCH_KEY },
    onSample: (s) => {
      if (s.status !== 200) throw new Error(`${paths[s.path]} answered ${s.status}`);
      (paths[s.path].endsWith('/receipt') ? into.receipt : into.transaction).push(s.ms);
    },
  });
}

/** Distribution of `ms`: count, p50, p90, p99, mean (ms). */
function dist(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
  const f = (x: number) => x.toFixed(3);
  return `${s.length} | ${f(percentile(s, 50))} | ${f(percentile(s, 90))} | ${f(percentile(s, 99))} | ${f(mean)}`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { arg } = benchArgs(argv);
  const blocks = Number(arg('--blocks', '2000'));
  const rounds = Number(arg('--rounds', '2'));
  const passes = Number(arg('--passes', '40'));
  const labels = argv.includes('--env')
    ? [...new Set(argv.flatMap((a, i) => (argv[i - 1] === '--env' ? [a.split('=')[0]] : [])))]
    : ['on', 'off'];
  const envOf = (label: string) =>
    argv.includes('--env') ? envFor(argv, label) : label === 'off' ? { RECORD_CACHE: 'off' } : {};

  log(`chain: ${blocks} blocks`);
  const { node, info } = await buildChain({ seed: 1, blocks, denseEvery: 0 }, { useCache: false });
  const paths = info.sampleTxs.flatMap((s) => [`/transactions/${s.hash}/receipt`, `/transactions/${s.hash}`]);
  const results = new Map<string, { first: Pass; again: Pass; bytes: number[] }>();
  try {
    for (let round = 0; round < rounds; round++) {
      for (const label of round % 2 ? [...labels].reverse() : labels) {
        const dataDir = mkdtempSync(join(os.tmpdir(), 'bench-record-reads-'));
        const ix = await startIndexerChild({
          rpcUrl: node.rpcUrl,
          chain: 'bench',
          dataDir,
          env: envOf(label),
        });
        try {
          let head = Number.parseInt(await rpc<string>(node.rpcUrl, 'eth_blockNumber'), 16);
          await lanesAtHead(ix, head);
          await sleep(2_000);
          const r = results.get(label) ?? {
            first: { receipt: [], transaction: [] },
            again: { receipt: [], transaction: [] },
            bytes: [],
          };
          results.set(label, r);
          if (!r.bytes.length)
            for (const p of paths.filter((x) => x.endsWith('/receipt')))
              r.bytes.push((await ix.get(p)).bytes);
          // A first pass warms both caches (the record cache keeps each answer from here on).
          await pass(ix.base, paths, { receipt: [], transaction: [] });
          for (let i = 0; i < passes; i++) {
            await rpc(node.rpcUrl, 'anvil_mine', ['0x1']);
            head++;
            while ((await ix.anchor()) < head) await sleep(2);
            await pass(ix.base, paths, r.first);
            await pass(ix.base, paths, r.again);
          }
          log(`${label}, round ${round + 1}: ${passes} blocks`);
        } finally {
          await ix.stop();
          rmSync(dataDir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await node.stop();
  }

  const bytes = [...results.values()][0].bytes.sort((a, b) => a - b);
  const rows = [...results].flatMap(([label, r]) => [
    `| ${label} | receipt, first read after the block | ${dist(r.first.receipt)} |`,
    `| ${label} | receipt, read again (response cache) | ${dist(r.again.receipt)} |`,
    `| ${label} | transaction, first read after the block | ${dist(r.first.transaction)} |`,
    `| ${label} | transaction, read again (response cache) | ${dist(r.again.transaction)} |`,
  ]);
  const md = [
    `# Chain-record reads on a moving chain: record cache on and off`,
    '',
    `Chain: bench/chain.ts, seed 1, ${blocks} blocks (1–3 transactions splitting 52 logs each), ${info.sampleTxs.length} sample transactions; receipt bodies ${bytes[0]}–${bytes.at(-1)} bytes (median ${bytes[Math.floor(bytes.length / 2)]}). Per build and round a fresh indexer at the head, then ${passes} empty blocks; after each, once the anchor shows it, one c = 1 pass over every sample's receipt and envelope (each read the first of its key since the block), then the same pass again. ${rounds} round(s), builds alternating. Node ${process.version}, ${os.cpus().length} CPUs.`,
    '',
    '| build | reads | count | p50 ms | p90 ms | p99 ms | mean ms |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
  emitReport(md, arg);
}

runIfEntry('record-reads.js', main);
