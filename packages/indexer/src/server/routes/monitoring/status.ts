/**
 * The full readiness record of one chain (GET /index/v1/{chain}/health), assembled from the status
 * objects each subsystem exposes: the follower (src/ingest status), the projections (R5 status and
 * progress), the traces lane, the stream gauges, storage write state and gaps. Monitoring reads
 * process state, not chain data, so this lives on the server side; the one chain-data read (open
 * gaps) goes through the chain reader and the request's view.
 */

import { uwsBinding } from '@chain-indexer/platform/http';
import { redact } from '@chain-indexer/platform/security';
import { changeLogSeqIn } from '../../../schema/rows/replication.js';
import { TOPIC_NAMES } from '../../../schema/rows/streams.js';
import { tracesCheckpointIn } from '../../../schema/rows/traces.js';
import { prunedBelow, retainedRange } from '../../as-of.js';
import { type ProjectionInfo, projectionsOf } from '../../projections.js';
import type { Ctx } from '../../route.js';
import { lagDisconnectCount, openConnections } from '../../sse.js';

/** Rates are shown to two decimals: they are gauges, not amounts. */
const rate = (x: number) => Math.round(x * 100) / 100;

/** The record /health serves (see its schema in health.ts for units and vocabularies). */
export function healthRecord(ctx: Ctx<unknown, unknown>) {
  const { store, ingest, traces, streams } = ctx.chain;
  const s = ingest.status();
  const head = ctx.view.head;
  const lane = traces.status();
  // Nothing traced yet: the lane is behind by every indexed block (from the first one indexed).
  const first = ctx.view.meta<{ firstBlock: number }>('identity')?.firstBlock ?? 0;
  const checkpoint = tracesCheckpointIn(ctx.view, lane);
  const traced = checkpoint ?? first - 1;
  return {
    chain: ctx.chain.name,
    chainId: ctx.chain.chainId,
    anchor: head ? { block: head.number, hash: head.hash } : null,
    anchorReason: head ? null : ('nothing_indexed_yet' as const),
    ingest: {
      state: s.state,
      haltReason: s.haltReason,
      haltDetail: s.haltDetail,
      roots: s.roots,
      nodeFault: s.nodeFault,
      node: s.node,
      nodeHead: s.nodeHead,
      lagBlocks: s.nodeHead !== null && head ? Math.max(0, s.nodeHead - head.number) : null,
      blocksPerSecond: rate(s.blocksPerSecond),
      eventsPerSecond: rate(s.eventsPerSecond),
      etaSeconds: s.etaSeconds,
      reorgs: s.reorgs,
      lastReorgDepth: s.lastReorgDepth,
      lastError: s.lastError,
      headSource: s.headSource,
      unfinalisedWindow: store.unfinalisedWindow,
      mode: s.mode,
      historyEnd: s.historyEnd,
      finalized: s.finalized,
      segments: s.segments,
      rates: {
        history: {
          blocksPerSecond: rate(s.rates.history.blocksPerSecond),
          txPerSecond: rate(s.rates.history.txPerSecond),
        },
        live: {
          blocksPerSecond: rate(s.rates.live.blocksPerSecond),
          txPerSecond: rate(s.rates.live.txPerSecond),
        },
      },
    },
    projections: projectionsOf(ctx.chain).map(
      (p): ProjectionInfo => ({
        name: p.name,
        version: p.version,
        status: p.status,
        backs: p.backs,
        checkpoint: p.checkpoint,
        lagBlocks: p.lagBlocks,
        progress: p.progress,
        reason: p.reason,
      }),
    ),
    traces: {
      enabled: lane.enabled,
      state: lane.state,
      reason: lane.reason,
      checkpoint,
      behindBlocks: lane.state === 'following' && head ? Math.max(0, head.number - traced) : null,
    },
    streams: {
      openConnections: openConnections(),
      lagDisconnects: lagDisconnectCount(),
      hubSubscribers: streams.hub.size(),
      topics: TOPIC_NAMES.map((t) => ({
        topic: t,
        lastSequence: streams.log.last(t),
        oldestSequence: streams.log.oldest(t),
      })),
    },
    openGaps: ctx.readers.chain.openGapCount(ctx.view),
    history: historyRecord(ctx),
    storage: storageRecord(store),
    replication: replicationRecord(ctx),
    http: httpCoreRecord(),
    ...(ctx.chain.devnet ? { devnet: devnetRecord(ctx.chain.devnet.status()) } : {}),
  };
}

/**
 * The history block of /health: the block range an as-of read (`atBlock`) may name, from the
 * view's head, HISTORY_RETENTION and the history pruner's mark (src/server/as-of.ts); null bounds
 * before the first block. With a number of blocks the stored versions are pruned too
 * (storage/history-prune.ts); with `all` nothing is.
 */
function historyRecord(ctx: Ctx<unknown, unknown>) {
  const retention = ctx.chain.historyRetention ?? null;
  const r = retainedRange(ctx.view, retention);
  return {
    retention: retention === null ? ('all' as const) : retention,
    oldestRetainedBlock: r?.oldest ?? null,
    headBlock: r?.head ?? null,
    prunedBelow: prunedBelow(ctx.view),
    enforcement: retention === null ? ('reads' as const) : ('pruned' as const),
  };
}

/** The HTTP core block of /health: which core serves this process (see its schema in health.ts). */
function httpCoreRecord() {
  const b = uwsBinding();
  return { core: b.core, build: b.build, reason: b.reason === null ? null : redact(b.reason) };
}

/** The devnet block of /health, its node URL through the one redaction (a URL never shows a key). */
function devnetRecord<T extends { rpcUrl: string }>(s: T): T {
  return { ...s, rpcUrl: redact(s.rpcUrl) };
}

/**
 * The scale-out block of /health: this process's role for the chain, the writer's publisher
 * (ROLE=writer) and the replica's lag behind its writer (ROLE=replica). Lag is in blocks and
 * seconds (wall clock since the writer committed the entry the replica applied last).
 */
function replicationRecord(ctx: Ctx<unknown, unknown>) {
  const r = ctx.chain.replica;
  const w = ctx.chain.writer;
  const p = w?.status() ?? null;
  const rs = r?.status() ?? null;
  // The publisher's figures come from the engine thread a message behind; what RocksDB holds is
  // read from this request's view, so a write the reads already see is never reported as shipped.
  const pending = p ? Math.max(p.pending, changeLogSeqIn(ctx.view) - p.published) : null;
  return {
    role: r ? ('replica' as const) : w ? ('writer' as const) : ('all' as const),
    publisher: w
      ? {
          connected: p !== null,
          publishedSequence: p?.published ?? null,
          pending,
          streamSequence: p?.streamSeq ?? null,
          lastError: p?.lastError ?? null,
        }
      : null,
    replica: rs
      ? {
          state: rs.state,
          appliedSequence: rs.appliedSeq,
          writerSequence: rs.writerSeq,
          writerHead: rs.writerHead,
          lagBlocks: rs.lagBlocks,
          lagSeconds: Math.round(rs.lagSeconds * 100) / 100,
          maxLagSeconds: r!.maxLagSeconds,
          snapshotsImported: rs.snapshotsImported,
          lastError: rs.lastError,
        }
      : null,
  };
}

/** One lane's durable checkpoint: block and canonical hash, or null with a reason. */
export interface LaneCheckpoint {
  lane: string;
  block: number | null;
  hash: string | null;
  reason: string | null;
}

/**
 * The durable checkpoint of each ingest lane (GET /checkpoints). Blocks and receipts commit in
 * the same batch, so they share one checkpoint; each projection and the traces lane have theirs.
 */
export function checkpointsRecord(ctx: Ctx<unknown, unknown>) {
  const head = ctx.view.head;
  const at = (lane: string, n: number | null, nullReason: string): LaneCheckpoint =>
    n === null
      ? { lane, block: null, hash: null, reason: nullReason }
      : { lane, block: n, hash: ctx.view.canonicalHash(n) ?? null, reason: null };
  // The lane's state as the engine reports it; its checkpoint as this view holds it (one committed state).
  const t = ctx.chain.traces.status();
  const checkpoint = tracesCheckpointIn(ctx.view, t);
  const traces: LaneCheckpoint =
    t.state === 'following'
      ? at('traces', checkpoint, 'nothing_traced_yet')
      : { lane: 'traces', block: checkpoint, hash: null, reason: t.state };
  return {
    anchor: head ? { block: head.number, hash: head.hash } : null,
    anchorReason: head ? null : ('nothing_indexed_yet' as const),
    lanes: [
      at('blocks', head?.number ?? null, 'nothing_indexed_yet'),
      at('receipts', head?.number ?? null, 'nothing_indexed_yet'),
      traces,
      ...ctx.chain.registry.projections.map((p) =>
        at(
          `projection:${p.name}`,
          ctx.view.meta<{ checkpoint: number | null }>(ctx.chain.registry.metaKeyOf(p.name))?.checkpoint ??
            ctx.chain.registry.state(p.name).checkpoint,
          'nothing_applied_yet',
        ),
      ),
    ],
  };
}

/** Storage write state: refusals, the writer thread's backlog and the state cache. */
function storageRecord(store: Ctx<unknown, unknown>['chain']['store']) {
  const inFlight = store.inFlight();
  const c = store.cacheStats();
  return {
    writable: store.writeError() === null,
    writeError: store.writeError()?.message ?? null,
    writesInFlight: inFlight.batches,
    bytesInFlight: inFlight.bytes,
    stateCache: { entries: c.entries, bytes: c.bytes, maxBytes: c.maxBytes, hits: c.hits, misses: c.misses },
  };
}
