/**
 * The query layer reads each row once per request: the token row of /tokens/{address} and of
 * /tokens/{address}/overview is read by the query and handed to both domains (it was read twice,
 * once by the tokens domain's detail and once by the markets domain's market), and no other point
 * read repeats. Counted through an instrumented view over a store holding a recorded devnet block
 * (ten Uniswap V2 pairs created and first minted) with the tokens and markets projections applied.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../test/fixtures/index.js';
import { createMarketsProjection } from '../markets/build.js';
import { createMarketsReader } from '../markets/index.js';
import { HEADER } from '../schema/tables/chain.js';
import { createStore, type Store, type View } from '../storage/index.js';
import { createTokensProjection } from '../tokens/build.js';
import { createTokensReader } from '../tokens/index.js';
import { shapeBlock } from '../workers/decode/fetch-blocks.js';
import { tokenDetail } from './token-detail.js';
import { tokenOverview } from './token-overview.js';

const SET = 'devnet/v2-first-mint';
/** The devnet's V2 factory (its PairCreated logs register the pools). */
const V2_FACTORY = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512';
/** A token paired with five others in the block, and one of its quotes. */
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const QUOTE = '0xb7f8bc63bbcad18155201308c8f3540b07f84f5e';

let dir: string;
let store: Store;
let at: number;
const tokens = createTokensReader({ launchpads: new Map() });
const markets = createMarketsReader({ usdStablecoins: [], tokens });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'queries-'));
  store = await createStore({ dataDir: dir, unfinalisedWindow: 8 });
  const read = (f: string) => JSON.parse(readFileSync(join(FIXTURES_DIR, SET, f), 'utf8'));
  const d = shapeBlock(read('block.json'), read('receipts.json'));
  const t = createTokensProjection({ launchpads: new Map() });
  const config = { v2Factories: [V2_FACTORY], v3Factories: [], v4Managers: [], usdStablecoins: [] };
  const m = createMarketsProjection({ config, launchpads: new Map() });
  store.commitBlock({ number: d.number, hash: d.hash }, (batch) => {
    // The header (its timestamp anchors the market windows), as ingest writes it.
    batch.insert(HEADER, [d.number], d.header);
    t.apply(batch, d);
    m.apply(batch, d);
  });
  at = d.number;
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `view` counting the point reads of each (table, key): what a request read, row by row. */
function counting(view: View): { view: View; reads: Map<string, number> } {
  const reads = new Map<string, number>();
  const count = (table: string, key: unknown[]) => {
    const k = `${table}(${key.map(String).join(', ')})`;
    reads.set(k, (reads.get(k) ?? 0) + 1);
  };
  return {
    reads,
    // The view's other methods through its prototype (a view's methods live on its class).
    view: Object.assign(Object.create(view) as View, {
      get: ((t, ...key) => {
        count(t.name, key);
        return view.get(t, ...key);
      }) as View['get'],
      has: ((t, ...key) => {
        count(t.name, key);
        return view.has(t, ...key);
      }) as View['has'],
      getMany: ((t, keys) => {
        for (const k of keys) count(t.name, k as unknown[]);
        return view.getMany(t, keys);
      }) as View['getMany'],
    }),
  };
}

const readTwice = (reads: Map<string, number>) => [...reads].filter(([, n]) => n > 1).map(([k]) => k);

describe('queries read each row once per request', () => {
  const once = (reads: Map<string, number>) => {
    expect(reads.get(`tokens.token(${TOKEN})`)).toBe(1);
    expect(readTwice(reads)).toEqual([]);
  };

  it('/tokens/{address}: the token row once, no point read repeated', () => {
    const cases = [
      { quote: QUOTE, ready: true, reason: null },
      { quote: undefined, ready: true, reason: 'quote_ambiguous' },
      { quote: QUOTE, ready: false, reason: 'projection_unavailable:markets' },
    ];
    for (const c of cases) {
      const v = counting(store.view());
      const body = tokenDetail({ tokens, markets }, v.view, TOKEN, c.quote, at, c.ready);
      expect(body.address).toBe(TOKEN);
      expect(body.statsReason).toBe(c.reason);
      if (c.reason === null) expect(body.stats).not.toBeNull();
      once(v.reads);
    }
  });

  it('/tokens/{address}/overview: the token row once, no point read repeated', () => {
    for (const quote of [QUOTE, undefined]) {
      const v = counting(store.view());
      const o = tokenOverview({ tokens, markets }, v.view, TOKEN, quote, at);
      expect(o.token.address).toBe(TOKEN);
      expect(o.market.reason).toBe(quote ? null : 'quote_ambiguous');
      if (quote) expect(o.pools.length).toBeGreaterThan(0);
      expect(o.holderCount.count).toBeGreaterThan(0);
      once(v.reads);
    }
  });

  it('not_found when the token is not indexed', () => {
    const v = counting(store.view());
    const unknown = `0x${'77'.repeat(20)}`;
    expect(() => tokenDetail({ tokens, markets }, v.view, unknown, undefined, at, true)).toThrow(
      /not indexed/,
    );
  });
});
