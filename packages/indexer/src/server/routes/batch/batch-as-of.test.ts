/**
 * POST /batch with items that name a block, over a real RocksDB store (blocks committed as ingest
 * lays them out, one reorged): each item naming `atBlock` / `atBlockHash` on a route that takes
 * them is answered at that block, its own anchor in its body, from the batch's one snapshot; the
 * batch's anchor stays that snapshot's head; every as-of refusal fails its item alone, typed as
 * the route answers it alone (410 history_pruned, 409 block_not_indexed, 409 block_not_canonical,
 * 400 on a route that does not take the parameters or given both).
 */
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HASH_TO_NUMBER } from '../../../schema/tables/chain.js';
import type { Store } from '../../../storage/index.js';
import { tempStores } from '../../../storage/temp-stores.fixture.js';
import type { Principal } from '../../auth.js';
import { type CompiledRoute, compileRoute, invoke } from '../../invoke.js';
import { anchorJson, type ChainContext, defineRoute, type Reply, type Route } from '../../route.js';
import { batchRoute } from './batch.js';

type Hex = `0x${string}`;
const h = (n: number, tag = 'b') => `0x${tag.repeat(2)}${n.toString(16).padStart(62, '0')}` as Hex;

const stores = tempStores();
let store: Store;

beforeAll(async () => {
  store = await stores.open('batch-as-of-', { unfinalisedWindow: 8 });
  for (let n = 0; n <= 10; n++)
    store.commitBlock({ number: n, hash: h(n) }, (b) => b.insert(HASH_TO_NUMBER, [h(n)], n));
  // Block 10 reorged: its first hash is no longer canonical.
  store.rollbackHead();
  store.commitBlock({ number: 10, hash: h(10, 'e') }, (b) => b.insert(HASH_TO_NUMBER, [h(10, 'e')], 10));
  await store.settled();
});

afterAll(stores.closeAll);

/** A batchable route answering its anchor (the block it read at); `asOf` as given. */
const anchorRoute = (id: string, asOf: boolean): Route =>
  defineRoute({
    id,
    method: 'GET',
    path: `/${id}`,
    scope: 'read',
    group: 'Test',
    summary: id,
    response: Type.Object({}),
    errors: [],
    batchable: true,
    anchored: true,
    asOf,
    handler: (ctx) => ({ json: `{"anchor":${anchorJson(ctx.anchor)}}` }),
  });

const principal: Principal = {
  name: 'k',
  scopes: new Set(['read']),
  rateLimits: {},
  maxStreams: 0,
};

/** Runs one batch on the store with HISTORY_RETENTION `retention` (null: all). */
function batch(requests: unknown[], retention: number | null = null) {
  const routes = [batchRoute, anchorRoute('at', true), anchorRoute('head', false)];
  const compiled = new Map<Route, CompiledRoute>(routes.map((r) => [r, compileRoute(r)]));
  const chain = {
    name: 'test',
    chainId: 1,
    store,
    historyRetention: retention,
    ingest: { status: () => ({ state: 'following' }) },
    registry: { status: () => undefined },
  } as unknown as ChainContext;
  const out = invoke(compiled.get(batchRoute)!, {
    chain,
    allChains: new Map([['test', chain]]),
    principal,
    rawParams: {},
    rawQuery: {},
    headers: {},
    body: { requests },
    services: { compiled },
  }) as Reply;
  return JSON.parse(out.json) as {
    anchor: { block: number; hash: string };
    results: Array<{
      id: number;
      status: number;
      body?: { anchor: { block: number; hash: string } };
      error?: Record<string, unknown>;
    }>;
  };
}

describe('batch items as of a block', () => {
  it('an item naming a block is answered there; the batch and items naming none at the head', () => {
    const r = batch([
      { route: 'at', params: { atBlock: 3 } },
      { route: '/at', params: { atBlockHash: h(7) } },
      { route: 'at' },
      { route: 'head' },
      { route: 'at', params: { atBlock: 10 } },
    ]);
    const head = { block: 10, hash: h(10, 'e') };
    expect(r.anchor).toEqual(head);
    expect(r.results.map((x) => [x.status, x.body?.anchor])).toEqual([
      [200, { block: 3, hash: h(3) }],
      [200, { block: 7, hash: h(7) }],
      [200, head],
      [200, head],
      [200, head],
    ]);
  });

  it('each refusal fails its item alone, typed as the route answers it alone', () => {
    const r = batch(
      [
        { route: 'at', params: { atBlock: 11 } },
        { route: 'at', params: { atBlockHash: h(10) } },
        { route: 'at', params: { atBlock: 5 } },
        { route: 'head', params: { atBlock: 8 } },
        { route: 'at', params: { atBlock: 8, atBlockHash: h(8) } },
        { route: 'at', params: { atBlock: 6 } },
      ],
      4,
    );
    expect(r.anchor.block).toBe(10);
    const codes = r.results.map((x) => [x.status, x.error?.error ?? null]);
    expect(codes).toEqual([
      [409, 'block_not_indexed'],
      [409, 'block_not_canonical'],
      [410, 'history_pruned'],
      [400, 'bad_request'],
      [400, 'bad_request'],
      [200, null],
    ]);
    expect(r.results[0].error).toMatchObject({ requestedBlock: 11, headBlock: 10 });
    expect(r.results[2].error).toMatchObject({ requestedBlock: 5, oldestRetainedBlock: 6, headBlock: 10 });
    expect(r.results[3].error?.detail).toMatch(/does not answer as of a block/);
    expect(r.results[5].body?.anchor).toEqual({ block: 6, hash: h(6) });
  });
});
