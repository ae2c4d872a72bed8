/**
 * The query layer reads each row once per request: the token row of /tokens/{address} and of
 * /tokens/{address}/overview is read by the query and handed to both domains (it was read twice,
 * once by the tokens domain's detail and once by the markets domain's market). Counted through an
 * instrumented view over a store holding a recorded mainnet block (17,000,000) with the tokens
 * projection applied.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../test/fixtures/index.js';
import { createMarketsReader } from '../markets/index.js';
import { createStore, type Store, type View } from '../storage/index.js';
import { createTokensProjection } from '../tokens/build.js';
import { createTokensReader } from '../tokens/index.js';
import { shapeBlock } from '../workers/decode/fetch-blocks.js';
import { tokenDetail } from './token-detail.js';
import { tokenOverview } from './token-overview.js';

const USDT = '0xdac17f958d2ee523a2206206994597c13d831ec7';
const SET = 'ethereum/17000000';

let dir: string;
let store: Store;
let at: number;
const tokens = createTokensReader({ launchpads: new Map() });
const markets = createMarketsReader({ usdStablecoins: [USDT], tokens });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'queries-'));
  store = await createStore({ dataDir: dir, unfinalisedWindow: 8 });
  const read = (f: string) => JSON.parse(readFileSync(join(FIXTURES_DIR, SET, f), 'utf8'));
  const d = shapeBlock(read('block.json'), read('receipts.json'));
  const p = createTokensProjection({ launchpads: new Map() });
  store.commitBlock({ number: d.number, hash: d.hash }, (batch) => p.apply(batch, d));
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
    view: {
      ...view,
      get(t, ...key) {
        count(t.name, key);
        return view.get(t, ...key);
      },
      has(t, ...key) {
        count(t.name, key);
        return view.has(t, ...key);
      },
      getMany(t, keys) {
        for (const k of keys) count(t.name, k as unknown[]);
        return view.getMany(t, keys);
      },
    },
  };
}

const readTwice = (reads: Map<string, number>) => [...reads].filter(([, n]) => n > 1).map(([k]) => k);

describe('queries read each row once per request', () => {
  it('/tokens/{address}: the token row once, no point read repeated (markets ready and not)', () => {
    for (const ready of [true, false]) {
      const c = counting(store.view());
      const body = tokenDetail({ tokens, markets }, c.view, USDT, undefined, at, ready);
      expect(body.address).toBe(USDT);
      expect(body.statsReason).toBe(ready ? 'no_registered_pool' : 'projection_unavailable:markets');
      expect(c.reads.get(`tokens.token(${USDT})`)).toBe(1);
      expect(readTwice(c.reads)).toEqual([]);
    }
  });

  it('/tokens/{address}/overview: the token row once (here up to the markets refusal: no pool yet)', () => {
    const c = counting(store.view());
    expect(() => tokenOverview({ tokens, markets }, c.view, USDT, undefined, at)).toThrow(
      /no registered pool/,
    );
    expect(c.reads.get(`tokens.token(${USDT})`)).toBe(1);
    expect(readTwice(c.reads)).toEqual([]);
  });

  it('not_found before the token row is shared', () => {
    const c = counting(store.view());
    const unknown = `0x${'77'.repeat(20)}`;
    expect(() => tokenDetail({ tokens, markets }, c.view, unknown, undefined, at, true)).toThrow(
      /not indexed/,
    );
  });
});
