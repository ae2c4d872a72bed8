/**
 * Soak plumbing: watching an indexer's log file for a line, and the reference stores the soak's
 * digests are compared with (a fresh index of the node's chain, built without faults, reorgs or
 * kills; see {@link refDigest}).
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import {
  chainTables,
  differing,
  diffTables,
  digestOf,
  type RowDiff,
  type StoreDigest,
  waitConverged,
} from '../faults/lib.js';
import { startIndexer } from '../harness/indexer.js';
import { hashAt } from './node.js';

/**
 * Resolves true as soon as `marker` appears in `file` after byte `from` (polled every millisecond
 * or so), false after `timeoutMs`.
 */
export async function waitLog(
  file: string,
  marker: string,
  from: number,
  timeoutMs: number,
): Promise<boolean> {
  const t0 = Date.now();
  let pos = from;
  let tail = '';
  while (Date.now() - t0 < timeoutMs) {
    let size = 0;
    try {
      size = statSync(file).size;
    } catch {}
    if (size > pos) {
      const fd = openSync(file, 'r');
      try {
        const buf = Buffer.alloc(size - pos);
        readSync(fd, buf, 0, buf.length, pos);
        pos = size;
        tail = (tail + buf.toString()).slice(-(marker.length + 65_536));
      } finally {
        closeSync(fd);
      }
      if (tail.includes(marker)) return true;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  return false;
}

/** A reference store: a fault-free index of the node's chain with the configuration `env`. */
export interface Reference {
  name: string;
  dir: string;
  env: Record<string, string>;
  /** The block it was last brought to (null: never built). */
  head: { number: number; hash: string } | null;
  /** Its digest at `head` (reused while the node stands still at that block). */
  digest?: StoreDigest;
}

/**
 * Brings reference `ref` to the node's block `head` (hash `hash`) and returns its digest. The store
 * is built from scratch when `fresh`, when it was never built, or when the block it last reached
 * is no longer the node's (a reorg went below it); otherwise it resumes from that block, which is
 * still canonical, so it only appends and never rolls back: an index of the same chain built
 * without a reorg, a kill or a fault.
 */
export async function refDigest(
  ref: Reference,
  nodeUrl: string,
  chain: string,
  head: number,
  hash: string,
  fresh: boolean,
  logFile: string,
): Promise<StoreDigest> {
  if (!fresh && ref.digest && ref.head?.number === head && ref.head.hash === hash) return ref.digest;
  const stillCanonical = ref.head !== null && (await hashAt(nodeUrl, ref.head.number)) === ref.head.hash;
  if (fresh || !stillCanonical) {
    rmSync(ref.dir, { recursive: true, force: true });
    mkdirSync(ref.dir, { recursive: true });
  }
  const idx = await startIndexer({ rpcUrl: nodeUrl, chain, dataDir: ref.dir, env: ref.env, logFile });
  try {
    await idx.waitForHead(head, 900_000);
    await waitConverged(idx, head, hash, 900_000);
  } finally {
    await idx.stop();
  }
  ref.head = { number: head, hash };
  ref.digest = await digestOf(ref.dir);
  return ref.digest;
}

/**
 * Compares the stopped store in `dir` with the reference store `refDir` (digest `want`) table by
 * table (stream logs left out: they record the process's reorgs); names the first differing row.
 */
export async function compareDigests(
  dir: string,
  refDir: string,
  want: StoreDigest,
): Promise<{ tables: number; differing: string[]; first: RowDiff | null }> {
  const got = await digestOf(dir);
  const tables = differing(got, want);
  const rows = tables.length ? await diffTables(dir, refDir, tables, 20) : [];
  return {
    tables: Object.keys(chainTables(want)).length,
    differing: tables,
    first: rows[0] ?? (tables.length ? { table: tables[0], key: '(digest only)', a: null, b: null } : null),
  };
}
