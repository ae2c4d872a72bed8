/**
 * What the history pruner left in a stopped indexer's store, per block-versioned table
 * (schema/history.ts): its rows, the rows of versions older than the mark (META
 * `history:oldest`), the subjects those belong to, and the versions a pass to the mark would still
 * delete (0 once a pass completed). For the retention e2e and operators checking HISTORY_RETENTION.
 */
import { join } from 'node:path';
import type { VersionedTable } from '../schema/history.js';
import { HISTORY_OLDEST_META, VERSIONED_TABLES } from '../schema/history.js';
import { tableCutoff } from '../storage/history-prune.js';
import type { Store } from '../storage/index.js';
import { createStore, inView } from '../storage/index.js';

/** One versioned table's figures. */
export interface HistoryVersions {
  name: string;
  layout: 'since' | 'interval';
  rows: number;
  /** Rows of versions that began before the mark (`since`: the key's block; `interval`: fromBlock). */
  rowsBelowMark: number;
  /** Distinct subjects (key without its block) among those rows. */
  subjectsBelowMark: number;
  /** Rows a pass to the mark would delete now: the versions no read at or after the mark reaches. */
  unreachable: number;
}

/**
 * Versions of table `v` no read at or after block `cut` reaches, counted on their own (not with
 * the pruner's slices, so the count checks the pruner): `since` — per subject, every version below
 * `cut` but the newest at or below it; `interval` — every version whose toBlock is at or below it.
 */
function countUnreachable(store: Store, v: VersionedTable, cut: number): number {
  const layout = v.layout;
  let n = 0;
  const below = new Map<string, number>();
  inView(store, (view) =>
    view.eachValue(v.table, {}, (value, raw) => {
      if (layout.kind === 'interval') {
        if (layout.until(value) <= cut) n++;
        return;
      }
      const block = raw.readUInt32BE(raw.length - 8) * 0x1_0000_0000 + raw.readUInt32BE(raw.length - 4);
      if (block > cut) return;
      const subject = raw.subarray(0, raw.length - 8).toString('hex');
      below.set(subject, (below.get(subject) ?? 0) + 1);
    }),
  );
  for (const versions of below.values()) n += versions - 1;
  return n;
}

/**
 * Opens the store at `dataDir` (its `rocks` directory; the indexer must be stopped) and counts,
 * per versioned table, the figures of {@link HistoryVersions}. `mark`: the META mark (null: none).
 */
export async function historyVersions(
  dataDir: string,
): Promise<{ mark: number | null; tables: HistoryVersions[] }> {
  const store = await createStore({ dataDir: join(dataDir, 'rocks'), unfinalisedWindow: 2 });
  try {
    const mark = store.getMeta<number>(HISTORY_OLDEST_META) ?? null;
    const tables = VERSIONED_TABLES.map((v) => {
      const t = v.table;
      let rows = 0;
      let below = 0;
      const subjects = new Set<string>();
      inView(store, (view) =>
        view.eachValue(t, {}, (_value, raw) => {
          rows++;
          const block = raw.readUInt32BE(raw.length - 8) * 0x1_0000_0000 + raw.readUInt32BE(raw.length - 4);
          if (mark !== null && block < mark) {
            below++;
            subjects.add(raw.subarray(0, raw.length - 8).toString('hex'));
          }
        }),
      );
      const unreachable = mark === null ? 0 : countUnreachable(store, v, tableCutoff(store, v, mark));
      return {
        name: t.name,
        layout: v.layout.kind,
        rows,
        rowsBelowMark: below,
        subjectsBelowMark: subjects.size,
        unreachable,
      };
    });
    return { mark, tables };
  } finally {
    await store.close();
  }
}

if (process.argv[1]?.endsWith('history-versions.js')) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: history-versions <DATA_DIR>\n');
    process.exit(2);
  }
  process.stdout.write(`${JSON.stringify(await historyVersions(dir))}\n`);
}
