/**
 * Projection digest: SHA-256 over every key and value of the data tables (everything except
 * META, UNDO and GAP, which describe the process's history rather than the chain, and any
 * observation tables the caller names), in key order.
 * Two stores that indexed the same canonical chain to the same head have the same digest,
 * whatever reorgs or crashes one of them went through.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { GAP, META, UNDO } from '../schema/tables/chain.js';
import { STREAM_FRAME, STREAM_SEQ } from '../schema/tables/streams.js';
import { RECON } from '../schema/tables/tokens.js';
import { openRocks, type Rocks } from './binding.js';

const EXCLUDED = new Set<number>([META.id, UNDO.id, GAP.id]);

/** Digest per table id (hex) and overall. */
export function digestStore(
  rocks: Rocks,
  alsoExclude: number[] = [],
): { all: string; tables: Record<string, { rows: number; sha256: string }> } {
  const excluded = new Set([...EXCLUDED, ...alsoExclude]);
  const all = createHash('sha256');
  const per = new Map<number, { rows: number; h: ReturnType<typeof createHash> }>();
  rocks.each({}, (k, v) => {
    const t = k[0];
    if (excluded.has(t)) return true;
    let e = per.get(t);
    if (!e) {
      e = { rows: 0, h: createHash('sha256') };
      per.set(t, e);
    }
    e.rows++;
    for (const h of [all, e.h]) {
      h.update(Buffer.from([k.length >> 8, k.length & 0xff]));
      h.update(k);
      h.update(
        Buffer.from([
          (v.length >>> 24) & 0xff,
          (v.length >>> 16) & 0xff,
          (v.length >>> 8) & 0xff,
          v.length & 0xff,
        ]),
      );
      h.update(v);
    }
    return true;
  });
  const tables: Record<string, { rows: number; sha256: string }> = {};
  for (const [t, e] of [...per.entries()].sort((a, b) => a[0] - b[0])) {
    tables[`0x${t.toString(16).padStart(2, '0')}`] = { rows: e.rows, sha256: e.h.digest('hex') };
  }
  return { all: all.digest('hex'), tables };
}

/**
 * The projection digest of a stopped indexer's store in `dataDir` (its `rocks` directory), with
 * the blocks checkpoint it was taken at: `{head, all, tables}` (see {@link digestStore}). Excluded
 * beside META/UNDO/GAP: reconciliation verdicts (node observations made on a timer) and the stream
 * logs (frames and sequences: they record the process's reorg history). Used by the
 * reorg-convergence and crash tests through `tools/digest`.
 */
export async function digestDataDir(dataDir: string): Promise<{
  head: unknown;
  all: string;
  tables: Record<string, { rows: number; sha256: string }>;
}> {
  const rocks = await openRocks(join(dataDir, 'rocks'));
  try {
    const head = rocks.get(META.key('checkpoint:blocks'));
    const d = digestStore(rocks, [RECON.id, STREAM_FRAME.id, STREAM_SEQ.id]);
    return { head: head ? META.value.decode(head) : null, ...d };
  } finally {
    await rocks.close();
  }
}
