import { redactRecord } from '@chain-indexer/platform/security';
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.js';
import { Anchor, Count, Enum, Nullable, Obj, ReasonOf } from '../../schemas.js';
import { healthRecord } from './status.js';

const Ingest = Obj(
  {
    state: Enum(
      ['starting', 'backfilling', 'following', 'halted', 'paused'],
      'starting: connecting to the node; backfilling: catching up in ranges; following: block by block at the head; halted: stopped (see haltReason, /gaps); paused: the node contradicts itself (haltReason node_inconsistent, see nodeFault): nothing is built on it until it agrees with itself again, then ingest resumes by itself',
    ),
    haltReason: Nullable(
      Type.String(),
      "why ingest halted (reorg_beyond_window, storage_write_failed, roots_mismatch: a block's records kept disagreeing with its header after refetches — nothing of it was committed, the follower keeps fetching it and resumes by itself once they match, reads go on; …) or paused (node_inconsistent: the node contradicts itself — see nodeFault); null otherwise",
    ),
    haltDetail: Nullable(
      Type.String(),
      'what the halt is about (roots_mismatch: the block, what mismatched — header_hash, transaction_hash, transactions_root or receipts_root — and both values); null unless halted',
    ),
    roots: Obj(
      {
        enabled: Type.Boolean({ description: 'VERIFY_ROOTS (on by default)' }),
        verified: Count(
          "blocks whose header hash, transaction hashes, transactions root and receipts root were rebuilt from the node's records and matched, since start",
        ),
        notCheckable: Count(
          'blocks holding a transaction type (or a header field) the encoder does not know: that part left unchecked, not a failure; since start',
        ),
        unchecked: Count('blocks fetched with VERIFY_ROOTS=off, since start'),
        mismatches: Count(
          'decode tasks failed by a block whose records kept disagreeing with its header (each halts ingest with roots_mismatch), since start',
        ),
        lastNotCheckable: Nullable(
          Obj({
            block: Count('block number'),
            types: Type.Array(Type.String(), {
              description:
                'transaction types (0x65) or header fields (header:<name>) the encoder does not know',
            }),
          }),
          'the last not-checkable block; null before any',
        ),
      },
      {
        description:
          "the roots check of the decode workers: every block held to its header's roots before it is committed (docs/guide.md, Verifiable records)",
      },
    ),
    nodeFault: Nullable(
      Obj({
        kind: Enum(
          ['block_missing', 'parent_missing'],
          'block_missing: a stored block of the unfinalised window the node can no longer return, by number (at or below its head) nor by hash; parent_missing: a block of the node names a parent the node does not return',
        ),
        block: Type.Integer({
          minimum: 0,
          description: 'the stored block lost, or the node block whose parent is lost',
        }),
        hash: Type.String({ description: 'that block hash' }),
        missingParent: Nullable(
          Type.String(),
          'the parent hash the node does not return; null for block_missing',
        ),
        detail: Type.String({ description: 'what the node answered' }),
        node: Count('position of the node in the chain node list (0: the primary)'),
        since: Type.String({ description: 'when the fault was first found (ISO 8601)' }),
      }),
      'the node fault ingest is paused on (state paused); null when none',
    ),
    node: Obj(
      {
        index: Count(
          'position of the node ingest reads in the chain node list (chains file rpcUrls; 0: the primary)',
        ),
        count: Type.Integer({ minimum: 1, description: 'nodes in the list' }),
      },
      { description: 'the node ingest reads; it moves to the next one of the list on a node fault' },
    ),
    nodeHead: Nullable(
      Type.Integer({ minimum: 0 }),
      "the node's latest block; null before the first observation",
    ),
    lagBlocks: Nullable(
      Type.Integer({ minimum: 0 }),
      'node head minus the indexed head, blocks; null while either is unknown',
    ),
    blocksPerSecond: Type.Number({ minimum: 0, description: 'blocks committed per second (last interval)' }),
    eventsPerSecond: Type.Number({ minimum: 0, description: 'logs committed per second (last interval)' }),
    etaSeconds: Nullable(
      Type.Number({ minimum: 0 }),
      'seconds to reach the node head at the current rate; null when unknown',
    ),
    reorgs: Count('reorgs rolled back since start'),
    lastReorgDepth: Count('depth of the last reorg, blocks (0 before any)'),
    lastError: Nullable(Type.String(), 'the last ingest error; null when none'),
    headSource: Enum(['newHeads', 'polling'], 'how new heads arrive: newHeads subscription, or polling'),
    unfinalisedWindow: Count('blocks of undo data kept: the deepest reorg rolled back'),
    mode: Nullable(
      Enum(
        ['history', 'live'],
        'history: final blocks committed in segments of many blocks (no undo, no per-block frames); live: the unfinalised window, block by block with undo and frames',
      ),
      'the mode of the block being applied; null while idle at the head',
    ),
    historyEnd: Type.Integer({
      minimum: -1,
      description: 'last block committed in history mode (-1: none): no rollback reaches below it',
    }),
    finalized: Nullable(
      Type.Integer({ minimum: 0 }),
      "the node's `finalized` block as last read; null when the node has no such tag",
    ),
    segments: Obj(
      {
        maxBlocks: Count('segment bound, blocks (SEGMENT_BLOCKS)'),
        maxBytes: Count('segment bound, bytes of pending writes (SEGMENT_MB)'),
        committed: Count('history segments committed since start'),
        last: Nullable(
          Obj({
            from: Count('first block'),
            to: Count('last block'),
            blocks: Count('blocks'),
            txs: Count('transactions'),
            bytes: Count('bytes of writes (keys and values, each key once)'),
          }),
          'the last segment committed; null before the first',
        ),
        open: Nullable(
          Obj({
            from: Count('first block'),
            blocks: Count('blocks applied so far'),
            bytes: Count('bytes of pending writes so far'),
          }),
          'the segment being built; null when none',
        ),
      },
      { description: 'history segments' },
    ),
    rates: Obj(
      {
        history: Obj({
          blocksPerSecond: Type.Number({ minimum: 0, description: 'blocks per second (last interval)' }),
          txPerSecond: Type.Number({ minimum: 0, description: 'transactions per second (last interval)' }),
        }),
        live: Obj({
          blocksPerSecond: Type.Number({ minimum: 0, description: 'blocks per second (last interval)' }),
          txPerSecond: Type.Number({ minimum: 0, description: 'transactions per second (last interval)' }),
        }),
      },
      { description: 'commit rates of each mode over the last progress interval' },
    ),
  },
  { description: 'the follower' },
);

const Projection = Obj({
  name: Type.String({ description: 'projection name (chain_records: the raw records themselves)' }),
  version: Type.Integer({
    minimum: 1,
    description: 'layout version (a change rebuilds it from stored blocks)',
  }),
  status: Enum(
    ['building', 'ready', 'stale', 'disabled'],
    'R5: routes backed by a projection that is not ready answer 503 projection_unavailable',
  ),
  backs: Type.Array(Type.String(), { description: 'route groups or paths it backs' }),
  checkpoint: Nullable(Type.Integer({ minimum: 0 }), 'last block applied; null before the first'),
  lagBlocks: Nullable(Type.Integer({ minimum: 0 }), 'blocks behind the node head; null when unknown'),
  progress: Nullable(
    Type.Number({ minimum: 0, maximum: 1 }),
    'fraction applied while building (0..1); null otherwise',
  ),
  reason: Nullable(
    Type.String(),
    'why it is not ready (rebuilding_from_stored_blocks, backfilling, …); null when ready',
  ),
});

const Traces = Obj(
  {
    enabled: Type.Boolean({ description: 'TRACES=on' }),
    state: Enum(
      ['following', 'disabled', 'not_supported'],
      'following: replaying committed blocks; disabled: TRACES=off; not_supported: the node has no debug_trace methods',
    ),
    reason: Nullable(Type.String(), 'why the lane is not following; null when it is'),
    checkpoint: Nullable(Type.Integer({ minimum: 0 }), 'last block replayed; null before the first'),
    behindBlocks: Nullable(
      Type.Integer({ minimum: 0 }),
      'indexed head minus the lane checkpoint: blocks whose call trees are not retained yet (their trace routes answer 503); null unless following with an indexed head',
    ),
  },
  { description: 'the call-trace replay lane' },
);

const Streams = Obj(
  {
    openConnections: Count('open SSE connections of the process (every chain)'),
    lagDisconnects: Count('SSE consumers disconnected for overflowing their queue since start (every chain)'),
    hubSubscribers: Count("live subscribers of this chain's stream hub"),
    topics: Type.Array(
      Obj({
        topic: Type.String({ description: 'stream topic' }),
        lastSequence: Count('last durable sequence written (0 when none)'),
        oldestSequence: Count('oldest sequence still retained for resume'),
      }),
    ),
  },
  { description: 'stream gauges' },
);

const Replication = Obj(
  {
    role: Type.Union([Type.Literal('all'), Type.Literal('writer'), Type.Literal('replica')], {
      description:
        "all: one process ingests and serves (default); writer: ingests and publishes its change log on NATS JetStream; replica: serves from the writer's log, no node",
    }),
    publisher: Nullable(
      Obj({
        connected: Type.Boolean({ description: 'false until the publisher reached JetStream' }),
        publishedSequence: Nullable(
          Type.Integer({ minimum: 0 }),
          'last change sequence JetStream acknowledged',
        ),
        pending: Nullable(Type.Integer({ minimum: 0 }), 'committed entries not yet acknowledged'),
        streamSequence: Nullable(
          Type.Integer({ minimum: 0 }),
          'JetStream sequence of the last acknowledged message',
        ),
        lastError: Nullable(Type.String(), 'last publish error; null when none'),
      }),
      'the change-log publisher; null unless role is writer',
    ),
    replica: Nullable(
      Obj({
        state: Type.Union(
          ['bootstrapping', 'catching_up', 'following', 'disconnected', 'failed'].map((s) => Type.Literal(s)),
        ),
        appliedSequence: Type.Integer({ minimum: 0, description: 'last change sequence applied' }),
        writerSequence: Nullable(
          Type.Integer({ minimum: 0 }),
          "the writer's newest change sequence seen on the stream",
        ),
        writerHead: Nullable(Type.Integer({ minimum: 0 }), "the writer's head block"),
        lagBlocks: Nullable(Type.Integer({ minimum: 0 }), 'blocks behind the writer; null when unknown'),
        lagSeconds: Type.Number({ minimum: 0, description: 'seconds behind the writer (0 when caught up)' }),
        maxLagSeconds: Type.Number({
          description: 'past this lag, anchored routes answer 503 replica_lagging (REPLICA_MAX_LAG_SECONDS)',
        }),
        snapshotsImported: Type.Integer({ minimum: 0, description: 'snapshots joined from since start' }),
        lastError: Nullable(Type.String(), 'last consumption error; null when none'),
      }),
      'the replica state; null unless role is replica',
    ),
  },
  { description: 'scale-out role and state (ops/SCALE-OUT.md)' },
);

const HttpCore = Obj(
  {
    core: Enum(
      ['uws', 'node_http'],
      'uws: the native uWebSockets.js binary serves; node_http: its node:http stand-in (no pinned binary loaded on this Node and platform: same routes and streams, lower throughput, see ops/RELEASE.md)',
    ),
    build: Nullable(
      Type.String(),
      'the native build that serves (upstream version and npm package); null on the stand-in',
    ),
    reason: Nullable(
      Type.String(),
      'why no native binary loaded (each binary tried, with its error); null when native',
    ),
  },
  { description: 'this process\'s HTTP core (SECURITY.md, "HTTP core")' },
);

const TrafficStatus = Obj(
  {
    state: Enum(
      ['disabled', 'starting', 'running', 'retrying', 'stopped'],
      'disabled: DEVNET_TX_PER_SECOND=0; starting: checking or doing its set-up (funding, airdrops, ownership, launches; after a reorg: deployment too); running: sending traffic; retrying: the node did not answer or a set-up step failed, probing with exponential backoff (1 s to 30 s) and resuming by itself; stopped: shut down (see stopReason)',
    ),
    since: Type.String({ description: 'when the current state was entered (ISO 8601)' }),
    stopReason: Nullable(Type.String(), 'why it stopped; null unless stopped'),
    lastError: Nullable(
      Obj({
        message: Type.String({ description: 'the error (e.g. TimeoutError, fetch failed (ECONNREFUSED))' }),
        at: Type.String({ description: 'when it happened (ISO 8601)' }),
      }),
      'the last error that made it retry; null before any',
    ),
    sent: Count('transactions the node accepted since start'),
    swaps: Count('of which swaps (V2, V3, V4, graduated launch tokens)'),
    refused: Count(
      'transactions the node refused (nonce, balance, fee, gas) since start: the sum of refusedBy',
    ),
    refusedBy: Obj(
      {
        insufficientFunds: Count(
          '"Insufficient funds for gas * price + value": stays 0 while the generator tops its wallets up (from funded dev accounts) before their next send could fail',
        ),
        nonce: Count(
          'nonce too low or too high (after dropped transactions or a reorg; the nonces are resynced)',
        ),
        fee: Count('fee cap or priority fee refused (underpriced, below the base fee)'),
        gas: Count('gas limit refused (intrinsic gas, over the block gas limit)'),
        other: Count('any other refusal'),
      },
      { description: "refused transactions by cause, from the node's error message, since start" },
    ),
    failedActions: Count('actions that failed before sending anything (a read that reverted, …) since start'),
    restarts: Count('times its loop restarted after an outage or a failure'),
    setupRedone: Count(
      'times it found part of its set-up (deployment, funding, airdrops, ownership) gone, typically dropped by a reorg, and redid it',
    ),
    reorgsDetected: Count('reorgs it noticed (a block hash it had seen changed)'),
    wallets: Count('active traffic wallets'),
  },
  { description: 'the traffic generator' },
);

const Devnet = Obj(
  {
    rpcUrl: Type.String({ description: "the devnet node's JSON-RPC URL" }),
    node: Obj({
      pid: Nullable(
        Type.Integer({ minimum: 1 }),
        'process id of the devnet node (anvil behind the JSON-RPC front that orders mining, reorgs and traces); null when it no longer runs',
      ),
      reused: Type.Boolean({
        description: 'true when the node was already running (left by a crash or DEVNET_KEEP=1) and reused',
      }),
    }),
    traffic: TrafficStatus,
  },
  { description: 'the embedded devnet (present only when this chain is the embedded devnet)' },
);

/**
 * GET /index/v1/{chain}/health: the full readiness record — the follower (state, head lag, rates,
 * reorgs), projections with status and progress, the traces lane and how far behind it is, stream
 * gauges, open gaps and storage write state; on the embedded devnet, `devnet`: its node and the
 * traffic generator's state and counters.
 */
export const chainHealthRoute = defineRoute({
  id: 'monitoring.health',
  method: 'GET',
  path: '/health',
  scope: 'monitoring',
  group: 'Monitoring',
  summary:
    'Full readiness record: follower (state, head lag, backfill rate and ETA, reorgs), projections with status and progress, traces lane and how far behind it is, stream gauges, open gaps, storage write state; on the embedded devnet, its node and traffic generator state.',
  response: Obj({
    chain: Type.String({ description: 'chain name' }),
    chainId: Type.Integer({ minimum: 0 }),
    anchor: Nullable(Anchor, 'the committed head; null before the first block'),
    anchorReason: ReasonOf(['nothing_indexed_yet']),
    ingest: Ingest,
    projections: Type.Array(Projection),
    traces: Traces,
    streams: Streams,
    openGaps: Count('open ingest gaps of every lane (see /gaps)'),
    history: Obj(
      {
        retention: Type.Union([Type.Literal('all'), Type.Integer({ minimum: 1 })], {
          description:
            'HISTORY_RETENTION: all, or the blocks below the head an as-of read may name (off: the unfinalised window)',
        }),
        oldestRetainedBlock: Nullable(
          Type.Integer({ minimum: 0 }),
          'the oldest block atBlock may name (older: 410 history_pruned); null before the first block',
        ),
        headBlock: Nullable(
          Type.Integer({ minimum: 0 }),
          'the committed head, the newest block atBlock may name; null before the first block',
        ),
        prunedBelow: Nullable(
          Type.Integer({ minimum: 0 }),
          "the history pruner's mark: the store holds the state of this block and later exactly, and no longer the versions only older blocks need; null: nothing pruned",
        ),
        enforcement: Type.Union([Type.Literal('reads'), Type.Literal('pruned')], {
          description:
            'reads: HISTORY_RETENTION=all, nothing is pruned; pruned: the stored versions no read in the range reaches are deleted in the background, down to head − max(HISTORY_RETENTION, UNFINALISED_WINDOW)',
        }),
      },
      { description: 'the block range as-of reads (atBlock / atBlockHash) may name' },
    ),
    storage: Obj(
      {
        writable: Type.Boolean({ description: 'false after a failed write: ingest halts, reads go on' }),
        writeError: Nullable(Type.String(), 'the failed write; null while writable'),
        writesInFlight: Count('write batches handed to the writer thread and not yet committed'),
        bytesInFlight: Count('bytes of those batches (keys and values)'),
        stateCache: Obj(
          {
            entries: Count('keys held'),
            bytes: Count('bytes held (keys, values and overhead)'),
            maxBytes: Count('the bound (STATE_CACHE_MB)'),
            hits: Count('reads answered from the cache since start'),
            misses: Count('reads that went to RocksDB since start'),
          },
          { description: "ingest's write-back state cache" },
        ),
      },
      { description: 'storage write state' },
    ),
    replication: Replication,
    http: HttpCore,
    devnet: Type.Optional(Devnet),
  }),
  errors: [],
  handler(ctx) {
    // Every field passes the one redaction (lastError, haltDetail, the publisher's and replica's
    // lastError, reasons, writeError): a node's error quotes its URL, key and all.
    return { json: JSON.stringify(redactRecord(healthRecord(ctx))) };
  },
});
