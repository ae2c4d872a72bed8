/** Shared by the stream routes: what the streams domain needs to know about the caller. */
import { type Later, type StreamRequest, type StreamStart, whenReady } from '../../../streams/sink.js';
import type { Ctx, Reply } from '../../route.js';

/** The caller as the streams domain sees it (its key's ceiling and its Last-Event-ID). */
export const streamRequestOf = (ctx: Ctx<unknown, unknown>): StreamRequest => ({
  principal: ctx.principal,
  lastEventId: ctx.header('last-event-id'),
});

/**
 * A reply that turns the response into an SSE stream started by the domain. `open` reserves the
 * key's stream slot (and throws rate_limited at its ceiling), so it is the reply's effect: it runs
 * once, on the run whose reads stand (server/invoke.ts), never on a dropped one; with a shared
 * ceiling the reply follows once the slot is granted.
 */
export const sseReply = (open: () => Later<StreamStart>): Reply => ({
  json: '',
  effect: () => whenReady(open(), (start) => ({ json: '', sse: start, dispose: start.release })),
});
