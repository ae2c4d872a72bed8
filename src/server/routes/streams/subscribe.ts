import { Type } from '@sinclair/typebox';
import { parseCandleSelect, runCandles } from '../../../streams/candles.js';
import { TOPICS, type Topic } from '../../../streams/log.js';
import { type Dimension, parseList, type Selection } from '../../../streams/selectors.js';
import { ApiError } from '../../errors.js';
import { projectionsOf } from '../../projections.js';
import { defineRoute } from '../../route.js';

const DIMS: Record<string, [Dimension, 'address' | 'pool' | 'name' | 'topic0']> = {
  token: ['tokens', 'address'],
  pool: ['pools', 'pool'],
  wallet: ['wallets', 'address'],
  launchpad: ['launchpads', 'name'],
  address: ['addresses', 'address'],
  topic0: ['topics', 'topic0'],
};

/** The projection each topic depends on: a topic is `stalled` while it is not ready. */
const DEPENDS: Record<Topic, string> = {
  amm_events: 'markets',
  pools: 'markets',
  transfers: 'tokens',
  launches: 'tokens',
  creations: 'tokens',
  blocks: 'chain_records',
  transactions: 'chain_records',
  logs: 'chain_records',
  heads: 'chain_records',
};

/**
 * GET /stream/subscribe: one multiplexed connection. `connected` first, then per-topic
 * `stalled`/`resumed` control frames; data frames wrap `{topic, sequence, block, data}`.
 */
export const subscribeRoute = defineRoute({
  id: 'streams.subscribe',
  method: 'GET',
  path: '/stream/subscribe',
  scope: 'stream',
  group: 'Streams',
  summary:
    'Multiplexed SSE: select = comma list of topic:dimension:value or topic:all (dimensions token, pool, wallet, launchpad, address, topic0, all; candles use the /stream/candles grammar after "candles:"); resume = comma list of topic:v1.<ns>.<seq> (each topic must be selected; candles cannot resume); a Last-Event-ID header without resume is not honoured and the stream says so in band. min_leg_magnitude only with an amm_events selector. Frames: connected, stalled/resumed per topic, data {topic, sequence, block, data}, candle snapshot/update/close.',
  query: {
    select: Type.String({ minLength: 1, maxLength: 65_536 }),
    min_leg_magnitude: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$' })),
    resume: Type.Optional(Type.String({ maxLength: 8192 })),
  },
  response: Type.String({ description: 'text/event-stream' }),
  errors: ['bad_request', 'not_found', 'quote_not_admitted', 'rate_limited', 'not_ready'],
  anchored: true,
  handler(ctx) {
    const topics = new Map<Topic, Selection>();
    const candleSelectors: string[] = [];
    for (const raw of ctx.query.select.split(',')) {
      const s = raw.trim();
      if (!s) continue;
      const i = s.indexOf(':');
      const topic = i < 0 ? s : s.slice(0, i);
      const rest = i < 0 ? '' : s.slice(i + 1);
      if (topic === 'candles') {
        candleSelectors.push(rest);
        continue;
      }
      if (!(topic in TOPICS)) throw new ApiError('bad_request', `unknown topic "${topic.slice(0, 40)}"`);
      const t = topic as Topic;
      const sel = topics.get(t) ?? { all: false, dims: {} };
      topics.set(t, sel);
      if (rest === 'all') {
        sel.all = true;
        continue;
      }
      const j = rest.indexOf(':');
      const dim = j < 0 ? rest : rest.slice(0, j);
      const value = j < 0 ? '' : rest.slice(j + 1);
      if (dim === 'all') {
        sel.all = true;
        continue;
      }
      const d = DIMS[dim];
      if (!d || !value)
        throw new ApiError(
          'bad_request',
          `"${s.slice(0, 80)}" is not topic:dimension:value (dimensions ${Object.keys(DIMS).join(', ')}, all)`,
        );
      const parsed = parseList(dim, value, d[1])!;
      const set = (sel.dims[d[0]] ??= new Set());
      for (const v of parsed) set.add(v);
    }
    if (!topics.size && !candleSelectors.length) throw new ApiError('bad_request', 'select names no topic');
    if (ctx.query.min_leg_magnitude !== undefined) {
      const amm = topics.get('amm_events');
      if (!amm) throw new ApiError('bad_request', 'min_leg_magnitude needs an amm_events selector');
      amm.minLegMagnitude = BigInt(ctx.query.min_leg_magnitude);
    }
    const resume = new Map<Topic, number>();
    for (const raw of (ctx.query.resume ?? '').split(',')) {
      const s = raw.trim();
      if (!s) continue;
      const i = s.indexOf(':');
      const topic = s.slice(0, i) as Topic;
      if (String(topic) === 'candles') throw new ApiError('bad_request', 'candles cannot be resumed');
      if (!topics.has(topic))
        throw new ApiError('bad_request', `resume names topic "${topic}" that select does not`);
      const p = ctx.chain.streams.log.parseId(s.slice(i + 1));
      if (p === null || p === 'other' || p.topic !== topic)
        throw new ApiError(
          'bad_request',
          `resume "${s.slice(0, 80)}" is not an id of topic ${topic} in this store generation`,
        );
      if (p.seq > ctx.chain.streams.log.last(topic))
        throw new ApiError('bad_request', `resume ${s} is beyond the topic's last sequence`);
      resume.set(topic, p.seq);
    }
    const series = candleSelectors.length ? parseCandleSelect(ctx.chain, candleSelectors.join(',')) : [];
    const stalledOf = (t: Topic): string | null => {
      const p = projectionsOf(ctx.chain).find((x) => x.name === DEPENDS[t]);
      return p && p.status !== 'ready' ? `${p.name}_${p.status}${p.reason ? `:${p.reason}` : ''}` : null;
    };
    return ctx.chain.streams.openMany(ctx, topics, resume, {
      lastEventIdIgnored: !!ctx.header('last-event-id') && resume.size === 0,
      stalledOf,
      onOpen: series.length
        ? (conn) => {
            const run = runCandles(ctx.chain, conn, series);
            const remove = ctx.chain.streams.hub.add({
              topics: new Set(),
              deliver() {},
              onCommit: run.onCommit,
            });
            return () => {
              remove();
              run.stop();
            };
          }
        : undefined,
    });
  },
});
