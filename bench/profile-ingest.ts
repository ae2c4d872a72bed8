/**
 * Ingest profiler: builds (or loads from the state cache) a seeded bench chain, backfills it with
 * one indexer started under `--cpu-prof` (main thread) and prints the top self-time functions,
 * the backfill rate and the process memory split (RSS vs V8 heap vs external) scraped from the
 * indexer's own metrics at the end.
 *
 * Usage: node dist/bench/profile-ingest.js [--blocks 2000] [--dense-every 1000] [--out <dir>]
 * Not part of the release bench (the profiler slows the process down); a tool for finding where
 * the main thread's time goes.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { buildChain } from './chain.js';
import { topSelf } from './cpuprofile.js';
import { cleanupAll, log, onCleanup, promValue, rssMiB, sleep, startIndexerChild } from './lib.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const arg = (name: string, d: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : d;
  };
  const blocks = Number(arg('--blocks', '2000'));
  const denseEvery = Number(arg('--dense-every', '1000'));
  const profDir = arg('--out', mkdtempSync(join(os.tmpdir(), 'ingest-prof-')));
  mkdirSync(profDir, { recursive: true });
  const heap = argv.includes('--heap');
  const { node, info } = await buildChain({ seed: 1, blocks, denseEvery }, { useCache: false });
  onCleanup(() => node.stop());
  log(`chain ready: head ${info.head}, ${info.logCount} logs`);
  const dataDir = mkdtempSync(join(os.tmpdir(), 'ingest-prof-data-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const ix = await startIndexerChild({
    rpcUrl: node.rpcUrl,
    chain: 'bench',
    dataDir,
    execArgv: heap
      ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${profDir}`]
      : ['--cpu-prof', `--cpu-prof-dir=${profDir}`],
  });
  const t0 = performance.now();
  let peak = 0;
  for (;;) {
    peak = Math.max(peak, rssMiB(ix.pid));
    if ((await ix.anchor()) >= info.head) break;
    await sleep(200);
  }
  const secs = (performance.now() - t0) / 1000;
  const m = await ix.metrics();
  const mib = (name: string) => ((promValue(m, name) ?? Number.NaN) / 2 ** 20).toFixed(1);
  const rocks = m
    .split('\n')
    .filter((l) => l.startsWith('indexer_storage_memory_bytes{'))
    .map((l) => `${/kind="(\w+)"/.exec(l)?.[1]} ${(Number(l.split(' ').pop()) / 2 ** 20).toFixed(1)} MiB`)
    .join(', ');
  log(`rocksdb memory: ${rocks}`);
  for (const l of ix
    .logs()
    .split('\n')
    .filter((x) => x.includes('slow block commit'))
    .slice(0, 12))
    process.stdout.write(`${l}\n`);
  if (heap) {
    process.kill(ix.pid, 'SIGUSR2');
    for (let i = 0; i < 600 && !readdirSync(profDir).some((f) => f.endsWith('.heapsnapshot')); i++)
      await sleep(100);
    await sleep(5000);
    log(`heap snapshot written to ${profDir}`);
    await ix.stop();
    return;
  }
  log(
    `backfill ${info.head} blocks in ${secs.toFixed(1)} s = ${(info.head / secs).toFixed(1)} blocks/s, ${(info.logCount / secs).toFixed(0)} events/s; RSS now ${rssMiB(ix.pid).toFixed(0)} MiB (peak ${peak.toFixed(0)}), heap used ${mib('indexer_process_nodejs_heap_size_used_bytes')} MiB, external ${mib('indexer_process_nodejs_external_memory_bytes')} MiB`,
  );
  // The main thread writes its profile on exit: give shutdown time (stop() kills after 5 s).
  process.kill(ix.pid, 'SIGTERM');
  for (let i = 0; i < 300 && !readdirSync(profDir).some((f) => f.split('.')[4] === '0'); i++)
    await sleep(100);
  await ix.stop();
  const profs = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile'));
  // Main thread (thread id 0) first, then the busiest workers.
  profs.sort((a, b) => Number(a.split('.')[4]) - Number(b.split('.')[4]));
  for (const f of profs.slice(0, 4)) {
    process.stdout.write(`\n== ${f}\n${topSelf(join(profDir, f), 40)}\n`);
  }
}

main()
  .catch((e) => {
    process.stderr.write(`${e?.stack ?? e}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanupAll());
