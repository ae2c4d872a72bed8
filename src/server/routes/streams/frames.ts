/**
 * The frames of the single-topic stream routes: for each topic, its data events (durable ids,
 * resumable) and the control events every topic stream may send. The `data:` line of each event is
 * the JSON text of its schema here; data frames carry the same records the REST routes serve
 * (node records byte-exact as stored, transfer rows, launch rows).
 */
import { type TObject, Type } from '@sinclair/typebox';
import { SseEvent } from '../../openapi.js';
import { Address, Enum, Hash, Nullable, Obj } from '../../schemas.js';
import { BlockHeader, LogRecord, TransactionEnvelope } from '../chain/schemas.js';
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
} satisfies Record<string, TObject[]>;
