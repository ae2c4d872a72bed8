/**
 * `node packages/indexer/dist/tools/table-sizes.js <DATA_DIR>`: the logical size of every table of
 * a stopped indexer's store, as JSON `[{id, name, owner, rows, keyBytes, valueBytes}]` in id order
 * (keys and values as stored, before RocksDB's block format and compression). For the read-model
 * table of bytes per transaction (docs/read-model.md) and the ingest bench.
 */
import { join } from 'node:path';
import { ALL_TABLES } from '../schema/tables/index.js';
import { openRocks } from '../storage/binding.js';

/** One table's figures. */
export interface TableSize {
  id: number;
  name: string;
  owner: string;
  rows: number;
  keyBytes: number;
  valueBytes: number;
}

/** Walks every row of the store at `dataDir` (its `rocks` directory) and sums per table id. */
export async function tableSizes(dataDir: string): Promise<TableSize[]> {
  const rocks = await openRocks(join(dataDir, 'rocks'));
  const by = new Map<number, TableSize>();
  try {
    rocks.each({}, (k, v) => {
      const id = k[0];
      let s = by.get(id);
      if (!s) {
        const t = ALL_TABLES.find((x) => x.id === id);
        s = {
          id,
          name: t?.name ?? `0x${id.toString(16)}`,
          owner: t?.owner ?? '?',
          rows: 0,
          keyBytes: 0,
          valueBytes: 0,
        };
        by.set(id, s);
      }
      s.rows++;
      s.keyBytes += k.length;
      s.valueBytes += v.length;
      return true;
    });
  } finally {
    await rocks.close();
  }
  return [...by.values()].sort((a, b) => a.id - b.id);
}

if (process.argv[1]?.endsWith('table-sizes.js')) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: table-sizes <DATA_DIR>\n');
    process.exit(2);
  }
  process.stdout.write(`${JSON.stringify(await tableSizes(dir))}\n`);
}
