/**
 * The screener bounds its candidate walk before walking: a walked currency with more pools than
 * the ceiling is refused (422 query_too_broad) after a bounded count of the index, before any pool
 * is read; with a base, the side with fewer pools is walked. Rows read are counted by the server's
 * read meter (src/server/read-meter.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../errors/index.js';
import { POOL_BY_CURRENCY } from '../schema/tables/markets.js';
import { meteredView } from '../server/read-meter.js';
import type { Store } from '../storage/index.js';
import { tempStores } from '../storage/temp-stores.fixture.js';
import type { TokensReader } from '../tokens/index.js';

const CEILING = 20;
process.env.SCREENER_POOL_CEILING = String(CEILING);
const { enumerate, POOL_WALK_CEILING } = await import('./compute.js');

const QUOTE = `0x${'ee'.repeat(20)}` as `0x${string}`;
const BASE = `0x${'bb'.repeat(20)}` as `0x${string}`;
const poolKey = (i: number) => `0x${i.toString(16).padStart(40, '0')}${'00'.repeat(32)}` as `0x${string}`;
const stores = tempStores();
let store: Store;

beforeAll(async () => {
  store = await stores.open('screener-', { unfinalisedWindow: 4 });
  const ops = [];
  // 500 pools hold the quote; the base has 3 pools, one of them against the quote.
  for (let i = 0; i < 500; i++)
    ops.push({ key: POOL_BY_CURRENCY.key(QUOTE, poolKey(i)), value: Buffer.alloc(0) });
  for (const i of [0, 1000, 1001])
    ops.push({ key: POOL_BY_CURRENCY.key(BASE, poolKey(i)), value: Buffer.alloc(0) });
  store.rocks.write(ops);
});
afterAll(stores.closeAll);

const tokens = { find: () => null, holderCount: () => ({}) } as unknown as TokensReader;
const query = (base?: string) => ({
  quote: QUOTE,
  base,
  grain: 'token_pair' as const,
  window: '5m' as const,
  sort: 'total_volume_quote' as const,
  order: 'desc' as const,
});

describe('screener candidate walk', () => {
  it('refuses a quote with more pools than the ceiling after reading at most ceiling + a few rows', () => {
    expect(POOL_WALK_CEILING).toBe(CEILING);
    const meter = { rows: 0 };
    const view = meteredView(store.view(), meter);
    let err: unknown;
    try {
      enumerate(view, tokens, query(), 100);
    } catch (e) {
      err = e;
    }
    view.close();
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('query_too_broad');
    expect((err as ServiceError).status).toBe(422);
    // The bounded count (ceiling + 1) and the anchor's timestamp lookups; never the 500 pools.
    expect(meter.rows).toBeLessThanOrEqual(CEILING + 5);
  });

  it('with a base, walks the side with fewer pools', () => {
    const meter = { rows: 0 };
    const view = meteredView(store.view(), meter);
    const out = enumerate(view, tokens, query(BASE), 100);
    view.close();
    expect(out.scanned).toBe(0); // no POOL rows: nothing registered at the anchor
    // Both bounded counts, the base’s 3 index rows with a point read each, the timestamp lookups.
    expect(meter.rows).toBeLessThanOrEqual(CEILING + 1 + 3 + 3 * 2 + 5);
  });
});
