import { Type } from '@sinclair/typebox';
import { parseCandleSelect, runCandles } from '../../../streams/candles.js';
import { type StreamSink, whenReady } from '../../../streams/sink.js';
import { SseEvents } from '../../openapi.js';
import { defineRoute } from '../../route.js';
import { sseReply, streamRequestOf } from './common.js';
import { CANDLE_EVENTS } from './frames.js';

/** GET /stream/candles?select=: live candles (snapshot, update ≤ 1/250 ms per series, close final). */
export const candleStreamRoute = defineRoute({
  id: 'streams.candles',
  method: 'GET',
  path: '/stream/candles',
  scope: 'stream',
  group: 'Streams',
  summary:
    'Live candles (SSE): select = comma list of token:0x<token>:<frame>[:0x<quote>] or pool:<id>:<frame> (id = pool address or V4 0x<manager>:0x<poolId>). On connect a snapshot of the previous and forming bucket per series; update frames at most one per 250 ms per series; close with final: true when the head leaves the bucket. Payload: the REST candle row of the series (as /pools/{address}/ohlcv or /tokens/{address}/candles). No resume cursor.',
  query: { select: Type.String({ minLength: 1, maxLength: 8192 }) },
  response: SseEvents(CANDLE_EVENTS),
  mediaType: 'text/event-stream',
  requires: ['markets'],
  errors: [
    'bad_request',
    'not_found',
    'quote_not_admitted',
    'rate_limited',
    'projection_unavailable',
    'not_ready',
  ],
  anchored: true,
  handler(ctx) {
    const series = parseCandleSelect(ctx.view, ctx.query.select);
    const streams = ctx.chain.streams;
    const request = streamRequestOf(ctx);
    const store = ctx.chain.store;
    // The slot is reserved in the reply's effect: once, on the run whose reads stand (invoke.ts).
    return sseReply(() =>
      whenReady(streams.reserve(request), (release) => {
        const start = (conn: StreamSink) => {
          conn.onClose(release);
          const run = runCandles(store, conn, series);
          const remove = streams.hub.add({ topics: new Set(), deliver() {}, onCommit: run.onCommit });
          conn.onClose(() => {
            remove();
            run.stop();
          });
        };
        return Object.assign(start, { release });
      }),
    );
  },
});
