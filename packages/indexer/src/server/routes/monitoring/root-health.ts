import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.js';
import { Obj } from '../../schemas.js';

/** GET /health/live: liveness probe (public). The process answers, nothing more. */
export const liveRoute = defineRoute({
  id: 'monitoring.live',
  method: 'GET',
  path: '/health/live',
  root: true,
  scope: null,
  group: 'Monitoring',
  summary: 'Liveness probe: 200 while the process serves HTTP.',
  response: Obj({ live: Type.Literal(true, { description: 'always true: the process answers' }) }),
  errors: [],
  handler: () => ({ json: '{"live":true}' }),
});

/**
 * GET /health/ready: readiness as status code plus a boolean, no operator detail (public).
 * Ready when every served chain has an indexed head and its ingest is not halted.
 */
export const readyRoute = defineRoute({
  id: 'monitoring.ready',
  method: 'GET',
  path: '/health/ready',
  root: true,
  scope: null,
  group: 'Monitoring',
  summary:
    'Readiness: 200 {ready:true} when every served chain has an indexed head and a running follower; 503 {ready:false} otherwise (one halted chain makes the process not ready); no operator detail.',
  response: Obj({ ready: Type.Literal(true) }),
  alternates: [
    {
      status: 503,
      description: 'not ready: some served chain has no indexed head yet or its ingest halted',
      schema: Obj({ ready: Type.Literal(false) }),
    },
  ],
  errors: [],
  handler(ctx) {
    const ready = [...ctx.allChains.values()].every(
      (c) => c.store.head() !== null && c.ingest.status().state !== 'halted',
    );
    return ready ? { json: '{"ready":true}' } : { status: 503, json: '{"ready":false}' };
  },
});
