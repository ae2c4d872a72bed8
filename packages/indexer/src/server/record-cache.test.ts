/**
 * The record cache: a chain record's answer is answered again under each later anchor (the
 * anchor is the new one, the data the same) while its block keeps the hash it had, never to an
 * anchor below the record, is dropped once its block was reorged away, and is bounded (least
 * recently used out); through invoke, the handler does not run again for it, and runs again on the
 * new chain after a reorg of the record's block.
 */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { BlockRef, View } from '../storage/index.js';
import { compileRoute, invoke, recordCacheOf, responseCacheOf } from './invoke.js';
import { RecordCache, recordSingle } from './record-cache.js';
import { type ChainContext, defineRoute } from './route.js';

const ref = (n: number, fork = 0): BlockRef => ({
  number: n,
  hash: `0x${fork.toString(16).padStart(2, '0')}${n.toString(16).padStart(62, '0')}`,
});

describe('RecordCache', () => {
  it('answers a record under a later anchor while its block keeps its hash', () => {
    const c = new RecordCache();
    const canon = new Map([[5, ref(5).hash]]);
    const hashAt = (n: number) => canon.get(n);
    c.set('k', recordSingle(ref(8), '{"r":1}', 5), hashAt);
    expect(c.size).toBe(1);
    expect(JSON.parse(c.get('k', ref(12), hashAt)!.json)).toEqual({
      anchor: { block: 12, hash: ref(12).hash },
      data: { r: 1 },
    });
    // An anchor older than the record does not see it; a reply without `record` is not kept.
    expect(c.get('k', ref(4), hashAt)).toBeUndefined();
    c.set('plain', { json: '{}' }, hashAt);
    expect(c.get('plain', ref(20), hashAt)).toBeUndefined();
    expect(c.hits).toBe(1);
    // Block 5 reorged: not answered, and dropped.
    canon.set(5, ref(5, 1).hash);
    expect(c.get('k', ref(13), hashAt)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('is bounded: the least recently used record goes first', () => {
    const hashAt = (n: number) => ref(n).hash;
    const c = new RecordCache(300); // each entry is 91 characters with its key
    const body = `"${'x'.repeat(88)}"`;
    for (const k of ['a', 'b', 'c']) c.set(k, recordSingle(ref(10), body, 1), hashAt);
    expect(c.size).toBe(3);
    expect(c.get('a', ref(10), hashAt)).toBeDefined(); // a is now the most recent
    c.set('d', recordSingle(ref(10), body, 1), hashAt);
    expect(['a', 'b', 'c', 'd'].filter((k) => c.get(k, ref(10), hashAt))).toEqual(['a', 'c', 'd']);
    c.set('a', recordSingle(ref(10), body, 1), hashAt); // kept again: replaced, not counted twice
    c.set('e', recordSingle(ref(10), body, 1), hashAt);
    expect(c.size).toBe(3);
  });
});

describe('invoke with the record cache', () => {
  /** A chain at head `s.n` on fork `s.fork` (a new store write at each view). */
  function chainAt(s: { n: number; fork: number }): ChainContext {
    let seq = 0;
    const view = (): View =>
      ({
        head: ref(s.n, s.fork),
        seq: ++seq,
        consistent: () => true,
        close() {},
        get: (_t: unknown, n: number) => (n <= s.n ? ref(n, n >= 5 ? s.fork : 0).hash : undefined),
      }) as unknown as View;
    return {
      name: 'test',
      chainId: 1,
      store: { view },
      ingest: { status: () => ({ state: 'following' }) },
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
        return recordSingle(ctx.anchor, `{"n":${ctx.params.n},"run":${runs}}`, Number(ctx.params.n));
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

  it('runs the handler once across blocks, and again when the record block was reorged', () => {
    runs = 0;
    const s = { n: 6, fork: 0 };
    const chain = chainAt(s);
    expect(get(chain, 5)).toEqual({ anchor: { block: 6, hash: ref(6).hash }, data: { n: 5, run: 1 } });
    s.n = 7;
    expect(get(chain, 5)).toEqual({ anchor: { block: 7, hash: ref(7).hash }, data: { n: 5, run: 1 } });
    s.n = 8;
    get(chain, 5);
    expect(runs).toBe(1);
    expect(responseCacheOf(chain).recordHits).toBe(2);
    expect(recordCacheOf(chain).size).toBe(1);
    // A reorg from block 5 up: the record's block has a new hash, the handler answers again.
    s.fork = 1;
    s.n = 9;
    expect(get(chain, 5)).toEqual({ anchor: { block: 9, hash: ref(9, 1).hash }, data: { n: 5, run: 2 } });
    s.n = 10;
    expect(get(chain, 5).data).toEqual({ n: 5, run: 2 });
    expect(runs).toBe(2);
  });
});
