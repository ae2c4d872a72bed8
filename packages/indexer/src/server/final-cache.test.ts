/**
 * The final-record cache: a chain record's answer is kept only once its block is below the
 * unfinalised window, is answered again under each later anchor (the anchor is the new one, the
 * data the same), never to an anchor below the record, is bounded (least recently used out), and
 * is dropped when ingest halts; through invoke, the handler does not run again for it.
 */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { BlockRef, View } from '../storage/index.js';
import { FinalCache, finalSingle } from './final-cache.js';
import { compileRoute, finalCacheOf, invoke, responseCacheOf } from './invoke.js';
import { type ChainContext, defineRoute } from './route.js';

const ref = (n: number): BlockRef => ({ number: n, hash: `0x${n.toString(16).padStart(64, '0')}` });

describe('FinalCache', () => {
  it('keeps a record only once its block is final, and answers it under a later anchor', () => {
    const c = new FinalCache(4);
    c.set('k', ref(8), finalSingle(ref(8), '{"r":1}', 5)); // 5 > 8 − 4: not final yet
    expect(c.size).toBe(0);
    c.set('k', ref(9), finalSingle(ref(9), '{"r":1}', 5)); // 5 ≤ 9 − 4
    expect(c.size).toBe(1);
    expect(JSON.parse(c.get('k', ref(12), ref(12))!.json)).toEqual({
      anchor: { block: 12, hash: ref(12).hash },
      data: { r: 1 },
    });
    // An as-of anchor older than the record does not see it; a reply without `final` is not kept.
    expect(c.get('k', ref(12), ref(4))).toBeUndefined();
    c.set('plain', ref(20), { json: '{}' });
    expect(c.get('plain', ref(20), ref(20))).toBeUndefined();
    expect(c.hits).toBe(1);
  });

  it('is bounded: the least recently used record goes first; clear drops all', () => {
    const data = 'x'.repeat(90);
    const c = new FinalCache(0, 300); // each entry is 91 characters with its key
    for (const k of ['a', 'b', 'c']) c.set(k, ref(10), finalSingle(ref(10), `"${data.slice(2)}"`, 1));
    expect(c.size).toBe(3);
    expect(c.get('a', ref(10), ref(10))).toBeDefined(); // a is now the most recent
    c.set('d', ref(10), finalSingle(ref(10), `"${data.slice(2)}"`, 1));
    expect(['a', 'b', 'c', 'd'].filter((k) => c.get(k, ref(10), ref(10)))).toEqual(['a', 'c', 'd']);
    c.clear();
    expect(c.size).toBe(0);
  });
});

describe('invoke with the final-record cache', () => {
  /** A chain whose head is `head.n` at each view, a new store write each time. */
  function chainAt(head: { n: number; halted?: boolean }): ChainContext {
    let seq = 0;
    const view = (): View =>
      ({ head: ref(head.n), seq: ++seq, consistent: () => true, close() {} }) as unknown as View;
    return {
      name: 'test',
      chainId: 1,
      store: { view, unfinalisedWindow: 4 },
      ingest: {
        status: () =>
          head.halted ? { state: 'halted', haltReason: 'reorg_past_window' } : { state: 'following' },
      },
      registry: { status: () => undefined },
    } as unknown as ChainContext;
  }
  let runs = 0;
  const route = compileRoute(
    defineRoute({
      id: 'test.record',
      cached: true,
      method: 'GET',
      path: '/records/{n}',
      scope: null,
      group: 'Test',
      summary: 'a record at block n',
      params: { n: Type.String() },
      response: Type.Object({}),
      errors: [],
      anchored: true,
      handler: (ctx) => {
        runs++;
        return finalSingle(ctx.anchor, `{"n":${ctx.params.n}}`, Number(ctx.params.n));
      },
    }),
  );
  const get = (chain: ChainContext, n: number) =>
    JSON.parse(
      (
        invoke(route, {
          chain,
          principal: null,
          rawParams: { n: String(n) },
          rawQuery: {},
          headers: {},
          allChains: new Map(),
        }) as { json: string }
      ).json,
    );

  it('runs the handler for a final record once across blocks, and again after a halt', () => {
    runs = 0;
    const head = { n: 6, halted: false };
    const chain = chainAt(head);
    expect(get(chain, 5)).toEqual({ anchor: { block: 6, hash: ref(6).hash }, data: { n: 5 } });
    head.n = 9; // block 5 is final now (9 − 4)
    get(chain, 5);
    expect(runs).toBe(2); // the first answer was not final: not kept
    head.n = 10;
    expect(get(chain, 5)).toEqual({ anchor: { block: 10, hash: ref(10).hash }, data: { n: 5 } });
    head.n = 11;
    get(chain, 5);
    expect(runs).toBe(2);
    expect(responseCacheOf(chain).finalHits).toBe(2);
    expect(finalCacheOf(chain).size).toBe(1);
    head.halted = true;
    expect(() => get(chain, 5)).toThrow(/halted/);
    expect(finalCacheOf(chain).size).toBe(0);
    head.halted = false;
    head.n = 12;
    get(chain, 5);
    expect(runs).toBe(3);
  });
});
