/**
 * GET /v1/health — liveness of the scanner and what it reads: the chains of the attached index
 * and each one's committed head (no key). A scanner with no index attached lists no chains.
 */
import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoint.js';

export const HealthResponse = Type.Object({
  status: Type.Literal('ok'),
  chains: Type.Array(
    Type.Object({
      name: Type.String(),
      chainId: Type.Integer(),
      role: Type.Union([Type.Literal('main'), Type.Literal('rh'), Type.Literal('other')]),
      head: Type.Union([
        Type.Object({
          block: Type.Integer({ minimum: 0 }),
          hash: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
        }),
        Type.Null(),
      ]),
    }),
    { description: 'chains of the attached index; empty when none is attached' },
  ),
});

export const health = defineEndpoint({
  id: 'health',
  method: 'GET',
  path: '/v1/health',
  auth: 'public',
  tag: 'Service',
  summary: 'Liveness, and the head of each chain the scanner reads (no key)',
  response: HealthResponse,
  handler: ({ index }) => ({
    status: 'ok' as const,
    chains: index.chains().map((c) => {
      const h = index.head(c.name);
      return {
        name: c.name,
        chainId: c.chainId,
        role: c.role,
        head: h ? { block: h.block, hash: h.hash } : null,
      };
    }),
  }),
});
