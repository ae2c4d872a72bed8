/**
 * What every section of the release bench (bench/run.ts) shares: the command line, the run's
 * parameters (quick or full), the indexer environment, and the figures, hard failures and notes
 * the sections add to, in the order the report lists them.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, round } from '../lib.js';
import { type Figure, judge } from '../report.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const CHAIN = 'bench';

export interface Args {
  quick: boolean;
  seed: number;
  cache: boolean;
  compare: string | null;
  compareOnly: [string, string] | null;
  threshold: number;
  out: string;
  /**
   * `--only as-of[,points]`: run only these sections, not the whole release bench. `points`: the
   * chain, the uWS ceiling, the anvil backfill and the point reads on the moving chain (section 4).
   */
  only: string[] | null;
  /** `--as-of-routes <regex>`: the as-of section measures only the routes whose name matches. */
  asOfRoutes: RegExp | null;
  /** `--frozen`: point reads on a chain that does not move (a diagnostic beside the budget's moving chain). */
  frozen: boolean;
}

/** The sections `--only` can name. */
export const ONLY_SECTIONS = ['as-of', 'points'] as const;

export function parseArgs(argv: string[]): Args {
  const a: Args = {
    quick: false,
    seed: 1,
    cache: false,
    compare: null,
    compareOnly: null,
    threshold: 0.1,
    out: join(ROOT, 'bench', 'results'),
    only: null,
    asOfRoutes: null,
    frozen: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    if (x === '--quick') a.quick = true;
    else if (x === '--seed') a.seed = Number(argv[++i]);
    else if (x === '--cache') a.cache = true;
    else if (x === '--compare') a.compare = argv[++i];
    else if (x === '--compare-only') a.compareOnly = [argv[++i], argv[++i]];
    else if (x === '--threshold') a.threshold = Number(argv[++i]);
    else if (x === '--out') a.out = argv[++i];
    else if (x === '--only') {
      a.only = (argv[++i] ?? '').split(',').filter(Boolean);
      const bad = a.only.filter((s) => !(ONLY_SECTIONS as readonly string[]).includes(s));
      if (!a.only.length || bad.length)
        throw new Error(`--only takes ${ONLY_SECTIONS.join(', ')} (comma-separated), not ${bad.join(', ')}`);
    } else if (x === '--as-of-routes') a.asOfRoutes = new RegExp(argv[++i]);
    else if (x === '--frozen') a.frozen = true;
    else throw new Error(`unknown argument ${x}`);
  }
  return a;
}

/** The run's sizes: `--quick` (≈ 2–3 minutes) or full (≥ 20,000 blocks, ≥ 1,000,000 logs). */
export function params(quick: boolean) {
  return quick
    ? {
        blocks: 2_000,
        denseEvery: 1_000,
        dur: 2,
        durPage: 2,
        preciseN: 2_000,
        h2qSamples: 25,
        backfillTimeoutMs: 120_000,
        subscribers: 200,
        streamBlocks: 15,
        devnetTrafficMs: 15_000,
        asOfTrafficMs: 15_000,
        asOfRounds: 3,
        asOfSliceS: 0.5,
      }
    : {
        blocks: 20_000,
        denseEvery: 2_000,
        dur: 10,
        durPage: 5,
        preciseN: 10_000,
        h2qSamples: 60,
        backfillTimeoutMs: 900_000,
        subscribers: 1_000,
        streamBlocks: 40,
        devnetTrafficMs: 45_000,
        asOfTrafficMs: 60_000,
        asOfRounds: 4,
        asOfSliceS: 1,
      };
}
export type Params = ReturnType<typeof params>;

export type FigureInput = Omit<Figure, 'status'> & { status?: Figure['status'] };
/** A figure's fields past its id, group, label and value (a section's figure helper names those). */
export type FigureRest = Omit<FigureInput, 'id' | 'group' | 'label' | 'value'>;

/** The run in progress: its settings, and what the sections report. */
export interface Release {
  args: Args;
  quick: boolean;
  P: Params;
  blocksPerTask: number;
  decodeThreads: number;
  ixEnv: Record<string, string>;
  figures: Figure[];
  hardFailures: string[];
  notes: string[];
  /** Judges a figure against its budget, logs it and adds it to the report. */
  fig: (f: FigureInput) => Figure;
  /**
   * While the chain moves (moving.ts): a bare uWS hello-world's URL, sampled right before each
   * point read in the same conditions (anvil mining, the indexer following) for an info ratio.
   */
  movingHello: string | null;
}

export function newRelease(args: Args): Release {
  const blocksPerTask = Number(process.env.BLOCKS_PER_TASK ?? 5);
  const decodeThreads = Number(process.env.DECODE_THREADS ?? 2);
  const figures: Figure[] = [];
  const fig = (f: FigureInput) => {
    const x = judge({ status: 'measured', ...f } as Figure);
    figures.push(x);
    log(
      `figure ${x.id} = ${x.value === null ? x.status : round(x.value, 3)} ${x.unit}${x.ratio !== undefined ? ` (ratio ${round(x.ratio, 3)})` : ''}${x.met === null || x.met === undefined ? '' : x.met ? ' met' : ' NOT MET'}`,
    );
    return x;
  };
  return {
    args,
    quick: args.quick,
    P: params(args.quick),
    blocksPerTask,
    decodeThreads,
    // The traces lane replays every block with callTracer, which on anvil is far slower than the
    // block fetch being compared against; ingest figures measure the block lane (TRACES=off).
    ixEnv: { BLOCKS_PER_TASK: String(blocksPerTask), DECODE_THREADS: String(decodeThreads), TRACES: 'off' },
    figures,
    hardFailures: [],
    notes: [],
    fig,
    movingHello: null,
  };
}
