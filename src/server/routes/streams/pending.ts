/** Stream routes (11), scope `stream` — issue G. Typed 503 until durable topics land. */
import { Type } from '@sinclair/typebox';
import { pendingRoute } from '../../pending.js';

const list = (d: string) => Type.Optional(Type.String({ maxLength: 8192, description: `comma list: ${d}` }));
const after = { after_sequence: Type.Optional(Type.Integer({ minimum: 0 })) };
const all = { all: Type.Optional(Type.Boolean()) };
const S = (id: string, path: string, summary: string, query: object) =>
  pendingRoute({ id: `streams.${id}`, path, group: 'Streams', scope: 'stream', summary, projection: 'streams', query: query as never });

export const streamRoutes = [
  S('ammEvents', '/stream/amm-events', 'New swaps and liquidity events (SSE).', {
    tokens: list('token addresses'),
    pools: list('0x<pool> or V4 0x<manager>:0x<poolId>'),
    wallets: list('wallet addresses'),
    launchpads: list('canonical launchpad names'),
    ...all,
    min_leg_magnitude: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$' })),
    ...after,
  }),
  S('blocks', '/stream/blocks', 'New canonical blocks (SSE).', after),
  S('transactions', '/stream/transactions', 'New canonical transactions (SSE).', { addresses: list('from or to address'), ...all, ...after }),
  S('logs', '/stream/logs', 'New logs (SSE).', { addresses: list('emitting contracts'), topics: list('topic0 values'), ...all, ...after }),
  S('transfers', '/stream/transfers', 'New token and native transfers (SSE).', { tokens: list('token addresses'), wallets: list('wallets'), ...all, ...after }),
  S('creations', '/stream/creations', 'New contract and token creations (SSE).', { contracts: list('created addresses'), wallets: list('creators'), ...all, ...after }),
  S('launches', '/stream/launches', 'Launch lifecycle transitions (SSE).', {
    tokens: list('token addresses'),
    launchpads: list('launchpad names'),
    exclude_launchpads: list('launchpad names (exclusion wins)'),
    ...all,
    ...after,
  }),
  S('pools', '/stream/pools', 'Newly registered pools, V2/V3/V4 and launchpad curves (SSE).', { tokens: list('either currency'), ...all, ...after }),
  S('candles', '/stream/candles', 'Live candles; snapshot then update frames (≤ 1 per 250 ms per series) and close frames.', {
    select: Type.String({ minLength: 1, maxLength: 8192 }),
  }),
  S('heads', '/stream/heads', 'Canonical head movement (SSE).', {}),
  S('subscribe', '/stream/subscribe', 'One multiplexed connection: connected, per-topic stalled/resumed, select triples, resume.', {
    select: Type.String({ minLength: 1, maxLength: 8192 }),
    min_leg_magnitude: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$' })),
    resume: Type.Optional(Type.String({ maxLength: 8192 })),
  }),
];
