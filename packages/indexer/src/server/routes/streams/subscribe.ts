import { Type } from '@sinclair/typebox';
import { TOPICS, type Topic } from '../../../schema/rows/streams.js';
import { MAX_SERIES, parseCandleSelect, runCandles, seriesId } from '../../../streams/candles.js';
import { type Dimension, parseList, type Selection } from '../../../streams/selectors.js';
import { ApiError } from '../../errors.js';
import { SseEvents } from '../../openapi.js';
import { projectionsOf } from '../../projections.js';
import { type Ctx, defineRoute, type Reply, single } from '../../route.js';
import { Obj, Single } from '../../schemas.js';
import { sseReply, streamRequestOf } from './common.js';
import { SUBSCRIBE_EVENTS } from './frames.js';

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

/** `select` value that empties a connection's candle selection (mutation only, alone). */
const NO_CANDLES = 'candles:none';

/**
 * The candle-selector mutation: `GET /stream/subscribe?connection=<id>&select=candles:…` replaces
 * the candle selection of the open connection `<id>` (announced in its `connected` frame) and
 * answers `{anchor, data: {connectionId, revision, added, removed, unchanged, candles}}`. The
 * connection receives `selection_changed` with the same fields, then the snapshot frames
 * (previous and forming bucket) of each added series; removed series send nothing more; other
 * topics are untouched.
 * @throws ApiError not_found (unknown or closed connection), connection_not_owned (another key),
 *   bad_request (a non-candle selector, bad grammar, resume or min_leg_magnitude), and the candle
 *   grammar's not_found / quote_not_admitted for a selector naming no pool or an inadmissible quote.
 */
function mutateCandles(
  ctx: Ctx<unknown, { select: string; connection?: string; resume?: string; min_leg_magnitude?: string }>,
): Reply {
  const q = ctx.query;
  if (q.resume !== undefined || q.min_leg_magnitude !== undefined)
    throw new ApiError(
      'bad_request',
      'connection= takes select only (resume and min_leg_magnitude apply when opening)',
    );
  const c = ctx.chain.streams.connections.get(q.connection!);
  if (!c) throw new ApiError('not_found', `no open stream connection ${q.connection}`);
  if (c.owner !== ctx.principal?.name)
    throw new ApiError('connection_not_owned', 'this stream connection was opened with another key');
  const entries = q.select
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  let selectors: string[] = [];
  if (!(entries.length === 1 && entries[0] === NO_CANDLES)) {
    for (const e of entries) {
      if (!e.startsWith('candles:') || e === NO_CANDLES)
        throw new ApiError(
          'bad_request',
          `"${e.slice(0, 80)}": only candle selectors (candles:<selector>, or candles:none alone) can be mutated; reconnect to change other topics`,
        );
    }
    selectors = entries.map((e) => e.slice('candles:'.length));
    if (!selectors.length) throw new ApiError('bad_request', 'select names no candle series');
  }
  const series = selectors.length ? parseCandleSelect(ctx.view, selectors.join(',')) : [];
  const anchor = ctx.anchor;
  const connections = ctx.chain.streams.connections;
  // The replacement is the reply's effect: applied once, on the run whose reads stand (a run
  // dropped for a write landing mid-read would otherwise bump the revision twice).
  return {
    json: '',
    effect: () => {
      if (connections.get(c.id) !== c) throw new ApiError('not_found', `no open stream connection ${c.id}`);
      const change = connections.replaceCandles(c, series);
      return single(
        anchor,
        JSON.stringify({
          connectionId: c.id,
          revision: change.revision,
          added: change.added,
          removed: change.removed,
          unchanged: change.unchanged,
          candles: change.selection,
        }),
      );
    },
  };
}

/**
 * GET /stream/subscribe: one multiplexed connection. `connected` first (with `connectionId` and
 * the candle selection), then per-topic `stalled`/`resumed` control frames; data frames wrap
 * `{topic, sequence, block, data}`. With `connection=<id>` the same path mutates the candle
 * selection of that open connection instead (see {@link mutateCandles}).
 */
export const subscribeRoute = defineRoute({
  id: 'streams.subscribe',
  method: 'GET',
  path: '/stream/subscribe',
  scope: 'stream',
  group: 'Streams',
  summary: `Multiplexed SSE: select = comma list of topic:dimension:value or topic:all (dimensions token, pool, wallet, launchpad, address, topic0, all; candles use the /stream/candles grammar after "candles:", at most ${MAX_SERIES} series); resume = comma list of topic:v1.<ns>.<seq> (each topic must be selected; candles cannot resume); a Last-Event-ID header without resume is not honoured and the stream says so in band. min_leg_magnitude only with an amm_events selector. Frames: connected {topics, ringFrames, lastEventIdHonoured, connectionId, candles}, stalled/resumed per topic, data {topic, sequence, block, data}, candle snapshot/update/close, selection_changed. Candle selectors can be mutated while the connection runs: GET /stream/subscribe?connection=<connectionId>&select=candles:<selector>,… (same key; candles:none alone empties the selection) replaces the connection's candle selection and answers JSON {anchor, data: {connectionId, revision, added, removed, unchanged, candles}}; the stream then receives selection_changed {topic: "candles", connectionId, revision, added, removed, unchanged, selection} followed by the snapshot (previous and forming bucket) of each added series; removed series send nothing more; unchanged series and other topics continue untouched. Series are matched by selector text, case-insensitive. Mutation errors: 404 not_found (unknown or closed connection), 403 connection_not_owned (another key), 400 bad_request (a non-candle selector, bad grammar, resume or min_leg_magnitude with connection).`,
  query: {
    select: Type.String({ minLength: 1, maxLength: 65_536 }),
    min_leg_magnitude: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$' })),
    resume: Type.Optional(Type.String({ maxLength: 8192 })),
    connection: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{32}$',
        description:
          'connectionId of an open connection (from its connected frame): mutate its candle selection',
      }),
    ),
  },
  response: SseEvents(SUBSCRIBE_EVENTS),
  alternates: [
    {
      status: 200,
      description: 'with connection=: the candle-selection mutation’s answer (JSON)',
      mediaType: 'application/json',
      schema: Single(
        Obj({
          connectionId: Type.String({ pattern: '^[0-9a-f]{32}$' }),
          revision: Type.Integer({ minimum: 1, description: 'mutations applied so far' }),
          added: Type.Array(Type.String(), { description: 'series added (their snapshots follow in band)' }),
          removed: Type.Array(Type.String(), { description: 'series removed' }),
          unchanged: Type.Array(Type.String(), { description: 'series continuing untouched' }),
          candles: Type.Array(Type.String(), { description: 'the whole candle selection now' }),
        }),
      ),
    },
  ],
  mediaType: 'text/event-stream',
  errors: [
    'bad_request',
    'not_found',
    'quote_not_admitted',
    'rate_limited',
    'not_ready',
    'connection_not_owned',
  ],
  anchored: true,
  handler(ctx) {
    if (ctx.query.connection !== undefined) return mutateCandles(ctx);
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
    const series = candleSelectors.length ? parseCandleSelect(ctx.view, candleSelectors.join(',')) : [];
    const stalledOf = (t: Topic): string | null => {
      const p = projectionsOf(ctx.chain).find((x) => x.name === DEPENDS[t]);
      return p && p.status !== 'ready' ? `${p.name}_${p.status}${p.reason ? `:${p.reason}` : ''}` : null;
    };
    // Every multiplexed connection gets an id, so candle series can be added later even when none
    // was selected at first.
    const connections = ctx.chain.streams.connections;
    const connectionId = connections.newId();
    const owner = ctx.principal?.name ?? 'anonymous';
    const store = ctx.chain.store;
    const hub = ctx.chain.streams.hub;
    return sseReply(() =>
      ctx.chain.streams.openMany(streamRequestOf(ctx), topics, resume, {
        lastEventIdIgnored: !!ctx.header('last-event-id') && resume.size === 0,
        stalledOf,
        connected: () => ({
          connectionId,
          candles: series
            .filter((s, i) => series.findIndex((x) => seriesId(x) === seriesId(s)) === i)
            .map((s) => s.selector),
        }),
        onOpen: (conn) => {
          const run = runCandles(store, conn, series);
          const unregister = connections.register(connectionId, owner, run);
          const remove = hub.add({
            topics: new Set(),
            deliver() {},
            onCommit: run.onCommit,
          });
          return () => {
            unregister();
            remove();
            run.stop();
          };
        },
      }),
    );
  },
});
