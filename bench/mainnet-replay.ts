/**
 * Ingest at a mainnet shape: the recorded Ethereum mainnet blocks of test/fixtures (full
 * transactions and their receipts: real calldata, real logs of real tokens, pools and routers)
 * renumbered and re-linked into a long chain, served by the replay server (bench/replay-server.ts),
 * then the node's raw fetch ceiling on it and one indexer per `--main` build backfilled to head.
 *
 * Block k of the chain is fixture block k mod F (F recorded blocks); it gets number k, a synthetic
 * hash, its parent's hash, a timestamp 12 s after its parent, and transaction hashes made unique per
 * block (receipts and logs rewritten to match), so the payloads are the recorded ones except for
 * those coordinates. Methods the recording does not hold (eth_call for token metadata, traces)
 * answer "does not exist", as a node without state or debug API would; the indexer records the
 * probes as unavailable and disables the traces lane.
 *
 * Usage: node dist/bench/mainnet-replay.js [--blocks 1000] [--main label=path]… [--rounds 1]
 *          [--prof] [--out report.md]
 * `--prof` runs the indexer under --cpu-prof (slower) and appends the hottest functions of its main
 * thread and worker threads.
 */

import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { profileSection } from './cpuprofile.js';
import { commitCell, type IngestRun, rawCeiling, runIndexer, threadCpuTable } from './ingest-transfers.js';
import { benchArgs, emitReport, envFor, log, onCleanup, runIfEntry } from './lib.js';
import type { RawFetchResult } from './rawfetch.js';
import { startReplayServer } from './replay-server.js';

type Json = Record<string, any>;

/** The recorded Ethereum blocks that carry full transaction objects and a receipts file. */
export function fixtureBlocks(): Array<{ n: number; block: Json; receipts: Json[] }> {
  const here = dirname(fileURLToPath(import.meta.url));
  const root = [join(here, '../../test/fixtures/ethereum'), join(here, '../test/fixtures/ethereum')].find(
    existsSync,
  );
  if (!root) throw new Error('test/fixtures/ethereum not found');
  const out: Array<{ n: number; block: Json; receipts: Json[] }> = [];
  for (const n of [17000000, 18000000, 18500000, 21925176]) {
    const b = join(root, String(n), 'block.json');
    const r = join(root, String(n), 'receipts.json');
    if (!existsSync(b) || !existsSync(r)) continue;
    const block = JSON.parse(readFileSync(b, 'utf8')) as Json;
    // A block recorded with transaction hashes only cannot be served as eth_getBlockByNumber(n, true).
    if (block.transactions.some((t: unknown) => typeof t === 'string')) continue;
    out.push({ n, block, receipts: JSON.parse(readFileSync(r, 'utf8')) as Json[] });
  }
  return out;
}

const h32 = (s: string) => `0x${createHash('sha256').update(s).digest('hex')}`;
const qty = (n: number) => `0x${n.toString(16)}`;

/**
 * Writes a replay recording of `blocks` blocks (replay-server format: number, hash, block JSON,
 * receipts JSON, tab-separated, one line per block). Returns its tx and log counts.
 */
export function writeMainnetChain(
  file: string,
  blocks: number,
): { txs: number; logs: number; sources: number[]; rpcBytes: number } {
  const fx = fixtureBlocks();
  if (!fx.length) throw new Error('no usable mainnet fixture block');
  // Written line by line: a 1M-transaction chain is gigabytes, past one string's length limit.
  const fd = openSync(file, 'w');
  let parent = `0x${'0'.repeat(64)}`;
  let txs = 0;
  let logs = 0;
  // JSON-RPC payload bytes the node serves for the chain: each block with full transactions and
  // its receipts, as the replay server sends them (the `result` values).
  let rpcBytes = 0;
  const t0 = 1_700_000_000;
  for (let k = 0; k < blocks; k++) {
    const src = fx[k % fx.length];
    const hash = h32(`replay-block:${k}`);
    const num = qty(k);
    const ts = qty(t0 + 12 * k);
    const txHash = new Map<string, string>();
    const block: Json = { ...src.block, number: num, hash, parentHash: parent, timestamp: ts };
    block.transactions = src.block.transactions.map((t: Json) => {
      const nh = h32(`replay-tx:${k}:${t.hash}`);
      txHash.set(t.hash, nh);
      const o: Json = { ...t, hash: nh, blockHash: hash, blockNumber: num };
      if ('blockTimestamp' in t) o.blockTimestamp = ts;
      return o;
    });
    const receipts = src.receipts.map((r: Json) => ({
      ...r,
      transactionHash: txHash.get(r.transactionHash),
      blockHash: hash,
      blockNumber: num,
      logs: (r.logs as Json[]).map((l) => {
        const o: Json = {
          ...l,
          blockHash: hash,
          blockNumber: num,
          transactionHash: txHash.get(l.transactionHash),
        };
        if ('blockTimestamp' in l) o.blockTimestamp = ts;
        return o;
      }),
    }));
    txs += block.transactions.length;
    for (const r of receipts) logs += r.logs.length;
    const bj = JSON.stringify(block);
    const rj = JSON.stringify(receipts);
    rpcBytes += Buffer.byteLength(bj) + Buffer.byteLength(rj);
    writeSync(fd, `${k}\t${hash}\t${bj}\t${rj}\n`);
    parent = hash;
  }
  closeSync(fd);
  return { txs, logs, sources: fx.map((f) => f.n), rpcBytes };
}

const f0 = (x: number) => x.toFixed(0);
/**
 * `--env KEY=VALUE` (repeatable): configuration for every indexer of the run. VERIFY_ROOTS is off
 * unless given: the replay chain re-links recorded transactions under synthetic block hashes, whose
 * header and trie roots cannot rebuild (the roots check would halt ingest at block 0 with
 * roots_mismatch); its cost on real blocks is bench/roots.ts's figure. `--env-of label=K=V,K2=V2`
 * adds settings for one `--main` label only (one build under two labels, two settings).
 */
const envArgs = (argv: string[]): Record<string, string> => {
  const env: Record<string, string> = { VERIFY_ROOTS: 'off' };
  for (let i = 0; i < argv.length; i++)
    if (argv[i] === '--env' && argv[i + 1]?.includes('=')) {
      const [k, ...v] = argv[i + 1].split('=');
      env[k] = v.join('=');
    }
  return env;
};
const f1 = (x: number) => x.toFixed(1);

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { arg, mains } = benchArgs(argv);
  const blocks = Number(arg('--blocks', '1000'));
  const rounds = Number(arg('--rounds', '1'));
  const dir = mkdtempSync(join(os.tmpdir(), 'mainnet-replay-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'chain.tsv');
  const c = writeMainnetChain(file, blocks);
  log(
    `mainnet replay chain: ${blocks} blocks from fixtures ${c.sources.join(', ')}: ${c.txs} txs, ${c.logs} logs`,
  );
  const replay = await startReplayServer(file, '0x1');
  onCleanup(() => replay.stop());
  const head = blocks - 1;
  const raw: RawFetchResult[] = [await rawCeiling(replay.url, head, c.txs, c.logs)];
  log(`raw fetch: ${f0(raw[0].blocksPerSecond)} blocks/s`);
  const runs: IngestRun[] = [];
  for (let round = 1; round <= rounds; round++)
    for (const [name, main] of mains) {
      const label = rounds > 1 ? `${name} (round ${round})` : name;
      const r = await runIndexer(
        { rpcUrl: replay.url, head, txCount: c.txs, logCount: c.logs },
        label,
        main,
        {
          prof: argv.includes('--prof'),
          tables: true,
          settle: !argv.includes('--no-settle'),
          env: { ...envArgs(argv), ...envFor(argv, name, '--env-of') },
        },
      );
      log(
        `indexer ${label}: head in ${f1(r.toHeadSeconds)} s, ${f0(r.txPerSecond)} tx/s, ${f0(r.eventsPerSecond)} events/s`,
      );
      runs.push(r);
    }
  raw.push(await rawCeiling(replay.url, head, c.txs, c.logs));
  const ceil = Math.max(...raw.map((r) => r.blocksPerSecond));
  const ceilTx = (ceil * c.txs) / blocks;
  const ceilEv = (ceil * c.logs) / blocks;
  const lines = [
    `Chain: ${blocks} blocks replayed from recorded Ethereum mainnet blocks ${c.sources.join(', ')} (renumbered and re-linked; bench/mainnet-replay.ts), ${c.txs} txs (${f0(c.txs / blocks)}/block), ${c.logs} logs (${(c.logs / c.txs).toFixed(2)}/tx), served by bench/replay-server.ts (chain id 1).`,
    '',
    `Raw fetch ceiling (best pass, before and after): ${raw.map((r) => `${f0(r.blocksPerSecond)} blocks/s`).join(', ')} → ${f0(ceil)} blocks/s = ${f0(ceilTx)} tx/s = ${f0(ceilEv)} events/s.`,
    '',
    '| build | time to head (from spawn) | backfill | blocks/s | tx/s | events/s | tx/s ÷ ceiling | events/s ÷ ceiling | main-thread CPU ms/block | process CPU ms/block | peak RSS |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map(
      (r) =>
        `| ${r.label} | ${f1(r.toHeadSeconds)} s | ${f1(r.backfillSeconds)} s | ${f0(r.blocksPerSecond)} | ${f0(r.txPerSecond)} | ${f0(r.eventsPerSecond)} | ${(r.txPerSecond / ceilTx).toFixed(2)} | ${(r.eventsPerSecond / ceilEv).toFixed(2)} | ${f1(r.mainCpuMsPerBlock)} | ${f1(r.processCpuMsPerBlock)} | ${f0(r.peakRssMiB)} MiB |`,
    ),
    ...threadCpuTable(runs),
  ];
  lines.push(
    '',
    'Main-thread commit time per block (`indexer_ingest_block_commit_seconds`, pauses excluded; p99 is the histogram bucket bound it falls in):',
    '',
    '| build | blocks of 50–149 txs | blocks of 150+ txs |',
    '| --- | --- | --- |',
    ...runs.map((r) => `| ${r.label} | ${commitCell(r, '50-149')} | ${commitCell(r, '150+')} |`),
  );
  lines.push(
    '',
    "Memory (MiB) at the highest sampled RSS of the backfill and at head, from the indexer's metrics: the serving thread's V8 heap, external, the engine thread's, the writer thread's and the decode threads' V8 heaps (allocated), RocksDB memtables, table readers (index and filter blocks outside the block cache) and block cache; the rest is the writer's native batches, allocator slack and code:",
    '',
    '| build | when | RSS | serving heap | external | engine heap | writer heap | decode heaps | memtables | table readers | block cache | rest | data dir on disk |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.flatMap((r) =>
      (
        [
          [`peak (${f0(r.peakRssMiB)} by /proc)`, r.memoryAtPeak],
          ['head', r.memoryAtHead],
        ] as const
      ).map(([when, m]) =>
        m
          ? `| ${r.label} | ${when} | ${f0(m.rss)} | ${f0(m.mainHeap)} | ${f0(m.external)} | ${f0(m.engineHeap)} | ${f0(m.writerHeap)} | ${f0(m.decodeHeaps)} | ${f0(m.memtables)} | ${f0(m.tableReaders)} | ${f0(m.blockCache)} | ${f0(m.rest)} | ${f0(r.diskMiB)} |`
          : `| ${r.label} | ${when} | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | ${f0(r.diskMiB)} |`,
      ),
    ),
  );
  const stageNames = [...new Set(runs.flatMap((r) => Object.keys(r.stageMsPerBlock ?? {})))];
  if (stageNames.length)
    lines.push(
      '',
      'Main-thread wall ms per block by commit stage:',
      '',
      `| build | ${stageNames.join(' | ')} |`,
      `| --- | ${stageNames.map(() => '---:').join(' | ')} |`,
      ...runs.map(
        (r) =>
          `| ${r.label} | ${stageNames.map((n) => r.stageMsPerBlock?.[n]?.toFixed(2) ?? 'n/a').join(' | ')} |`,
      ),
    );
  lines.push(
    '',
    `Disk: the node's JSON-RPC bytes for this chain (blocks with full transactions and receipts, as served) are ${f0(c.rpcBytes / 2 ** 20)} MiB = ${f0(c.rpcBytes / c.txs)} bytes/tx.`,
    '',
    'The data directory at head, while RocksDB still compacts what the backfill wrote (its bottom level is the compressed one), and once compaction has caught up (settled: no compaction pending or running).',
    '',
    '| build | data dir at head | ÷ JSON-RPC bytes | data dir settled | ÷ JSON-RPC bytes | settled after | logical bytes (keys + values) | ÷ JSON-RPC bytes |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map((r) => {
      const logical = (r.tables ?? []).reduce((a, t) => a + t.keyBytes + t.valueBytes, 0);
      const st = r.settled
        ? `${f0(r.settled.diskMiB)} MiB | ${((r.settled.diskMiB * 2 ** 20) / c.rpcBytes).toFixed(2)} | ${f0(r.settled.seconds)} s`
        : 'not settled | n/a | n/a';
      return `| ${r.label} | ${f0(r.diskMiB)} MiB | ${((r.diskMiB * 2 ** 20) / c.rpcBytes).toFixed(2)} | ${st} | ${f0(logical / 2 ** 20)} MiB | ${(logical / c.rpcBytes).toFixed(2)} |`;
    }),
  );
  for (const r of runs)
    if (r.settled && Object.keys(r.settled.levelsMiB).length)
      lines.push(
        '',
        `${r.label}, settled: table files by LSM level (L0 and L1 plain, deeper levels ZSTD under the default \`bottom\` compression): ${Object.entries(
          r.settled.levelsMiB,
        )
          .map(([l, v]) => `${l} ${f0(v)} MiB`)
          .join(
            ', ',
          )}; table files of the current version ${f0(r.settled.sstLiveMiB)} MiB, on disk ${f0(r.settled.sstTotalMiB)} MiB, RocksDB versions alive ${r.settled.liveVersions}.`,
      );
  const first = runs.find((r) => r.tables);
  if (first?.tables)
    lines.push(
      '',
      `Logical bytes per transaction by table (${first.label}; keys and values as stored, before RocksDB's block format and compression):`,
      '',
      '| id | table | owner | rows | bytes/tx |',
      '| --- | --- | --- | ---: | ---: |',
      ...first.tables
        .filter((t) => t.keyBytes + t.valueBytes > 0)
        .map(
          (t) =>
            `| 0x${t.id.toString(16).padStart(2, '0')} | ${t.name} | ${t.owner} | ${t.rows} | ${((t.keyBytes + t.valueBytes) / c.txs).toFixed(1)} |`,
        ),
    );
  for (const r of runs)
    if (r.profileTop)
      lines.push(
        ...profileSection(
          `Self time, ${r.label} (--cpu-prof; main thread top 40, then worker threads):`,
          r.profileTop,
        ),
      );
  const md = lines.join('\n');
  emitReport(md, arg);
}

runIfEntry('mainnet-replay.js', main);
