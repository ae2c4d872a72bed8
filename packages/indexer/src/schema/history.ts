/**
 * The block-versioned tables, declared once: how each keeps its versions and so which of them an
 * as-of read inside the retained range can still reach. HISTORY_RETENTION prunes the rest
 * (src/storage/history-prune.ts walks this list; nothing else names the tables to prune), and a
 * table that keeps versions by block must be listed here (history.test.ts fails on a `…_history`
 * table, or one whose doc says it is written "each block", without a declaration).
 *
 * The rule, for a cutoff C (head − max(HISTORY_RETENTION, UNFINALISED_WINDOW), below which no
 * read may name a block): a version that is not the state at C or later is unreachable. Per
 * layout:
 *  - `since`: the key is the subject's parts then the u64 block the version became valid
 *    (`[token, wallet, block]`); the value is the state from that block until the subject's next
 *    version. At C a read sees the newest version at or below C: every older one goes, that one
 *    and every later one stay. A subject never loses its last version.
 *  - `interval`: the key ends with the version's u64 fromBlock, the value holds its toBlock
 *    (exclusive): valid in [fromBlock, toBlock). A version with toBlock ≤ C is valid at no block
 *    ≥ C: it goes, row by row.
 * A table whose readers look below the block they answer at (a 24 h window's first row, the UTC
 * day's first block) declares how far in seconds of block time (`lookbackSeconds`): its own cutoff
 * is then the block before the first block at or after time(C) − lookbackSeconds.
 */
import type { AnyTable } from './table.js';
import { POOL_CUM, STATE_HIST } from './tables/markets.js';
import {
  BALANCE_HIST,
  HOLDER_HIST,
  HOLDER_ID_HIST,
  LAUNCH_HIST,
  STATS_HIST,
  type VersionedBalance,
} from './tables/tokens.js';
import { GENERATION_HIST, POSITION_HIST } from './tables/wallets.js';

/**
 * META name of the oldest block whose state the store still holds exactly (a number): the history
 * pruner raises it before it deletes any version below it, so a read that sees a pruned row also
 * sees the mark. Absent: nothing was pruned (the first indexed block is the bound).
 */
export const HISTORY_OLDEST_META = 'history:oldest';

/**
 * META name of the pruner's pass in progress ({@link PruneProgress}), written with each of its
 * delete batches; absent or null when no pass is under way. A restart resumes it.
 */
export const HISTORY_PRUNE_META = 'history:prune';

/** A pass of the history pruner as META {@link HISTORY_PRUNE_META} records it. */
export interface PruneProgress {
  /** The pass's cutoff C (block number): the mark {@link HISTORY_OLDEST_META} it raised. */
  cutoff: number;
  /** Id of the table being pruned (one of {@link VERSIONED_TABLES}, in list order). */
  table: number;
  /** Full key (hex, table id first) the table's walk resumes at, inclusive; null: its start. */
  from: string | null;
}

/** How a versioned table lays out its versions (see the module comment). */
export type VersionLayout =
  | { kind: 'since' }
  | {
      kind: 'interval';
      /** The version's toBlock (exclusive) from its stored value. */
      until: (value: unknown) => number;
    };

/** One versioned table and the rule its versions are pruned by. */
export interface VersionedTable {
  table: AnyTable;
  layout: VersionLayout;
  /** How far below the block it answers at a reader of this table looks, seconds of block time (0: not at all). */
  lookbackSeconds: number;
  /** Who reads the versions, and so why the rule keeps each version they reach (docs/read-model.md). */
  readers: string;
}

/** 24 hours, seconds: the longest stats window (markets/windows.ts) and a UTC day (wallets/pnl.ts). */
const DAY_SECONDS = 86_400;

/** Every block-versioned table, in the order the pruner walks them. */
export const VERSIONED_TABLES: readonly VersionedTable[] = [
  {
    table: STATS_HIST,
    layout: { kind: 'since' },
    lookbackSeconds: 0,
    readers: 'tokens/read.ts statsAt: the newest row at or below N (one reverse seek)',
  },
  {
    table: BALANCE_HIST,
    layout: { kind: 'since' },
    lookbackSeconds: 0,
    readers:
      'tokens/read.ts balanceAt and reader.ts balanceCoverage: the newest row at or below N; tokens/apply/seeds.ts: whether any row exists (a subject keeps one)',
  },
  {
    table: HOLDER_HIST,
    layout: { kind: 'interval', until: (v) => v as number },
    lookbackSeconds: 0,
    readers: 'storage/versioned.ts walkVersioned (holders by balance): rows valid at N',
  },
  {
    table: HOLDER_ID_HIST,
    layout: { kind: 'interval', until: (v) => (v as VersionedBalance).block },
    lookbackSeconds: 0,
    readers: 'storage/versioned.ts walkVersioned (holders by wallet id): rows valid at N',
  },
  {
    table: LAUNCH_HIST,
    layout: { kind: 'since' },
    lookbackSeconds: 0,
    readers:
      'tokens/read.ts launchAt: the newest row at or below N; ingest reads the newest row (launch_last)',
  },
  {
    table: STATE_HIST,
    layout: { kind: 'since' },
    lookbackSeconds: 0,
    readers: 'markets/read.ts stateAt: the newest row at or below N',
  },
  {
    table: POOL_CUM,
    layout: { kind: 'since' },
    lookbackSeconds: DAY_SECONDS,
    readers:
      "markets/windows.ts: the newest row at or below N and at or below the 24 h window's first block − 1, rows in between; ingest reads the newest row (pool_cumulative_last)",
  },
  {
    table: POSITION_HIST,
    layout: { kind: 'since' },
    lookbackSeconds: DAY_SECONDS,
    readers:
      "wallets/pnl.ts positionAt: the newest row at or below N; dayUpTo: the newest row before N's UTC day and the rows of the day",
  },
  {
    table: GENERATION_HIST,
    layout: { kind: 'since' },
    lookbackSeconds: 0,
    readers: 'cohorts/reader.ts generationAt: the newest row at or below N',
  },
];

/**
 * Whether table `t` looks block-versioned by its registry entry: its name ends in `_history`, or
 * its doc says a row is written per block that changed it ("each block", "end of each").
 */
export function looksVersioned(t: AnyTable): boolean {
  return t.name.endsWith('_history') || /\beach block\b|\bend of each\b/i.test(t.doc);
}

/** Names of the tables of `tables` that look versioned ({@link looksVersioned}) and have no declaration in `declared`. */
export function undeclaredVersioned(
  tables: readonly AnyTable[],
  declared: readonly VersionedTable[] = VERSIONED_TABLES,
): string[] {
  const ids = new Set(declared.map((v) => v.table.id));
  return tables.filter((t) => looksVersioned(t) && !ids.has(t.id)).map((t) => t.name);
}
