/**
 * Market hot-read bench, section 4 (`--profile`, `--profile-only`): the indexer restarted on the
 * same data directory under `node --cpu-prof` while the big token's overview is hammered at c=32;
 * the top self-time and total-time functions of its main thread (bench/cpuprofile.ts).
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { type ProfileWindow, samplesIn, topSelf, topTotal } from '../cpuprofile.js';
import { cannon, cannonFigures, log, onCleanup, sleep, startIndexerChild, waitAnchor } from '../lib.js';
import { CHAIN } from './context.js';

export async function profileOverview(o: {
  rpcUrl: string;
  dataDir: string;
  env: Record<string, string>;
  head: number;
  path: string;
  seconds: number;
}): Promise<{
  dir: string;
  file: string;
  scope: string;
  self: string;
  total: string;
  reqPerSec: number;
}> {
  const dir = mkdtempSync(join(os.tmpdir(), 'market-reads-prof-'));
  const ix = await startIndexerChild({
    rpcUrl: o.rpcUrl,
    chain: CHAIN,
    dataDir: o.dataDir,
    env: o.env,
    execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  });
  onCleanup(() => ix.stop());
  await waitAnchor(ix, o.head, 300_000, 100);
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  const fromUs = nowUs();
  const r = cannonFigures(
    await cannon({ url: ix.base, paths: [o.path], connections: 32, durationS: o.seconds }),
  );
  const window: ProfileWindow = { fromUs, toUs: nowUs() };
  log(`profile: ${o.path} at c=32 under --cpu-prof: ${r.reqPerSec} req/s`);
  // The main thread writes its profile on exit: give the shutdown time (stop() kills after 5 s).
  process.kill(ix.pid, 'SIGTERM');
  const main = () => readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.split('.')[4] === '0');
  for (let i = 0; i < 300 && !main(); i++) await sleep(100);
  await sleep(500);
  await ix.stop();
  const f = main();
  if (!f) throw new Error(`no main-thread profile in ${dir}: ${readdirSync(dir).join(', ')}`);
  const file = join(dir, f);
  // Only the samples taken while the route was hammered (start-up and catch-up left out), unless
  // the clocks do not meet (then the whole profile, said so).
  const n = samplesIn(file, window);
  const w = n.inside > 0.2 * n.all ? window : undefined;
  const scope = w
    ? `${n.inside} of ${n.all} samples, those taken while the route was hammered`
    : `all ${n.all} samples (the hammer window matched ${n.inside}: whole process life, start-up included)`;
  return {
    dir,
    file,
    scope,
    self: topSelf(file, 30, w),
    total: topTotal(file, 30, w),
    reqPerSec: r.reqPerSec,
  };
}
