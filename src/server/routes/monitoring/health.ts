import { Type } from '@sinclair/typebox';
import { openGaps } from '../../../ingest/gaps.js';
import { projectionsOf } from '../../projections.js';
import { defineRoute } from '../../route.js';

/**
 * GET /index/v1/{chain}/health: the full readiness record — ingest state, head and lag,
 * backfill rate and ETA, projections with status, open gaps, storage and server health.
 */
export const chainHealthRoute = defineRoute({
  id: 'monitoring.health',
  method: 'GET',
  path: '/health',
  scope: 'monitoring',
  group: 'Monitoring',
  summary: 'Full readiness record: ingest state, head lag, backfill progress, projections, gaps, storage.',
  response: Type.Object({}, { additionalProperties: true }),
  errors: [],
  handler(ctx) {
    const { store, ingest } = ctx.chain;
    const s = ingest.status();
    const head = store.head();
    const gaps = openGaps(store);
    const body = {
      chain: ctx.chain.name,
      chainId: ctx.chain.chainId,
      anchor: head ? { block: head.number, hash: head.hash } : null,
      anchorReason: head ? null : 'nothing_indexed_yet',
      ingest: {
        state: s.state,
        haltReason: s.haltReason,
        nodeHead: s.nodeHead,
        lagBlocks: s.nodeHead !== null && head ? Math.max(0, s.nodeHead - head.number) : null,
        blocksPerSecond: Number(s.blocksPerSecond.toFixed(2)),
        eventsPerSecond: Number(s.eventsPerSecond.toFixed(2)),
        etaSeconds: s.etaSeconds,
        reorgs: s.reorgs,
        lastReorgDepth: s.lastReorgDepth,
        lastError: s.lastError,
        headSource: s.headSource,
        unfinalisedWindow: store.unfinalisedWindow,
      },
      projections: projectionsOf(ctx.chain),
      traces: ctx.chain.traces.status(),
      openGaps: gaps.length,
      storage: { writable: store.writeError() === null, writeError: store.writeError()?.message ?? null },
    };
    return { json: JSON.stringify(body) };
  },
});
