/**
 * The chain reader over a real RocksDB store (no mock of the binding): rows are committed through
 * typed block batches exactly as ingest lays them out, then read through views. Covers the rules
 * the reader decides once: anchoring, canonical-only hashes, timestamp bounds among equal
 * timestamps, page walks resumed in both orders, origin fields, the typed decoded fallback, trace
 * coverage, and gaps.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TracesLaneStatus } from '../schema/rows/traces.js';
import { GAP, HASH_TO_NUMBER, HEADER, LOG, RECEIPT, TIME, TX, TX_BY_HASH } from '../schema/tables/chain.js';
import { DECODED_LOG, TRACE_FRAME, TRACE_STATUS } from '../schema/tables/traces.js';
import { createStore, inView, type Store } from '../storage/index.js';
import type { PageQuery } from '../storage/page.js';
import { createChainReader } from './reader.js';
import type { DecodedLogRow } from './types.js';

type Hex = `0x${string}`;
const h = (n: number, tag = 'b') => `0x${tag.repeat(2)}${n.toString(16).padStart(62, '0')}` as Hex;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
/** Blocks 0..4; blocks 2 and 3 share a timestamp. */
const TS = [1000, 1012, 1024, 1024, 1036];
const TXS_PER_BLOCK = 3;
const LOGS_PER_TX = 2;

let dir: string;
let store: Store;
let lane: TracesLaneStatus = { enabled: true, state: 'following', reason: null, checkpoint: 3 };
const reader = createChainReader({
  traces: () => lane,
  node: { call: () => Promise.reject(new Error('no node in this test')) },
});

const txHash = (n: number, i: number) => h(n * 16 + i, 'c');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chain-reader-'));
  store = await createStore({ dataDir: dir, unfinalisedWindow: 8 });
  for (let n = 0; n < TS.length; n++) {
    store.commitBlock({ number: n, hash: h(n) }, (b) => {
      b.insert(
        HEADER,
        [n],
        JSON.stringify({ number: `0x${n.toString(16)}`, hash: h(n), timestamp: `0x${TS[n].toString(16)}` }),
      );
      b.insert(HASH_TO_NUMBER, [h(n)], n);
      b.insert(TIME, [TS[n], n], null);
      let logIndex = 0;
      for (let i = 0; i < TXS_PER_BLOCK; i++) {
        const creation = i === 1;
        const tx = {
          hash: txHash(n, i),
          from: i === 2 && n === 4 ? null : addr(1),
          to: creation ? null : addr(2),
          value: '0x10',
        };
        b.insert(TX, [n, i], JSON.stringify(tx));
        // Even blocks: the log rows name their transaction and the logs live in its receipt (the
        // current layout); odd blocks: the log rows hold their own JSON (stores written before it).
        const logs = Array.from({ length: LOGS_PER_TX }, (_, k) => ({
          logIndex: `0x${(logIndex + k).toString(16)}`,
          tx: i,
        }));
        b.insert(
          RECEIPT,
          [n, i],
          JSON.stringify({ transactionHash: tx.hash, status: '0x1', ...(n % 2 === 0 ? { logs } : {}) }),
        );
        b.insert(TX_BY_HASH, [tx.hash], {
          number: n,
          txIndex: i,
          firstLogIndex: logIndex,
          logCount: LOGS_PER_TX,
        });
        for (let k = 0; k < LOGS_PER_TX; k++, logIndex++) {
          b.insert(
            LOG,
            [n, logIndex],
            n % 2 === 0
              ? { txIndex: i }
              : { json: JSON.stringify({ logIndex: `0x${logIndex.toString(16)}`, tx: i }) },
          );
          // The last log of each block has no decoded row (the typed not_decoded fallback).
          if (logIndex < TXS_PER_BLOCK * LOGS_PER_TX - 1)
            b.insert(
              DECODED_LOG,
              [n, logIndex],
              JSON.stringify({ status: 'unknown', reason: 'no_decoder_for_topic0', topic0: null }),
            );
        }
      }
      if (n === 3) {
        b.insert(TRACE_STATUS, [3, 0], {
          status: 'retained',
          source: 'debug_traceBlockByNumber',
          frames: 2,
          internalTransfers: 0,
          creations: 1,
          rootMatchesEnvelope: true,
        });
        const frame = {
          ordinal: 0,
          parent: null,
          depth: 0,
          kind: 'call' as const,
          from: addr(1),
          to: addr(2),
          value: '16',
          movesValue: true,
          input: '0x',
          output: null,
          gasUsed: '21000',
          reverted: false,
          revertedByAncestor: false,
          error: null,
          revertReason: null,
        };
        b.insert(TRACE_FRAME, [3, 0, 0], frame);
        b.insert(TRACE_FRAME, [3, 0, 1], {
          ...frame,
          ordinal: 1,
          parent: 0,
          depth: 1,
          kind: 'create',
          to: null,
          decoded: { status: 'unknown', reason: 'contract_creation', selector: null },
        });
        b.insert(TRACE_STATUS, [3, 2], { status: 'not_available', reason: 'node said no', retryable: true });
      }
      if (n === 4) {
        b.put(GAP, ['traces', 3], OPEN_GAP);
        b.put(GAP, ['blocks', 1], RESOLVED_GAP);
      }
    });
  }
});

afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Reads with a fresh view, closed afterwards (as a request does). */
function read<T>(f: (v: ReturnType<Store['view']>) => T): T {
  return inView(store, f);
}

/** Walks every page of `limit` rows, resuming from each page's last key; returns rows per page. */
function walkAll<R>(
  walk: (q: PageQuery, sink: (row: R | null, key: Buffer) => boolean) => void,
  order: 'asc' | 'desc',
  limit: number,
  at = 4,
): R[][] {
  const pages: R[][] = [];
  let after: Buffer | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const rows: R[] = [];
    let last: Buffer | null = null;
    let full = false;
    walk({ at, after, order, limit }, (row, key) => {
      if (rows.length >= limit) {
        full = true;
        return false;
      }
      rows.push(row as R);
      last = key;
      return true;
    });
    pages.push(rows);
    if (!full) return pages;
    after = last;
  }
  throw new Error('walk did not end');
}

/**
 * The two gaps block 4 records: an open traces gap and a resolved blocks gap (served as stored,
 * but for a node URL's key in a reason: masked, see the gaps test).
 */
const OPEN_GAP = {
  lane: 'traces',
  fromBlock: 3,
  toBlock: 3,
  status: 'open',
  reason: 'node_lacks_debug_trace: HTTP request failed. URL: https://rpc.example.org/AbCdEfGhIjKlMnOpQrSt',
  openedAt: 5,
  resolvedAt: null,
} as const;
const RESOLVED_GAP = {
  lane: 'blocks',
  fromBlock: 1,
  toBlock: 2,
  status: 'resolved',
  reason: 'y',
  openedAt: 1,
  resolvedAt: 2,
} as const;

describe('chain reader', () => {
  it('headers: absent above the anchor; a hash is found only while canonical', () => {
    read((v) => {
      expect(JSON.parse(reader.header(v, 4, 2)).hash).toBe(h(2));
      expect(() => reader.header(v, 1, 2)).toThrow(/not indexed at the anchored block 1/);
      expect(JSON.parse(reader.headerByHash(v, 4, h(3).toUpperCase().replace('0X', '0x'))).hash).toBe(h(3));
      expect(() => reader.headerByHash(v, 2, h(3))).toThrow(/not canonical/);
      expect(() => reader.headerByHash(v, 4, h(9))).toThrow(/not canonical/);
    });
  });

  it('timestamp bounds: equal timestamps, before the first block, after the anchor', () => {
    read((v) => {
      const eq = reader.timestampBounds(v, 4, 1024);
      expect(eq.lastAtOrBefore?.number).toBe(3);
      expect(eq.firstAtOrAfter?.number).toBe(2);
      expect(eq.lastAtOrBefore?.hash).toBe(h(3));
      const between = reader.timestampBounds(v, 4, 1013);
      expect([between.lastAtOrBefore?.number, between.firstAtOrAfter?.number]).toEqual([1, 2]);
      expect(reader.timestampBounds(v, 4, 999)).toMatchObject({
        lastAtOrBefore: null,
        lastAtOrBeforeReason: 'before_first_indexed_block',
        firstAtOrAfter: { number: 0, timestamp: 1000 },
      });
      // At an older anchor (a cursor's), later blocks do not exist.
      expect(reader.timestampBounds(v, 2, 1030)).toMatchObject({
        lastAtOrBefore: { number: 2 },
        firstAtOrAfter: null,
        firstAtOrAfterReason: 'after_anchor_block',
      });
    });
  });

  it('pages resume after the last key in both orders and cover every row once', () => {
    for (const order of ['asc', 'desc'] as const) {
      const pages = walkAll<string>(
        (q, sink) => read((v) => reader.blockTransactions(v, 2, q, sink)),
        order,
        2,
      );
      expect(pages.map((p) => p.length)).toEqual([2, 1]);
      const hashes = pages.flat().map((r) => JSON.parse(r).hash);
      const all = [0, 1, 2].map((i) => txHash(2, i));
      expect(hashes).toEqual(order === 'asc' ? all : all.reverse());
    }
    expect(() =>
      read((v) => reader.blockLogs(v, 5, { at: 4, after: null, order: 'asc', limit: 9 }, () => true)),
    ).toThrow(/not indexed/);
  });

  it("a transaction's logs are its own range of the block's logs", () => {
    const pages = walkAll<string>(
      (q, sink) => read((v) => reader.transactionLogs(v, txHash(1, 1), q, sink)),
      'desc',
      1,
    );
    expect(pages.flat().map((r) => JSON.parse(r).logIndex)).toEqual(['0x3', '0x2']);
  });

  it('origin fields: envelope sender, creation, unrecoverable sender', () => {
    read((v) => {
      expect(reader.transaction(v, 4, txHash(1, 0))).toMatchObject({
        blockNumber: 1,
        transactionIndex: 0,
        from: addr(1),
        fromReason: null,
        to: addr(2),
        value: '16',
        originCoverage: 'full',
      });
      expect(reader.transaction(v, 4, txHash(1, 1))).toMatchObject({
        to: null,
        toReason: 'contract_creation',
      });
      expect(reader.transaction(v, 4, txHash(4, 2))).toMatchObject({
        from: null,
        fromReason: 'unrecoverable',
        originCoverage: 'partial',
      });
      expect(() => reader.transaction(v, 3, txHash(4, 0))).toThrow(/not in the canonical chain/);
      expect(reader.receipt(v, 4, txHash(0, 0))).toMatchObject({
        l1Gas: null,
        l1GasReason: 'not_an_l2_receipt',
      });
    });
  });

  it('decoded logs never omit a log: a missing decoded row is typed not_decoded', () => {
    const rows = walkAll<DecodedLogRow>(
      (q, sink) => read((v) => reader.blockLogsDecoded(v, 0, q, sink)),
      'asc',
      100,
    ).flat();
    expect(rows).toHaveLength(TXS_PER_BLOCK * LOGS_PER_TX);
    expect(JSON.parse(rows.at(-1)!.decoded)).toEqual({
      status: 'unknown',
      reason: 'not_decoded',
      topic0: null,
    });
    expect(JSON.parse(rows[0].decoded).reason).toBe('no_decoder_for_topic0');
  });

  it('trace coverage: retained, failed, not retained, lane behind (503), lane off', () => {
    const frames = (hash: string) => {
      const rows: unknown[] = [];
      const page = read((v) =>
        reader.callFrames(v, hash, { at: 4, after: null, order: 'asc', limit: 64 }, (r) => rows.push(r) > 0),
      );
      return { coverage: page.coverage, rows };
    };
    const ok = frames(txHash(3, 0));
    expect(ok.coverage).toMatchObject({ coverage: 'retained', frames: 2, rootMatchesEnvelope: true });
    expect(ok.rows).toMatchObject([
      {
        ordinal: 0,
        toReason: null,
        outputReason: 'not_reported_by_tracer',
        decoded: { reason: 'not_decoded' },
      },
      {
        ordinal: 1,
        parent: 0,
        to: null,
        toReason: 'creation_failed',
        decoded: { reason: 'contract_creation' },
      },
    ]);
    expect(frames(txHash(3, 2)).coverage).toEqual({
      coverage: 'not_available',
      reason: 'node_trace_failed',
      detail: 'node said no',
      retryable: true,
    });
    expect(frames(txHash(3, 1)).coverage).toMatchObject({
      coverage: 'not_available',
      reason: 'not_retained',
    });
    expect(() => frames(txHash(4, 0))).toThrow(/has not replayed block 4/);
    lane = { enabled: false, state: 'disabled', reason: 'disabled_by_configuration', checkpoint: null };
    expect(frames(txHash(4, 0)).coverage).toMatchObject({ reason: 'traces_disabled', retryable: false });
    lane = { enabled: true, state: 'not_supported', reason: 'node_lacks_debug_trace: -32601', checkpoint: 2 };
    const unsupported = frames(txHash(3, 0));
    expect(unsupported.coverage).toMatchObject({ reason: 'node_lacks_debug_trace' });
    expect(unsupported.rows).toEqual([]);
    lane = { enabled: true, state: 'following', reason: null, checkpoint: 3 };
  });

  it('gaps: by lane then first block, served with exactly their fields, reasons redacted; open ones counted', () => {
    const rows = walkAll((q, sink) => read((v) => reader.gaps(v, q, sink)), 'asc', 1).flat();
    // A reason quotes the node's error, and the node's URL with it: its key never leaves.
    expect(rows).toEqual([
      RESOLVED_GAP,
      {
        ...OPEN_GAP,
        reason: 'node_lacks_debug_trace: HTTP request failed. URL: https://rpc.example.org/***',
      },
    ]);
    expect(read((v) => reader.openGapCount(v))).toBe(1);
  });
});
