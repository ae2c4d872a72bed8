/**
 * The traces lane: follows the blocks lane, replaying each committed block through the replay
 * pool (`debug_traceBlockByNumber` with callTracer, else `debug_traceTransaction`) and storing
 * call frames (with decoded calldata), internal value transfers and creations per transaction.
 * It never holds the main lanes back: it waits while they backfill (tracing is the node's most
 * expensive call, and each traced block is a commit on the main thread), runs its replay worker at
 * the lowest thread priority, and commits one traced block per event-loop turn.
 *
 * Writes for block N are one atomic batch appended to N's undo record, so a reorg unwinds them
 * with the block. A transaction whose trace the node cannot give is stored as `not_available`
 * with its reason and recorded as a gap; gaps are retried and healed, never silently dropped.
 * R10: these records come from node re-execution and are not verifiable against a block root.
 */
import type { Logger } from 'pino';
import type { TraceStatus, TracesLaneStatus } from '../schema/rows/traces.js';
import { TRACES_CHECKPOINT_META } from '../schema/rows/traces.js';
import { GAP, TX } from '../schema/tables/chain.js';
import { TRACE_BY_ADDRESS, TRACE_FRAME, TRACE_INTERNAL, TRACE_STATUS } from '../schema/tables/traces.js';
import { type BlockBatch, inConsistentView, inView, nextSlice, type Store } from '../storage/index.js';
import type { ReplayPool, TxTrace, TxTraceGap } from '../workers/replay/index.js';
import { type Gap, recordGap, resolveGap } from './gaps.js';
import { createPauses } from './pause.js';

/** Lowercase 0x address (trace rows key addresses lowercase). */
const lower = (a: string) => a.toLowerCase() as `0x${string}`;
const CHECKPOINT = TRACES_CHECKPOINT_META;
const LANE = 'traces';
/** Blocks traced concurrently (bounded: each holds a block's traces in memory). */
const IN_FLIGHT = 4;
/** Period of gap healing attempts, milliseconds. */
const HEAL_MS = 15_000;

export interface TracesLane {
  status(): TracesLaneStatus;
  /** Meta to write with a rollback of block `dropped` (the lane's checkpoint moves below it). */
  onRollback(dropped: number): Record<string, unknown>;
  start(): void;
  stop(): Promise<void>;
}

const isUnsupported = (reason: string) =>
  /not found|not supported|does not exist|unsupported|-32601|method not/i.test(reason);

/** Reads of one block tried before giving up for this turn (a write landing mid-read retries). */
const BLOCK_READ_TRIES = 3;

/** The fields of a stored transaction (the node's JSON) the lane reads. */
interface StoredTx {
  hash: string;
  blockHash?: string;
  from: string;
  to: string | null;
  value: string;
}

/** Whether stored transaction `tx` names block `hash` as its own (a node that omits `blockHash` names none). */
const ofBlock = (tx: StoredTx, hash: string | undefined) =>
  tx.blockHash === undefined || tx.blockHash.toLowerCase() === hash;

/**
 * Block n's canonical hash and transaction hashes (block order) as RocksDB holds them, read
 * consistently ({@link inConsistentView}: the writer thread commits while the engine reads) and
 * kept only when every stored transaction names that hash as its `blockHash`; after
 * {@link BLOCK_READ_TRIES} reads with a write landing in each, the hash is `undefined` (the caller
 * re-plans). Without this, right after a rollback the walk listed the dropped block's transactions
 * while the hash read after it named the replacing block: traced on the new fork they failed as
 * unknown, and those failures were kept under the new block, where no rollback undoes them (soak
 * seed 17).
 */
export function committedBlock(store: Store, n: number): { hash: string | undefined; hashes: string[] } {
  const read = inConsistentView(
    store,
    (v) => {
      const hash = v.canonicalHash(n);
      const hashes: string[] = [];
      let sameBlock = true;
      v.eachValue(TX, { prefix: [n] }, (t) => {
        const tx = JSON.parse(t) as StoredTx;
        if (!ofBlock(tx, hash)) sameBlock = false;
        hashes.push(tx.hash);
      });
      return sameBlock ? { hash, hashes } : null;
    },
    BLOCK_READ_TRIES,
  );
  return read ?? { hash: undefined, hashes: [] };
}

/**
 * The stored envelopes (transactions as the node sent them, parsed) of block `n`'s traced
 * transactions, read through one view. @throws when one is not stored, or is not the transaction
 * traced (not the same hash, or of another block than `blockHash`): the lane then retries the step.
 */
function envelopesOf(
  store: Store,
  n: number,
  blockHash: string,
  txs: TxTrace[],
): Array<StoredTx | undefined> {
  return inView(store, (v) =>
    txs.map((t, i) => {
      if (t.status !== 'ok') return undefined;
      const e = v.get(TX, n, i);
      if (e === undefined) throw new Error(`traces: no stored transaction ${n}/${i}`);
      const tx = JSON.parse(e) as StoredTx;
      if (tx.hash !== t.txHash || !ofBlock(tx, blockHash))
        throw new Error(`traces: stored transaction ${n}/${i} is not the one traced (block replaced)`);
      return tx;
    }),
  );
}

/** The lane's open gaps (GAP rows of lane `traces`). */
function gapsOpen(store: Store): Gap[] {
  return inView(store, (v) => {
    const open: Gap[] = [];
    v.eachValue(GAP, { prefix: [LANE] }, (g) => {
      if (g.status === 'open') open.push(g as unknown as Gap);
    });
    return open;
  });
}

/** Every transaction of a block failed, each for a reason meaning the node has no tracer. */
function nodeCannotTrace(gaps: TxTrace[], txs: number): boolean {
  return gaps.length > 0 && gaps.length === txs && gaps.every((g) => isUnsupported((g as TxTraceGap).reason));
}

/**
 * Block n's trace rows into `batch`: per transaction its status (retained, with counts and whether
 * the root frame matches the envelope, or not_available with the reason), call frames, internal
 * transfers and creations (by ordinal), and the by-address index. Source: the replay pool's
 * traces (debug_trace*), the stored transaction envelope (`envelopeOf`).
 */
function putTraceRows(
  batch: BlockBatch,
  n: number,
  txs: TxTrace[],
  source: string,
  envelopeOf: (i: number) => StoredTx,
): void {
  for (let i = 0; i < txs.length; i++) {
    const t = txs[i];
    if (t.status !== 'ok') {
      batch.put(TRACE_STATUS, [n, i], {
        status: 'not_available',
        reason: t.reason,
        retryable: t.retryable,
      });
      continue;
    }
    const env = envelopeOf(i);
    const root = t.frames[0];
    const rootMatches =
      !!root &&
      root.from.toLowerCase() === env.from.toLowerCase() &&
      (env.to === null || root.to?.toLowerCase() === env.to.toLowerCase()) &&
      BigInt(root.value) === BigInt(env.value);
    const status: TraceStatus = {
      status: 'retained',
      source,
      frames: t.frames.length,
      internalTransfers: t.internalTransfers.length,
      creations: t.creations.length,
      rootMatchesEnvelope: rootMatches,
    };
    batch.put(TRACE_STATUS, [n, i], status);
    for (const f of t.frames) batch.put(TRACE_FRAME, [n, i, f.ordinal], f);
    for (const x of t.internalTransfers) {
      batch.put(TRACE_INTERNAL, [n, i, x.ordinal], { ...x, kind: x.kind, type: 'transfer' });
      batch.put(TRACE_BY_ADDRESS, [lower(x.from), n, i, x.ordinal, 1], null);
      if (x.to) batch.put(TRACE_BY_ADDRESS, [lower(x.to), n, i, x.ordinal, 2], null);
    }
    for (const c of t.creations) {
      if (c.ordinal === 0) continue; // top-level creation: the receipt already records it
      if (!batch.has(TRACE_INTERNAL, n, i, c.ordinal))
        batch.put(TRACE_INTERNAL, [n, i, c.ordinal], {
          ordinal: c.ordinal,
          from: c.creator,
          to: c.address,
          value: '0',
          kind: 'create',
          effective: c.effective,
          type: 'creation',
        });
      batch.put(TRACE_BY_ADDRESS, [lower(c.creator), n, i, c.ordinal, 3], null);
      if (c.address) batch.put(TRACE_BY_ADDRESS, [lower(c.address), n, i, c.ordinal, 4], null);
    }
  }
}

/** Commits block n's trace rows as a late write to its undo record, with the lane checkpoint when `advance`. */
function writeTraces(
  store: Store,
  n: number,
  blockHash: string,
  txs: TxTrace[],
  source: string,
  advance: boolean,
): void {
  const envelopes = envelopesOf(store, n, blockHash, txs);
  const rows = (batch: BlockBatch) => putTraceRows(batch, n, txs, source, (i) => envelopes[i]!);
  store.commitLate(n, rows, advance ? { [CHECKPOINT]: n } : undefined);
}

/** The traces lane of one chain (see the module comment). */
export function createTracesLane(o: {
  store: Store;
  /** The replay pool; null when the lane is disabled (TRACES=off: no replay thread is started). */
  pool: ReplayPool | null;
  /** The node the lane replays on (a function: the chain's current node, see ingest/node-check.ts). */
  rpcUrl: string | (() => string);
  log: Logger;
  enabled: boolean;
  verifiedAbisDir: string;
  /**
   * True while the main lanes backfill: the lane then waits (it traces nothing, and heals no gap),
   * so it never takes node capacity, CPU or the main thread from them; it catches up once they
   * follow the head. /health `traces.behindBlocks` shows the distance meanwhile.
   */
  mainLanesBackfilling?: () => boolean;
}): TracesLane {
  const { store, log } = o;
  const first = store.getMeta<{ firstBlock: number }>('identity')?.firstBlock ?? 0;
  let checkpoint: number | null = store.getMeta<number>(CHECKPOINT) ?? (first > 0 ? first - 1 : null);
  let state: TracesLaneStatus['state'] = o.enabled ? 'following' : 'disabled';
  let reason: string | null = o.enabled ? null : 'disabled_by_configuration';
  let stopped = false;
  let loop: Promise<void> | null = null;
  let lastHeal = 0;
  /** The loop's pauses, cut short by stop(). */
  const { pause, wake } = createPauses();

  /** Writes block n's traces (replacing any earlier rows for n) and, when `advance`, the checkpoint. */
  const commit = (n: number, blockHash: string, txs: TxTrace[], source: string, advance: boolean) => {
    writeTraces(store, n, blockHash, txs, source, advance);
    if (advance) checkpoint = n;
  };

  const traceBlock = async (
    n: number,
  ): Promise<{ txs: TxTrace[]; source: string; hash: string | undefined }> => {
    const { hash, hashes } = committedBlock(store, n);
    if (hash === undefined) return { txs: [], source: 'none', hash }; // not (or no longer) stored
    const url = typeof o.rpcUrl === 'function' ? o.rpcUrl() : o.rpcUrl;
    if (!o.pool) throw new Error('traces lane: no replay pool (TRACES=off)');
    const res = await o.pool.trace(url, n, hashes, o.verifiedAbisDir);
    return { txs: res.txs, source: res.source, hash };
  };

  const heal = async () => {
    for (const g of gapsOpen(store)) {
      if (stopped) return;
      const n = g.fromBlock;
      if (checkpoint === null || n > checkpoint || !store.canonicalHash(n)) {
        resolveGap(store, LANE, n); // block rolled back: nothing left to trace there
        continue;
      }
      const r = await traceBlock(n).catch(() => null);
      if (!r || r.hash === undefined || store.canonicalHash(n) !== r.hash) continue;
      if (r.txs.every((t) => t.status === 'ok')) {
        commit(n, r.hash, r.txs, r.source, false);
        resolveGap(store, LANE, n);
        log.info({ block: n }, 'trace gap healed');
      }
    }
  };

  const run = async () => {
    let backoff = 200;
    while (!stopped) {
      try {
        if (o.mainLanesBackfilling?.()) {
          await pause(250);
          continue;
        }
        // Blocks RocksDB holds (the lane reads them through views), not those still in flight.
        const head = store.committedHead();
        const next = checkpoint === null ? first : checkpoint + 1;
        if (state !== 'following' || !head || next > head.number) {
          if (state === 'following' && Date.now() - lastHeal > HEAL_MS) {
            lastHeal = Date.now();
            await heal();
          }
          await pause(100);
          continue;
        }
        const to = Math.min(head.number, next + IN_FLIGHT - 1);
        const jobs: Array<Promise<Awaited<ReturnType<typeof traceBlock>>>> = [];
        for (let n = next; n <= to; n++) {
          const job = traceBlock(n);
          // Awaited in order below; a later job's failure after an earlier one broke the loop
          // (a failure, a rollback) must not surface as an unhandled rejection.
          job.catch(() => {});
          jobs.push(job);
        }
        for (let n = next; n <= to; n++) {
          // A macrotask turn before each block's commit: traced blocks that are already in are
          // committed one per turn, never back to back, so main-lane commits and reads interleave.
          await nextSlice();
          const r = await jobs[n - next];
          // Rolled back or replaced while tracing: discard and re-plan from the lane checkpoint.
          // A block the view did not hold (a rollback committed between reading the head and
          // opening the view) has no hash: it was not traced, and must not move the checkpoint
          // past it while its replacement is still being built (found by the soak, seed 7).
          if (
            r.hash === undefined ||
            store.canonicalHash(n) !== r.hash ||
            (checkpoint ?? first - 1) !== n - 1
          )
            break;
          const gaps = r.txs.filter((t) => t.status !== 'ok');
          if (nodeCannotTrace(gaps, r.txs.length)) {
            state = 'not_supported';
            reason = `node_lacks_debug_trace: ${(gaps[0] as { reason: string }).reason.slice(0, 120)}`;
            log.warn({ reason }, 'traces lane disabled: the node cannot replay transactions');
            break;
          }
          commit(n, r.hash, r.txs, r.source, true);
          if (gaps.length)
            recordGap(store, {
              lane: LANE,
              fromBlock: n,
              toBlock: n,
              reason: `${gaps.length} transaction trace(s) not available`,
            });
        }
        backoff = 200;
      } catch (err) {
        if (stopped) break; // a task abandoned by the shutdown
        log.warn({ err: (err as Error).message }, 'traces lane step failed; retrying');
        await pause(backoff + Math.random() * backoff);
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  };

  return {
    status: () => ({ enabled: o.enabled, state, reason, checkpoint }),
    onRollback(dropped) {
      if (checkpoint !== null && checkpoint >= dropped) {
        checkpoint = dropped - 1 >= 0 ? dropped - 1 : null;
        return { [CHECKPOINT]: checkpoint };
      }
      return {};
    },
    start() {
      if (o.enabled) loop ??= run();
    },
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}
