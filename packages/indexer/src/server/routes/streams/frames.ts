/**
 * The frames of the single-topic stream routes: for each topic, its data events (durable ids,
 * resumable) and the control events every topic stream may send. The `data:` line of each event is
 * the JSON text of its schema here; data frames carry the same records the REST routes serve
 * (node records byte-exact as stored, transfer rows, launch rows).
 */
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { SseEvent } from '../../openapi.js';
import { Address, Enum, Hash, Nullable, Obj } from '../../schemas.js';
import { BlockHeader, LogRecord, TransactionEnvelope } from '../chain/schemas.js';
import { candleSchema, LiquidityEvent, PoolKey, Protocol, poolIdentityProps } from '../pools/schemas.js';
import { Launch, TokenCoordinate, TransferRow } from '../tokens/schemas.js';

const BlockRef = Obj({ number: Type.Integer({ minimum: 0 }), hash: Hash });

/** `reorg`: on every topic, one frame per removed block, with a durable id like a data frame. */
const Reorg = SseEvent(
  'reorg',
  Obj({
    removedBlocks: Type.Array(BlockRef, {
      description: 'the blocks this reorg removed (delivered frames of them are void)',
    }),
    newHead: Nullable(
      BlockRef,
      'the canonical head after the rollback; null when the chain rolled back to nothing',
    ),
  }),
  'a reorg removed blocks whose frames were delivered: drop what they carried',
  { durableId: true },
);

/** `lag`: the consumer is further behind than the catch-up ring (or gave a foreign id); the stream closes. */
const Lag = SseEvent(
  'lag',
  Obj({
    topic: Type.Optional(
      Type.String({ description: 'the topic (absent when the connection itself fell behind)' }),
    ),
    reason: Enum(
      ['behind_catch_up_ring', 'id_from_another_generation_or_topic', 'consumer_too_slow'],
      'why the stream cannot resume here',
    ),
    requestedAfter: Type.Optional(
      Type.Integer({ minimum: 0, description: 'the sequence asked to resume after' }),
    ),
    oldestAvailable: Type.Optional(
      Type.Integer({ minimum: 0, description: 'oldest sequence still in the ring' }),
    ),
    ringFrames: Type.Optional(Type.Integer({ minimum: 0, description: 'frames kept per topic for resume' })),
    droppedFrames: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'consumer_too_slow: frames queued and dropped when the stream closed',
      }),
    ),
    action: Type.String({ description: 'what the consumer should do' }),
  }),
  'the consumer cannot be caught up from the ring: backfill through REST, then reconnect',
);

const HeadFrame = Obj({
  number: Type.Integer({ minimum: 0 }),
  hash: Hash,
  parentHash: Hash,
  timestamp: Type.Integer({ minimum: 0, description: 'unix seconds' }),
});

const CreationFrame = Obj({
  address: Address,
  creator: Address,
  via: Enum(['transaction', 'launchpad'], 'a top-level creation, or a launchpad factory'),
  factory: Type.Optional(Address),
  ...TokenCoordinate.properties,
});

const TransferFrame = Obj({ token: Address, ...TransferRow.properties });

/** Where an AMM frame happened: the pool and its currencies (selectors match on these). */
const ammHead = {
  pool: PoolKey,
  protocol: Protocol,
  currency0: poolIdentityProps.currency0,
  currency1: poolIdentityProps.currency1,
  transactionHash: { ...Hash, description: 'the transaction (same as txHash)' },
};

/** A swap as stored at ingest: pool perspective, price as the exact rational text `num/den`. */
const SwapFrame = Obj({
  kind: Type.Literal('swap'),
  ...ammHead,
  contract: poolIdentityProps.contract,
  poolId: poolIdentityProps.poolId,
  block: Type.Integer({ minimum: 0 }),
  timestamp: Type.Integer({ minimum: 0, description: 'block timestamp, unix seconds' }),
  txIndex: Type.Integer({ minimum: 0 }),
  logIndex: Type.Integer({ minimum: 0 }),
  txHash: Hash,
  origin: { ...Address, description: 'the transaction sender (origin), never the router' },
  sender: Nullable(Address, 'event sender; null when the protocol reports none'),
  recipient: Nullable(Address, 'event recipient; null when the protocol reports none'),
  amount0: Type.String({
    pattern: '^-?(0|[1-9][0-9]*)$',
    description: 'signed currency0 base units, pool perspective',
  }),
  amount1: Type.String({
    pattern: '^-?(0|[1-9][0-9]*)$',
    description: 'signed currency1 base units, pool perspective',
  }),
  price: Type.String({
    pattern: '^(0|[1-9][0-9]*)/[1-9][0-9]*$',
    description:
      'price after the trade, currency1 base units per currency0 base unit, as the exact rational `numerator/denominator` (REST serves the same as priceNumerator/priceDenominator)',
  }),
  side: Enum(['buy', 'sell'], 'buy: the trader received currency0 (amount0 < 0); else sell'),
  tick: Nullable(Type.Integer(), 'tick after the swap (v3/v4); null otherwise'),
  sqrtPriceX96: Nullable(
    Type.String({ pattern: '^(0|[1-9][0-9]*)$' }),
    'Q64.96 after the swap (v3/v4); null otherwise',
  ),
});

/** A liquidity event as the REST liquidity-events rows, with the pool head. */
const LiquidityFrame = Type.Union(
  (LiquidityEvent.anyOf as TObject[]).map((m: TSchema) =>
    Obj({ ...ammHead, ...(m as TObject).properties }, { description: (m as TObject).description }),
  ),
  { description: 'a liquidity event (V2 Mint/Burn, V3 Mint/Burn/Collect, V4 ModifyLiquidity)' },
);

/** A newly registered pool, as stored (REST adds `address` and `feeUnit`). */
const { address: _a, feeUnit: _f, provenance, ...storedPool } = poolIdentityProps;
const PoolNewFrame = Obj({ ...storedPool, provenance: Type.Optional(provenance) });

const data = (event: string, schema: TObject, description: string) =>
  SseEvent(event, schema, description, { durableId: true });

/** The events of each topic's stream route (data events, then the control events). */
export const TOPIC_EVENTS = {
  blocks: [data('block', BlockHeader, 'a committed canonical block header, as the node sent it'), Reorg, Lag],
  heads: [data('head', HeadFrame, 'the new canonical head'), Reorg, Lag],
  transactions: [
    data('transaction', TransactionEnvelope, 'a transaction of a committed block, as the node sent it'),
    Reorg,
    Lag,
  ],
  logs: [data('log', LogRecord, 'a log of a committed block, as the node sent it'), Reorg, Lag],
  transfers: [
    data('transfer', TransferFrame, 'an ERC-20 Transfer of a committed block (value in base units)'),
    Reorg,
    Lag,
  ],
  creations: [
    data('creation', CreationFrame, 'a contract creation (top-level or by a launchpad factory)'),
    Reorg,
    Lag,
  ],
  launches: [
    ...['new', 'graduating', 'graduated'].map((s) =>
      data(`launch_${s}`, Launch, `a launch row whose state is now ${s}`),
    ),
    Reorg,
    Lag,
  ],
  amm_events: [
    data('swap', SwapFrame, 'a swap of a committed block'),
    SseEvent('liquidity', LiquidityFrame, 'a liquidity event of a committed block', { durableId: true }),
    Reorg,
    Lag,
  ],
  pools: [data('pool_new', PoolNewFrame, 'a pool registered in a committed block'), Reorg, Lag],
} satisfies Record<string, TObject[]>;

/** The candle payload: the REST candle row of the series (/pools/…/ohlcv or /tokens/…/candles). */
const CandleRowFrame = candleSchema(
  'quote base units per base unit (pool series: currency1 per currency0, as /pools/{address}/ohlcv; token series: quote per token, as /tokens/{address}/candles)',
  'the base (pool series: currency0; token series: the token)',
  'the quote (pool series: currency1)',
);

const candleHead = {
  series: Type.String({ description: 'the selector as the consumer wrote it' }),
  pool: PoolKey,
  frame: Enum(['1s', '30s', '1m', '1h', '1d'], 'bucket width'),
  bucket: Type.Integer({ minimum: 0, description: 'bucket start, unix seconds' }),
};
const candleOf = Nullable(CandleRowFrame, 'null: no trade in the bucket (yet)');

/** The candle events of /stream/candles and of candle series on /stream/subscribe. */
export const CANDLE_EVENTS = [
  SseEvent(
    'snapshot',
    Obj({
      ...candleHead,
      position: Enum(['previous', 'forming'], 'the bucket before the head’s, or the head’s own'),
      final: Type.Boolean({ description: 'true for the previous bucket (it will not change)' }),
      candle: candleOf,
    }),
    'on connect (and for each series added later): the previous and the forming bucket',
  ),
  SseEvent(
    'update',
    Obj({ ...candleHead, final: Type.Literal(false), candle: CandleRowFrame }),
    'the forming bucket changed (at most one per 250 ms per series)',
  ),
  SseEvent(
    'close',
    Obj({
      ...candleHead,
      final: Type.Literal(true),
      candle: candleOf,
    }),
    'the head left the bucket: its candle is final',
  ),
  SseEvent(
    'selection_changed',
    Obj({
      topic: Type.Literal('candles'),
      connectionId: Type.String({ pattern: '^[0-9a-f]{32}$' }),
      revision: Type.Integer({ minimum: 1, description: 'mutations applied so far' }),
      added: Type.Array(Type.String(), { description: 'series added: their snapshots follow' }),
      removed: Type.Array(Type.String(), { description: 'series removed: nothing more of them' }),
      unchanged: Type.Array(Type.String(), { description: 'series continuing untouched' }),
      selection: Type.Array(Type.String(), { description: 'the whole selection after the change' }),
    }),
    'the candle selection of this connection was replaced (GET /stream/subscribe?connection=)',
  ),
  Lag,
];

/** Every data event of every topic (event names are unique across topics), with its frame schema. */
const TOPIC_DATA = Object.entries(TOPIC_EVENTS).flatMap(([topic, events]) =>
  events
    .filter((e) => !['reorg', 'lag'].includes((e.properties.event as unknown as { const: string }).const))
    .map((e) => ({
      topic,
      event: (e.properties.event as unknown as { const: string }).const,
      data: e.properties.data,
    })),
);

const wrapped = (topics: string[], data: TSchema) =>
  Obj({
    topic: topics.length === 1 ? Type.Literal(topics[0]) : Enum(topics, 'the topic'),
    sequence: Type.Integer({ minimum: 1, description: 'the frame’s sequence in its topic' }),
    block: Type.Integer({ minimum: 0, description: 'the block the frame belongs to' }),
    data,
  });

/** Events of GET /stream/subscribe: control frames, wrapped topic frames, candle frames. */
export const SUBSCRIBE_EVENTS: TObject[] = [
  SseEvent(
    'connected',
    Obj({
      topics: Type.Record(
        Type.String({ pattern: `^(${Object.keys(TOPIC_EVENTS).join('|')})$` }),
        Obj({
          namespace: Type.String({ description: 'the topic’s id namespace (resume ids v1.<ns>.<seq>)' }),
          lastSequence: Type.Integer({ minimum: 0, description: 'the topic’s last sequence at connect' }),
        }),
        { description: 'each selected topic', additionalProperties: false },
      ),
      ringFrames: Type.Integer({ minimum: 0, description: 'frames kept per topic for resume' }),
      lastEventIdHonoured: Type.Boolean({ description: 'false: a Last-Event-ID header was ignored' }),
      connectionId: Type.String({
        pattern: '^[0-9a-f]{32}$',
        description: 'mutate this connection’s candle selection with ?connection=',
      }),
      candles: Type.Array(Type.String(), { description: 'the candle selection at connect' }),
    }),
    'first frame of every connection',
  ),
  SseEvent(
    'notice',
    Obj({ reason: Type.String({ description: 'what the server did differently from the request' }) }),
    'an in-band notice (Last-Event-ID not honoured)',
  ),
  SseEvent(
    'stalled',
    Obj({
      topic: Type.String(),
      reason: Type.String({ description: 'e.g. projection_unavailable:markets' }),
    }),
    'a topic’s projection is not ready: its frames pause',
  ),
  SseEvent('resumed', Obj({ topic: Type.String() }), 'a stalled topic flows again'),
  ...TOPIC_DATA.map(({ topic, event, data }) =>
    SseEvent(
      event,
      wrapped([topic], data as TSchema),
      `a ${topic} frame, wrapped with its topic and sequence`,
      {
        durableId: true,
      },
    ),
  ),
  SseEvent(
    'reorg',
    wrapped(Object.keys(TOPIC_EVENTS), Reorg.properties.data),
    'a reorg frame of a topic, wrapped',
    {
      durableId: true,
    },
  ),
  ...CANDLE_EVENTS,
];
