/**
 * The as-of resolver over a real RocksDB store (no mock of the binding): blocks committed as
 * ingest lays them out (canonical hash, hash → number), one rolled back as a reorg does, then the
 * parameters resolved through views: a number and a hash to the same anchor, and each refusal
 * (above the head, below the retained range, a reorged or unknown hash, both parameters); the
 * contract lists the routes that take the parameters (token balance and holders; token detail,
 * launch, overview, stats, price, mcap, ath/atl, liquidity, venue, traders, pools aggregate and
 * ranked; pool detail, ath/atl, liquidity, stats and ticks; wallet assets, portfolio, overview,
 * cohorts, positions and PnL; the screener and the named rankings), and every other route refuses
 * them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_OLDEST_META } from '../schema/history.js';
import { HASH_TO_NUMBER } from '../schema/tables/chain.js';
import { inView, type Store } from '../storage/index.js';
import { tempStores } from '../storage/temp-stores.fixture.js';
import { checkCursorAsOf, resolveAsOf, retainedRange } from './as-of.js';
import { ApiError } from './errors.js';
import { asOfOf, buildOpenApi, declaredErrors } from './openapi.js';
import { routes } from './routes/index.js';
import { compileObject } from './validate.js';

type Hex = `0x${string}`;
const h = (n: number, tag = 'b') => `0x${tag.repeat(2)}${n.toString(16).padStart(62, '0')}` as Hex;

const stores = tempStores();
let store: Store;

/** Commits block n with hash `hash` as ingest does (canonical row, hash → number). */
const commit = (n: number, hash: Hex) =>
  store.commitBlock({ number: n, hash }, (b) => b.insert(HASH_TO_NUMBER, [hash], n));

beforeAll(async () => {
  store = await stores.open('as-of-', { unfinalisedWindow: 8 });
  for (let n = 0; n <= 10; n++) commit(n, h(n));
  // A reorg of block 10: its hash is dropped, another block 10 takes its place.
  store.rollbackHead();
  commit(10, h(10, 'e'));
  await store.settled();
});

afterAll(stores.closeAll);

/** Runs `f` on a fresh view and closes it. */
function withView<T>(f: (v: ReturnType<Store['view']>) => T): T {
  return inView(store, f);
}

/** Resolves `q` on a fresh view; the refusal's code and extra fields, or the anchor. */
function resolve(q: { atBlock?: number; atBlockHash?: string }, retention: number | null = null) {
  try {
    return { anchor: withView((view) => resolveAsOf(view, q, retention)) };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { code: err.code, status: err.status, body: err.toJSON() as Record<string, unknown> };
  }
}

describe('resolveAsOf', () => {
  it('names no block: the head (null)', () => {
    expect(resolve({})).toEqual({ anchor: null });
  });

  it('a number resolves to its canonical hash, a hash to its number: the same anchor', () => {
    expect(resolve({ atBlock: 4 })).toEqual({ anchor: { number: 4, hash: h(4) } });
    expect(resolve({ atBlockHash: h(4) })).toEqual({ anchor: { number: 4, hash: h(4) } });
    expect(resolve({ atBlockHash: h(4).toUpperCase().replace('0X', '0x') })).toEqual({
      anchor: { number: 4, hash: h(4) },
    });
    // The head itself, after the reorg: its new hash.
    expect(resolve({ atBlock: 10 })).toEqual({ anchor: { number: 10, hash: h(10, 'e') } });
  });

  it('above the committed head: 409 block_not_indexed naming the head', () => {
    const r = resolve({ atBlock: 11 });
    expect(r).toMatchObject({ code: 'block_not_indexed', status: 409 });
    expect(r.body).toMatchObject({ requestedBlock: 11, headBlock: 10 });
  });

  it('a reorged or unknown hash: 409 block_not_canonical', () => {
    expect(resolve({ atBlockHash: h(10) })).toMatchObject({ code: 'block_not_canonical', status: 409 });
    expect(resolve({ atBlockHash: h(99, 'f') })).toMatchObject({ code: 'block_not_canonical', status: 409 });
  });

  it('below the retained range: 410 history_pruned with the oldest retained block', () => {
    const r = resolve({ atBlock: 6 }, 3);
    expect(r).toMatchObject({ code: 'history_pruned', status: 410 });
    expect(r.body).toMatchObject({ requestedBlock: 6, oldestRetainedBlock: 7, headBlock: 10 });
    expect(resolve({ atBlock: 7 }, 3)).toEqual({ anchor: { number: 7, hash: h(7) } });
    // A hash of a canonical block below the range is refused the same way.
    expect(resolve({ atBlockHash: h(2) }, 3)).toMatchObject({ code: 'history_pruned', status: 410 });
    // `all` keeps every indexed block.
    expect(resolve({ atBlock: 0 })).toEqual({ anchor: { number: 0, hash: h(0) } });
  });

  it('both parameters: 400 bad_request', () => {
    expect(resolve({ atBlock: 4, atBlockHash: h(4) })).toMatchObject({ code: 'bad_request', status: 400 });
  });
});

describe('retainedRange', () => {
  it('is [first indexed block, head] for all, [head − retention, head] for a number', () => {
    expect(withView((v) => retainedRange(v, null))).toEqual({ oldest: 0, head: 10 });
    expect(withView((v) => retainedRange(v, 3))).toEqual({ oldest: 7, head: 10 });
    expect(withView((v) => retainedRange(v, 1000))).toEqual({ oldest: 0, head: 10 });
  });

  it("is raised to the history pruner's mark (META history:oldest), whatever the retention", () => {
    store.putMeta(HISTORY_OLDEST_META, 5);
    try {
      expect(withView((v) => retainedRange(v, null))).toEqual({ oldest: 5, head: 10 });
      expect(withView((v) => retainedRange(v, 3))).toEqual({ oldest: 7, head: 10 });
      expect(withView((v) => retainedRange(v, 1000))).toEqual({ oldest: 5, head: 10 });
      expect(resolve({ atBlock: 4 }, 1000)).toMatchObject({
        code: 'history_pruned',
        body: { oldestRetainedBlock: 5, requestedBlock: 4 },
      });
    } finally {
      store.deleteMeta(HISTORY_OLDEST_META);
    }
  });
});

describe('checkCursorAsOf', () => {
  const at = { number: 4, hash: h(4) };
  const check = (asked: { number: number; hash: Hex } | null, retention: number | null) =>
    withView((v) => checkCursorAsOf(v, asked, at, retention));

  it('a cursor keeps its anchor: the same block beside it passes, another is refused', () => {
    expect(() => check(null, null)).not.toThrow();
    expect(() => check({ ...at }, null)).not.toThrow();
    expect(() => check({ number: 5, hash: h(5) }, null)).toThrow(/minted at block 4/);
  });

  it('an anchor older than the retained history: 409 cursor_history_pruned', () => {
    expect(() => check(null, 6)).not.toThrow(); // oldest retained: 10 − 6 = 4
    try {
      check(null, 5);
      expect.unreachable('a cursor at 4 with 5 blocks retained below head 10');
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('cursor_history_pruned');
      expect((err as ApiError).toJSON()).toMatchObject({ anchorBlock: 4, oldestRetainedBlock: 5 });
    }
  });
});

describe('the contract of as-of reads', () => {
  const AS_OF = [
    'tokens.balance',
    'tokens.holders',
    'tokens.topHolders',
    'tokens.detail',
    'tokens.launch',
    'tokens.overview',
    'tokens.stats',
    'tokens.mcap',
    'tokens.ath',
    'tokens.atl',
    'tokens.liquidity',
    'tokens.poolsAggregate',
    'tokens.poolsRanked',
    'tokens.venue',
    'tokens.price',
    'tokens.traders',
    'pools.detail',
    'pools.ath',
    'pools.atl',
    'pools.liquidity',
    'pools.stats',
    'pools.v4Detail',
    'pools.v4Liquidity',
    'pools.v4Stats',
    'pools.ticks',
    'pools.v4Ticks',
    'wallets.assets',
    'wallets.cohorts',
    'wallets.overview',
    'wallets.portfolio',
    'wallets.positions',
    'wallets.pnl',
    'wallets.pnlToken',
    'wallets.pnlDaily',
    'screener.screener',
    'screener.ranking',
  ];

  it('the routes that take atBlock declare it, its refusals and say so; every other says why not', () => {
    const doc = buildOpenApi(routes, 'test') as {
      paths: Record<string, Record<string, { operationId: string; parameters: Array<{ name: string }> }>>;
    };
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
    const byId = new Map(ops.map((o) => [o.operationId, o as unknown as Record<string, unknown>]));
    expect(
      routes
        .filter((r) => r.asOf)
        .map((r) => r.id)
        .sort(),
    ).toEqual([...AS_OF].sort());
    for (const r of routes) {
      const op = byId.get(r.id);
      const names = ((op?.parameters ?? []) as Array<{ name: string }>).map((p) => p.name);
      if (AS_OF.includes(r.id)) {
        expect(op?.['x-as-of'], r.id).toEqual({ supported: true });
        expect(names, r.id).toEqual(expect.arrayContaining(['atBlock', 'atBlockHash']));
        const codes = declaredErrors(r);
        const cursor = names.includes('cursor') ? ['cursor_history_pruned'] : [];
        const want = ['history_pruned', 'block_not_indexed', 'block_not_canonical', ...cursor];
        expect(
          want.filter((c) => !codes.has(c as never)),
          r.id,
        ).toEqual([]);
      } else {
        expect(asOfOf(r), r.id).toMatchObject({ supported: false, reason: expect.any(String) });
        expect(names, r.id).not.toContain('atBlock');
      }
    }
  });

  it('a route that does not answer as of a block refuses the parameters with 400, naming them', () => {
    const q = compileObject({}, 'query');
    for (const name of ['atBlock', 'atBlockHash'])
      expect(() => q.parse({ [name]: '5' })).toThrow(/does not answer as of a block/);
    expect(() => q.parse({ other: '5' })).toThrow(/unknown query parameter "other"/);
  });
});
