/**
 * Single-topic stream routes (SSE, scope `stream`): each frame carries the durable id
 * `v1.<topic>-<generation>.<seq>` on its `id:` line; resume with `after_sequence` (wins) or the
 * `Last-Event-ID` header. Reorgs arrive as `reorg` frames naming the removed blocks.
 */
import { type TObject, Type } from '@sinclair/typebox';
import type { Topic } from '../../../schema/rows/streams.js';
import { type Dimension, parseList, type Selection } from '../../../streams/selectors.js';
import { ApiError } from '../../errors.js';
import { SseEvents } from '../../openapi.js';
import { defineRoute, type Route } from '../../route.js';
import { sseReply, streamRequestOf } from './common.js';
import { TOPIC_EVENTS } from './frames.js';

const list = (d: string) =>
  Type.Optional(Type.String({ maxLength: 65_536, description: `comma list: ${d}` }));
const after = {
  after_sequence: Type.Optional(
    Type.Integer({ minimum: 0, description: 'last delivered sequence number (wins over Last-Event-ID)' }),
  ),
};
const all = {
  all: Type.Optional(
    Type.Boolean({ description: 'subscribe to everything (alone satisfies the selector rule)' }),
  ),
};
const amount = Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$' }));

type Q = Record<string, string | number | boolean | undefined>;
type ListKind = Parameters<typeof parseList>[2];
interface TopicSpec {
  id: string;
  path: string;
  topic: Topic;
  summary: string;
  query: Record<string, unknown>;
  /** Builds the selection; null dims means the topic takes no selectors (everything). */
  select: ((q: Q) => Selection) | null;
  /** The events this stream sends (its published frame schemas); absent while still open. */
  events?: TObject[];
}

const requireOne = (sel: Selection, names: string) => {
  if (!sel.all && !Object.values(sel.dims).some((s) => s?.size) && !sel.excludeLaunchpads?.size) {
    throw new ApiError('bad_request', `at least one selector (${names}) or all=true is required`);
  }
  return sel;
};

/**
 * The selection of a topic whose selectors are comma lists (`lists`: each parsed as its kind) or
 * `all`, one of them required; `extra` adds filters read after the lists.
 */
const selectLists =
  (lists: Partial<Record<Dimension, ListKind>>, extra?: (q: Q) => Partial<Selection>) =>
  (q: Q): Selection =>
    requireOne(
      {
        all: q.all === true,
        dims: Object.fromEntries(
          (Object.entries(lists) as Array<[Dimension, ListKind]>).map(([name, kind]) => [
            name,
            parseList(name, q[name] as string, kind),
          ]),
        ),
        ...extra?.(q),
      },
      Object.keys(lists).join(', '),
    );

const make = (s: TopicSpec): Route =>
  defineRoute({
    id: s.id,
    method: 'GET',
    path: s.path,
    scope: 'stream',
    group: 'Streams',
    summary: `${s.summary} SSE; durable ids; resume by after_sequence or Last-Event-ID; catch-up ring of 50,000 frames per topic, further behind → lag event; reorg frames; counts once against the 8-stream ceiling (429 without Retry-After).`,
    query: { ...(s.query as object), ...after } as never,
    response: s.events ? SseEvents(s.events) : Type.String({ description: 'text/event-stream' }),
    mediaType: 'text/event-stream',
    errors: ['bad_request', 'rate_limited', 'not_ready'],
    anchored: true,
    handler(ctx) {
      const q = ctx.query as Q;
      const sel = s.select ? s.select(q) : { all: true, dims: {} };
      return sseReply(() =>
        ctx.chain.streams.openTopic(
          streamRequestOf(ctx),
          s.topic,
          sel,
          q.after_sequence as number | undefined,
        ),
      );
    },
  });

export const topicStreamRoutes: Route[] = [
  make({
    id: 'streams.ammEvents',
    path: '/stream/amm-events',
    topic: 'amm_events',
    events: TOPIC_EVENTS.amm_events,
    summary:
      'New swaps (event swap: pool, protocol, currencies, amounts in pool perspective, price rational, sender, origin, transactionHash) and liquidity events. Selectors: tokens, pools (0x<pool> or V4 0x<manager>:0x<poolId>), wallets, launchpads (matches curve trades of the pad), all; min_leg_magnitude filters swaps by max(|amount0|,|amount1|) in that leg’s base units after a selector matched.',
    query: {
      tokens: list('token addresses'),
      pools: list('pool ids'),
      wallets: list('wallets'),
      launchpads: list('launchpad names'),
      ...all,
      min_leg_magnitude: amount,
    },
    select: selectLists(
      { tokens: 'address', pools: 'pool', wallets: 'address', launchpads: 'name' },
      (q) => ({
        minLegMagnitude:
          q.min_leg_magnitude !== undefined ? BigInt(q.min_leg_magnitude as string) : undefined,
      }),
    ),
  }),
  make({
    id: 'streams.blocks',
    path: '/stream/blocks',
    topic: 'blocks',
    events: TOPIC_EVENTS.blocks,
    summary: 'New canonical blocks (event block: the header as /blocks/{number} serves it).',
    query: {},
    select: null,
  }),
  make({
    id: 'streams.transactions',
    path: '/stream/transactions',
    topic: 'transactions',
    events: TOPIC_EVENTS.transactions,
    summary:
      'New canonical transactions (event transaction: the envelope as the node sent it). Selectors: addresses (from or to), all.',
    query: { addresses: list('from or to addresses'), ...all },
    select: selectLists({ addresses: 'address' }),
  }),
  make({
    id: 'streams.logs',
    path: '/stream/logs',
    topic: 'logs',
    events: TOPIC_EVENTS.logs,
    summary:
      'New logs (event log: the log as the node sent it). Selectors: addresses (emitting contract), topics (topic0), all.',
    query: { addresses: list('emitting contracts'), topics: list('topic0 values'), ...all },
    select: selectLists({ addresses: 'address', topics: 'topic0' }),
  }),
  make({
    id: 'streams.transfers',
    path: '/stream/transfers',
    topic: 'transfers',
    events: TOPIC_EVENTS.transfers,
    summary:
      'New token transfers (event transfer: the /tokens/{address}/transfers row plus token). Selectors: tokens, wallets (either side), all.',
    query: { tokens: list('token addresses'), wallets: list('wallets'), ...all },
    select: selectLists({ tokens: 'address', wallets: 'address' }),
  }),
  make({
    id: 'streams.creations',
    path: '/stream/creations',
    topic: 'creations',
    events: TOPIC_EVENTS.creations,
    summary:
      'New contract creations (top-level) and launchpad token creations (event creation). Selectors: contracts (created address), wallets (creator), all.',
    query: { contracts: list('created addresses'), wallets: list('creators'), ...all },
    select: selectLists({ contracts: 'address', wallets: 'address' }),
  }),
  make({
    id: 'streams.launches',
    path: '/stream/launches',
    topic: 'launches',
    events: TOPIC_EVENTS.launches,
    summary:
      'Launch lifecycle transitions: launch_new (normalised metadataUri, imageUri, imageProvenance), launch_graduating, launch_graduated. Selectors: tokens, launchpads, exclude_launchpads (everything except these; exclusion wins), all.',
    query: {
      tokens: list('token addresses'),
      launchpads: list('launchpad names'),
      exclude_launchpads: list('launchpad names'),
      ...all,
    },
    select: (q) => {
      const ex = parseList('exclude_launchpads', q.exclude_launchpads as string, 'name');
      const sel: Selection = {
        all: q.all === true || (ex !== undefined && ex.size > 0),
        dims: {
          tokens: parseList('tokens', q.tokens as string, 'address'),
          launchpads: parseList('launchpads', q.launchpads as string, 'name'),
        },
        excludeLaunchpads: ex,
      };
      return requireOne(sel, 'tokens, launchpads, exclude_launchpads');
    },
  }),
  make({
    id: 'streams.pools',
    path: '/stream/pools',
    topic: 'pools',
    events: TOPIC_EVENTS.pools,
    summary:
      'Newly registered pools (event pool_new: the pool identity of /pools/new). Selectors: tokens (either currency), all.',
    query: { tokens: list('either currency'), ...all },
    select: selectLists({ tokens: 'address' }),
  }),
  make({
    id: 'streams.heads',
    path: '/stream/heads',
    topic: 'heads',
    events: TOPIC_EVENTS.heads,
    summary:
      'Canonical head movement (event head {number, hash, parentHash, timestamp}; reorg frames on rollback).',
    query: {},
    select: null,
  }),
];
