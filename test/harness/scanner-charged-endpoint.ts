/**
 * A credit-consuming endpoint for testing the generic credit mechanism before the scan endpoints
 * exist (they need the index; phase 2). It is written against the same endpoint-definition API
 * a scan endpoint uses, needs no index data, and is registered on a real service only by tests
 * (test/e2e/scanner-credits.test.ts in-process, and the crash test's child process).
 *
 * POST /v1/test/charged {subject, depth: quick|deep|max, fail?, delayMs?}: costs quick 1, deep 2,
 * max 4 (the wallet-scan price list); the cache key is the lower-cased subject and the depth; the
 * answer carries a per-process answer number so a test can tell a cached answer from a recomputed
 * one; `fail` makes the handler throw (`error`: an unexpected Error → 500, `not_found`: a typed
 * 404), `delayMs` makes it asynchronous.
 */

import { defineEndpoint, ScannerError } from '@chain-indexer/scanner';
import { Type } from '@sinclair/typebox';

const PRICE = { quick: 1, deep: 2, max: 4 } as const;
let answers = 0;

export const chargedTestEndpoint = defineEndpoint({
  id: 'test.charged',
  method: 'POST',
  path: '/v1/test/charged',
  auth: 'key',
  tag: 'Test',
  summary: 'A credit-consuming endpoint that needs no index data (tests only)',
  body: Type.Object(
    {
      subject: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
      depth: Type.Union([Type.Literal('quick'), Type.Literal('deep'), Type.Literal('max')]),
      fail: Type.Optional(Type.Union([Type.Literal('error'), Type.Literal('not_found')])),
      delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000 })),
    },
    { additionalProperties: false },
  ),
  response: Type.Object({
    subject: Type.String(),
    depth: Type.String(),
    answer: Type.Integer({ description: 'per-process answer number' }),
    computedAt: Type.Integer(),
  }),
  errors: ['NOT_FOUND'],
  credits: {
    cost: ({ body }) => PRICE[body.depth],
    cacheKey: ({ body }) => `${body.subject.toLowerCase()}|${body.depth}`,
    rule: 'quick 1, deep 2, max 4',
  },
  handler: ({ body, now }) => {
    const compute = () => {
      if (body.fail === 'error') throw new Error('scan failed half-way (test)');
      if (body.fail === 'not_found') throw new ScannerError('NOT_FOUND', 'no such subject (test)');
      return { subject: body.subject.toLowerCase(), depth: body.depth, answer: ++answers, computedAt: now };
    };
    if (body.delayMs === undefined) return compute();
    return new Promise((resolve, reject) =>
      setTimeout(() => {
        try {
          resolve(compute());
        } catch (err) {
          reject(err);
        }
      }, body.delayMs),
    );
  },
});
