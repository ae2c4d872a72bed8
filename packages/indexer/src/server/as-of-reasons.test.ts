/**
 * Every route either takes atBlock / atBlockHash or says why not, in the contract and in the 400
 * it answers: `x-as-of` on every operation of the published document is `{supported: true}`
 * exactly for the routes declaring `asOf` (with both parameters) and otherwise `{supported:
 * false, reason}` with a non-empty reason; the table of reasons names only registered routes.
 */
import { describe, expect, it } from 'vitest';
import { asOfReason, asOfSupport, NOT_STATE, NOT_VERSIONED_YET } from './as-of-reasons.js';
import { buildOpenApi } from './openapi.js';
import { routes } from './routes/index.js';

type Op = { operationId: string; 'x-as-of'?: unknown; parameters?: Array<{ name: string; in: string }> };

describe('x-as-of of every route', () => {
  const doc = buildOpenApi(routes, 'test') as { paths: Record<string, Record<string, Op>> };
  const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
  const byId = new Map(ops.map((o) => [o.operationId, o]));

  it('every route of the list is an operation, and every operation declares x-as-of', () => {
    expect(routes.filter((r) => !byId.has(r.id)).map((r) => r.id)).toEqual([]);
    expect(ops.filter((o) => o['x-as-of'] === undefined).map((o) => o.operationId)).toEqual([]);
    for (const o of ops) {
      const x = o['x-as-of'] as { supported: boolean; reason?: string };
      expect(x.supported || (x.reason?.trim().length ?? 0) > 10, o.operationId).toBe(true);
    }
  });

  it('supported exactly where the route declares asOf (with both parameters); else a non-empty reason', () => {
    for (const r of routes) {
      const op = byId.get(r.id)!;
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const declared = op['x-as-of'] as { supported: boolean; reason?: string };
      expect(declared, r.id).toEqual(asOfSupport(r));
      if (r.asOf) {
        expect(declared, r.id).toEqual({ supported: true });
        expect(query, r.id).toEqual(expect.arrayContaining(['atBlock', 'atBlockHash']));
      } else {
        expect(declared.supported, r.id).toBe(false);
        expect(typeof declared.reason === 'string' && declared.reason.trim().length > 10, r.id).toBe(true);
        expect(query, r.id).not.toContain('atBlock');
        expect(query, r.id).not.toContain('atBlockHash');
      }
    }
  });

  it('the table of reasons names registered routes only', () => {
    const ids = new Set(routes.map((r) => r.id));
    expect(Object.keys(NOT_STATE).filter((id) => !ids.has(id))).toEqual([]);
    for (const [id, why] of Object.entries(NOT_STATE)) expect(why.trim().length, id).toBeGreaterThan(10);
  });

  it('no route falls under the default "not block-versioned yet": each takes the parameters or names its own reason', () => {
    expect(routes.filter((r) => asOfReason(r) === NOT_VERSIONED_YET).map((r) => r.id)).toEqual([]);
  });

  it('kinds settle the reason first: live RPC, streams, monitoring, batch', () => {
    const of = (id: string) => asOfReason(routes.find((r) => r.id === id)!);
    expect(of('rpc.head')).toMatch(/live RPC/);
    expect(of('streams.candles')).toMatch(/live stream/);
    expect(of('monitoring.health')).toMatch(/process or service state/);
    expect(of('batch')).toMatch(/each item of a batch/);
    expect(of('chain.block')).toMatch(/immutable chain record/);
  });
});
