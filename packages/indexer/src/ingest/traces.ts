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
import type { Store } from '../storage/index.js';
import { KeyBuilder } from '../storage/keys.js';
import { GAP, TX } from '../storage/tables/chain.js';
import type { ReplayPool, TxTrace, TxTraceGap } from '../workers/replay/index.js';
import { type Gap, recordGap, resolveGap } from './gaps.js';

export const TraceTable = {
  /** u64 number, u32 txIndex → TraceStatus JSON. */
  STATUS: 0x50,
  /** u64 number, u32 txIndex, u32 ordinal → frame JSON (decoded calldata included). */
  FRAME: 0x51,
  /** u64 number, u32 txIndex, u32 ordinal → internal transfer JSON. */
  INTERNAL: 0x52,
  /** address, u64 number, u32 txIndex, u32 ordinal, u8 role → ∅. Internal activity by address. */
  BY_ADDRESS: 0x53,
} as const;

/** Per-transaction retention and reconciliation state. */
export type TraceStatus =
  | {
      status: 'retained';
      source: string;
      frames: number;
      internalTransfers: number;
      creations: number;
      /** The root frame's from/to/value equal the envelope's (the re-execution matches the record). */
      rootMatchesEnvelope: boolean;
    }
  | { status: 'not_available'; reason: string; retryable: boolean };

export const traceStatusKey = (n: number, i: number) =>
  new KeyBuilder(13).u8(TraceTable.STATUS).u64(n).u32(i).done();
export const frameKey = (n: number, i: number, o: number) =>
  new KeyBuilder(17).u8(TraceTable.FRAME).u64(n).u32(i).u32(o).done();
export const internalKey = (n: number, i: number, o: number) =>
  new KeyBuilder(17).u8(TraceTable.INTERNAL).u64(n).u32(i).u32(o).done();
/** Roles in BY_ADDRESS: 1 sender, 2 recipient, 3 creator, 4 created. */
export const byAddressKey = (a: string, n: number, i: number, o: number, role: number) =>
  new KeyBuilder(38).u8(TraceTable.BY_ADDRESS).hex(a).u64(n).u32(i).u32(o).u8(role).done();

const CHECKPOINT = 'checkpoint:traces';
const LANE = 'traces';
/** Blocks traced concurrently (bounded: each holds a block's traces in memory). */
const IN_FLIGHT = 4;
/** Period of gap healing attempts, milliseconds. */
const HEAL_MS = 15_000;

export interface TracesLaneStatus {
  enabled: boolean;
  state: 'following' | 'disabled' | 'not_supported';
  reason: string | null;
  checkpoint: number | null;
}

export interface TracesLane {
  status(): TracesLaneStatus;
  /** Meta to write with a rollback of block `dropped` (the lane's checkpoint moves below it). */
  onRollback(dropped: number): Record<string, unknown>;
  start(): void;
  stop(): Promise<void>;
}

const isUnsupported = (reason: string) =>
  /not found|not supported|does not exist|unsupported|-32601|method not/i.test(reason);

export function createTracesLane(o: {
  store: Store;
  pool: ReplayPool;
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

  /**
   * Block n's hash and transaction hashes from one committed view. The hash must come from the same
   * view as the transactions: the store's own canonicalHash also sees writes in flight, so right
   * after a rollback it names the replacing block while a view still lists the dropped block's
   * transactions — traced, they fail as unknown and their failure was kept under the new block.
   */
  const blockOf = (n: number): { hash: string | undefined; hashes: string[] } => {
    const v = store.view();
    try {
      const hashes: string[] = [];
      v.eachValue(TX, { prefix: [n] }, (t) => {
        hashes.push((JSON.parse(t) as { hash: string }).hash);
      });
      return { hash: v.canonicalHash(n), hashes };
    } finally {
      v.close();
    }
  };

  /** Stored transaction `i` of block `n`, as the node sent it. @throws when it is not stored. */
  const txAt = (n: number, i: number): string => {
    const v = store.view();
    const t = v.get(TX, n, i);
    v.close();
    if (t === undefined) throw new Error(`traces: no stored transaction ${n}/${i}`);
    return t;
  };

  /** Writes block n's traces (replacing any earlier rows for n) and the lane checkpoint. */
  const commit = (n: number, txs: TxTrace[], source: string, advance: boolean) => {
    store.commitLate(
      n,
      (batch) => {
        for (let i = 0; i < txs.length; i++) {
          const t = txs[i];
          if (t.status !== 'ok') {
            batch.putRaw(
              traceStatusKey(n, i),
              Buffer.from(
                JSON.stringify({ status: 'not_available', reason: t.reason, retryable: t.retryable }),
              ),
            );
            continue;
          }
          const env = JSON.parse(txAt(n, i)) as {
            from: string;
            to: string | null;
            value: string;
          };
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
          batch.putRaw(traceStatusKey(n, i), Buffer.from(JSON.stringify(status)));
          for (const f of t.frames) batch.putRaw(frameKey(n, i, f.ordinal), Buffer.from(JSON.stringify(f)));
          for (const x of t.internalTransfers) {
            batch.putRaw(
              internalKey(n, i, x.ordinal),
              Buffer.from(JSON.stringify({ ...x, kind: x.kind, type: 'transfer' })),
            );
            batch.putRaw(byAddressKey(x.from.toLowerCase(), n, i, x.ordinal, 1), Buffer.alloc(0));
            if (x.to) batch.putRaw(byAddressKey(x.to.toLowerCase(), n, i, x.ordinal, 2), Buffer.alloc(0));
          }
          for (const c of t.creations) {
            if (c.ordinal === 0) continue; // top-level creation: the receipt already records it
            if (!batch.getRaw(internalKey(n, i, c.ordinal))) {
              batch.putRaw(
                internalKey(n, i, c.ordinal),
                Buffer.from(
                  JSON.stringify({
                    ordinal: c.ordinal,
                    from: c.creator,
                    to: c.address,
                    value: '0',
                    kind: 'create',
                    effective: c.effective,
                    type: 'creation',
                  }),
                ),
              );
            }
            batch.putRaw(byAddressKey(c.creator.toLowerCase(), n, i, c.ordinal, 3), Buffer.alloc(0));
            if (c.address)
              batch.putRaw(byAddressKey(c.address.toLowerCase(), n, i, c.ordinal, 4), Buffer.alloc(0));
          }
        }
      },
      advance ? { [CHECKPOINT]: n } : undefined,
    );
    if (advance) checkpoint = n;
  };

  const traceBlock = async (
    n: number,
  ): Promise<{ txs: TxTrace[]; source: string; hash: string | undefined }> => {
    const { hash, hashes } = blockOf(n);
    const url = typeof o.rpcUrl === 'function' ? o.rpcUrl() : o.rpcUrl;
    const res = await o.pool.trace(url, n, hashes, o.verifiedAbisDir);
    return { txs: res.txs, source: res.source, hash };
  };

  const gapsOpen = (): Gap[] => {
    const v = store.view();
    const open: Gap[] = [];
    v.eachValue(GAP, { prefix: [LANE] }, (g) => {
      if (g.status === 'open') open.push(g as unknown as Gap);
    });
    v.close();
    return open;
  };

  const heal = async () => {
    for (const g of gapsOpen()) {
      if (stopped) return;
      const n = g.fromBlock;
      if (checkpoint === null || n > checkpoint || !store.canonicalHash(n)) {
        resolveGap(store, LANE, n); // block rolled back: nothing left to trace there
        continue;
      }
      const r = await traceBlock(n).catch(() => null);
      if (!r || store.canonicalHash(n) !== r.hash) continue;
      if (r.txs.every((t) => t.status === 'ok')) {
        commit(n, r.txs, r.source, false);
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
          await new Promise((r) => setTimeout(r, 250));
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
          await new Promise((r) => setTimeout(r, 100));
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
          await new Promise((r) => setImmediate(r));
          const r = await jobs[n - next];
          // Rolled back or replaced while tracing: discard and re-plan from the lane checkpoint.
          if (store.canonicalHash(n) !== r.hash || (checkpoint ?? first - 1) !== n - 1) break;
          const gaps = r.txs.filter((t) => t.status !== 'ok');
          if (
            gaps.length &&
            gaps.length === r.txs.length &&
            gaps.every((g) => isUnsupported((g as TxTraceGap).reason))
          ) {
            state = 'not_supported';
            reason = `node_lacks_debug_trace: ${(gaps[0] as { reason: string }).reason.slice(0, 120)}`;
            log.warn({ reason }, 'traces lane disabled: the node cannot replay transactions');
            break;
          }
          commit(n, r.txs, r.source, true);
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
        log.warn({ err: (err as Error).message }, 'traces lane step failed; retrying');
        await new Promise((r) => setTimeout(r, backoff + Math.random() * backoff));
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
      await loop;
    },
  };
}
