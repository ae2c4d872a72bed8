/**
 * What the market hot-read bench (bench/market-reads.ts) shares: the command line, the run's sizes
 * (quick or full) and the provenance notes (the commit measured, how it differs from main).
 */
import { execSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headCommit, INDEXER_MAIN } from '../lib.js';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CHAIN = 'bench';

export interface Args {
  quick: boolean;
  profile: boolean;
  profileOnly: boolean;
  pools: number;
  transfers: number;
  seed: number;
  out: string;
  /** Re-renders the markdown of an earlier result file (ratios re-judged), no run. */
  render: string | null;
}

/** RESPONSE_CACHE=off in this process's environment reaches the indexer (the child inherits it). */
export const CACHE_OFF = process.env.RESPONSE_CACHE === 'off';

export function parseArgs(argv: string[]): Args {
  const a: Args = {
    quick: false,
    profile: false,
    profileOnly: false,
    pools: 520,
    transfers: 10_200,
    seed: 1,
    out: join(ROOT, 'bench', 'results'),
    render: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    if (x === '--quick') a.quick = true;
    else if (x === '--profile') a.profile = true;
    else if (x === '--profile-only') a.profileOnly = a.profile = true;
    else if (x === '--pools') a.pools = Number(argv[++i]);
    else if (x === '--transfers') a.transfers = Number(argv[++i]);
    else if (x === '--seed') a.seed = Number(argv[++i]);
    else if (x === '--out') a.out = argv[++i];
    else if (x === '--render') a.render = argv[++i];
    else throw new Error(`unknown argument ${x}`);
  }
  return a;
}

/** The run's sizes: `--quick` or full. */
export function params(quick: boolean) {
  return quick
    ? { trafficMs: 15_000, preciseN: 1_000, preciseMaxS: 10, dur: 2, profileS: 10 }
    : { trafficMs: 40_000, preciseN: 5_000, preciseMaxS: 30, dur: 5, profileS: 20 };
}
export type Params = ReturnType<typeof params>;

/** The commit measured, with notes on the response cache and on how the tree differs from main. */
export function provenance(notes: string[]): string {
  notes.push(
    CACHE_OFF
      ? 'RESPONSE_CACHE=off: every request runs its handler (the cold cost of each route after a block)'
      : 'response cache on (the default): a route flagged cached answers a repeated request from the answer computed since the last store write; the chain is frozen here, so after the first request every figure is a cache hit — compare with the -cache-off report for the handlers’ own cost',
  );
  const git = headCommit(ROOT);
  let commit = git.commit;
  if (git.dirty && !process.env.INDEXER_MAIN)
    notes.push(`working tree has uncommitted changes on top of ${commit}: the figures are of that tree`);
  try {
    if (commit === 'nocommit') throw new Error('git does not answer');
    const mainSha = execSync('git rev-parse --short main', { cwd: ROOT, encoding: 'utf8' }).trim();
    const srcDiff = execSync(`git diff --stat ${mainSha} -- app packages`, {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    notes.push(
      srcDiff
        ? `app/ and packages/ differ from main (${mainSha}): ${srcDiff.split('\n').pop()}`
        : `app/ and packages/ are identical to main (${mainSha}): the figures are of main's service code`,
    );
  } catch {}
  if (process.env.INDEXER_MAIN) {
    notes.push(`indexer measured: INDEXER_MAIN=${INDEXER_MAIN}`);
    if (process.env.INDEXER_COMMIT) commit = process.env.INDEXER_COMMIT;
  }
  return commit;
}
