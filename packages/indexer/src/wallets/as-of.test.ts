/**
 * Positions, PnL and cohort generations as of a block (issue AC): the wallets projection versions
 * a position per block that traded it (wallets.position_history) and a token's funding generation
 * per block that bumped it (wallets.funding_generation_history). Built on synthetic blocks — a
 * funder's native transfers, buys and sells of one pool (two trades in one block) — three ways:
 * block by block, as one history segment (no undo) followed by live blocks, and live with a
 * rollback; every read at every block answers what the store held at the end of that block.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createCohortsReader } from '../cohorts/index.js';
import { ratParse } from '../markets/index.js';
import type { BlockDelta, TxDelta } from '../schema/delta.js';
import type { PoolRow, SwapRow } from '../schema/rows/markets.js';
import type { Position } from '../schema/rows/wallets.js';
import { MINUTE_BLOCK } from '../schema/tables/markets.js';
import {
  GENERATION,
  GENERATION_HIST,
  POSITION,
  POSITION_HIST,
  positionVersionCodec,
} from '../schema/tables/wallets.js';
import { inView, type Store } from '../storage/index.js';
import { tempStores } from '../storage/temp-stores.fixture.js';
import { pnlAggregate, positionAt, walkDaily } from './pnl.js';
import { createWalletsProjection } from './projection.js';

const stores = tempStores();
afterEach(stores.closeAll);

type Hex = `0x${string}`;
const addr = (c: string) => `0x${c.repeat(40)}` as Hex;
const hash = (n: number, i = 0) => `0x${(n * 1000 + i).toString(16).padStart(64, '0')}` as Hex;
const T = addr('a');
const Q = addr('b');
const F = addr('f');
const W = addr('1');
const W2 = addr('2');
const POOL_ADDR = addr('c');
const POOL: PoolRow = {
  key: `${POOL_ADDR}${'00'.repeat(32)}`,
  protocol: 'v2',
  contract: POOL_ADDR,
  poolId: null,
  currency0: T,
  currency1: Q,
  fee: 3000,
  tickSpacing: null,
  hooks: null,
  factory: addr('d'),
  created: { block: 0, txIndex: 0, logIndex: 0 } as PoolRow['created'],
  createdAt: 0,
};
const DAY = 86400;

/** A transaction of `from` (native value `value` to `to`, else a call to the pool). */
const tx = (n: number, i: number, from: Hex, to: Hex, value = 0n): TxDelta => ({
  hash: hash(n, i),
  json: '{}',
  receipt: '{}',
  from,
  value: `0x${value.toString(16)}`,
  to,
  firstLogIndex: 0,
  logCount: 0,
  status: 1,
  contractAddress: null,
  decoded: '{}',
});

/** A trade of `who`: `dToken` token base units received (negative: sold), `dQuote` quote received. */
interface Trade {
  who: Hex;
  dToken: bigint;
  dQuote: bigint;
}

/** Block `n` at `ts`: native fundings first, then the trades (one transaction each). */
function block(n: number, ts: number, fundings: Hex[], trades: Trade[]): BlockDelta {
  const txs = fundings.map((w, i) => tx(n, i, F, w, 10n ** 15n));
  const swaps = trades.map((t, j) => {
    const txIndex = txs.length;
    txs.push(tx(n, txIndex, t.who, POOL_ADDR));
    const row: SwapRow = {
      block: n,
      timestamp: ts,
      txIndex,
      logIndex: j,
      txHash: hash(n, txIndex),
      origin: t.who,
      sender: null,
      recipient: null,
      amount0: (-t.dToken).toString(),
      amount1: (-t.dQuote).toString(),
      price: '1/1',
      side: t.dToken > 0n ? 'buy' : 'sell',
      tick: null,
      sqrtPriceX96: null,
    };
    return { poolKey: POOL.key, row, pool: POOL };
  });
  return {
    number: n,
    hash: hash(n),
    parentHash: hash(n - 1),
    timestamp: ts,
    header: '{}',
    txs,
    logs: [],
    events: [],
    probes: {},
    derived: { swaps },
  };
}

/**
 * The chain: W funded and buys on day 0; on day 1 W buys, sells twice in one block, then sells;
 * W2 (funded by the same funder) buys at block 4, making the cohort (T, F) two wallets strong.
 */
const CHAIN: BlockDelta[] = [
  block(1, 10, [W, W2], [{ who: W, dToken: 100n, dQuote: -50n }]),
  block(2, DAY + 5, [], [{ who: W, dToken: 300n, dQuote: -210n }]),
  block(
    3,
    DAY + 70,
    [],
    [
      { who: W, dToken: -40n, dQuote: 30n },
      { who: W, dToken: -60n, dQuote: 20n },
    ],
  ),
  block(4, DAY + 130, [], [{ who: W2, dToken: 5n, dQuote: -4n }]),
  block(5, DAY + 200, [], [{ who: W, dToken: -100n, dQuote: 70n }]),
  block(6, 2 * DAY + 1, [], []),
];

const projection = () => createWalletsProjection({ quoteAssets: [Q] });
const minuteRow = (b: import('../storage/index.js').BlockBatch, d: BlockDelta) => {
  const minute = Math.floor(d.timestamp / 60) * 60;
  if (!b.has(MINUTE_BLOCK, minute)) b.put(MINUTE_BLOCK, [minute], d.number);
};

/** Commits `blocks` one by one; returns W's current position after each (the oracle). */
function live(s: Store, blocks: BlockDelta[]): Map<number, Position | undefined> {
  const p = projection();
  const seen = new Map<number, Position | undefined>();
  for (const d of blocks) {
    s.commitBlock({ number: d.number, hash: d.hash }, (b) => {
      minuteRow(b, d);
      p.apply(b, d);
    });
    seen.set(
      d.number,
      inView(s, (v) => v.get(POSITION, W, T, Q)),
    );
  }
  return seen;
}

/** W's position at `n` read through {@link positionAt} from the current row. */
const posAt = (s: Store, n: number) =>
  inView(s, (v) => {
    const cur = v.get(POSITION, W, T, Q);
    return cur ? positionAt(v, W, cur, n) : null;
  });

describe('wallets.position_history', () => {
  it('the codec round-trips signed and long rationals', () => {
    const v = {
      qty: '340282366920938463463374607431768211455',
      cost: '123456789012345678901234567890/7',
      realised: '-98765432109876543210/3',
      buys: 7,
      sells: 0xffff_ffff,
      boughtQty: '0',
      soldQty: '1',
      unexplainedSold: '12',
      firstBlock: 2 ** 40 + 5,
    };
    expect(positionVersionCodec.decode(positionVersionCodec.encode(v))).toEqual(v);
  });

  it('block by block: one version per block that traded the pair; positionAt at N is the position after block N', async () => {
    const s = await stores.open('pos-live-', { unfinalisedWindow: 16 });
    const oracle = live(s, CHAIN);
    const versions = inView(s, (v) =>
      v.rows(POSITION_HIST, { prefix: [W, T, Q], limit: 100 }).map((r) => r.key[3]),
    );
    expect(versions).toEqual([1, 2, 3, 5]);
    expect(posAt(s, 0)).toBeNull();
    for (let n = 1; n <= 6; n++) expect(posAt(s, n), `block ${n}`).toEqual(oracle.get(n));
    // Two sells in block 3: the version holds both (qty 400 − 100).
    expect(posAt(s, 3)?.qty).toBe('300');
    expect(posAt(s, 4)).toEqual(posAt(s, 3));
  });

  it('a history segment (no undo) then live blocks write the same versions as block-by-block ingest', async () => {
    const byBlock = await stores.open('pos-ref-', { unfinalisedWindow: 16 });
    const oracle = live(byBlock, CHAIN);
    const s = await stores.open('pos-seg-', { unfinalisedWindow: 16 });
    const p = projection();
    const seg = s.newBatch({ undo: false });
    for (const d of CHAIN.slice(0, 3)) {
      minuteRow(seg, d);
      p.apply(seg, d);
    }
    s.commitBatch({ number: 3, hash: CHAIN[2].hash }, seg);
    await s.settled();
    live(s, CHAIN.slice(3));
    const rows = (st: Store) =>
      inView(st, (v) => v.rows(POSITION_HIST, { prefix: [W], limit: 100 }).map((r) => [r.key, r.value]));
    expect(rows(s)).toEqual(rows(byBlock));
    for (let n = 1; n <= 6; n++) expect(posAt(s, n), `block ${n}`).toEqual(oracle.get(n));
  });

  it('a rollback unwinds the version of the dropped block; the replacement block writes its own', async () => {
    const s = await stores.open('pos-roll-', { unfinalisedWindow: 16 });
    const oracle = live(s, CHAIN.slice(0, 5));
    s.rollbackHead();
    s.rollbackHead();
    expect(inView(s, (v) => v.get(POSITION_HIST, W, T, Q, 5))).toBeUndefined();
    expect(inView(s, (v) => v.get(POSITION, W, T, Q))).toEqual(oracle.get(3));
    // The new block 4: W buys instead of W2.
    const b4 = { ...block(4, DAY + 130, [], [{ who: W, dToken: 10n, dQuote: -9n }]), hash: hash(4, 999) };
    const after = live(s, [b4]);
    expect(posAt(s, 3)).toEqual(oracle.get(3));
    expect(posAt(s, 4)).toEqual(after.get(4));
    expect(posAt(s, 4)?.qty).toBe('310');
    expect(inView(s, (v) => v.get(GENERATION_HIST, T, 4))).toBeUndefined();
  });

  it('PnL and the daily series at N count the trades at or below N only', async () => {
    const s = await stores.open('pos-pnl-', { unfinalisedWindow: 16 });
    live(s, CHAIN);
    const realisedAt = (n: number) =>
      inView(s, (v) => pnlAggregate(v, W, n, CHAIN[n - 1].timestamp).realisedByQuote[Q] ?? null);
    const value = (r: { priceNumerator: string; priceDenominator: string } | null) =>
      r ? ratParse(`${r.priceNumerator}/${r.priceDenominator}`) : null;
    expect(value(realisedAt(1))).toEqual(ratParse('0/1'));
    // Block 3: cost 260 for 400; sells of 40 (for 30) and 60 (for 20) realise 30 − 26 + 20 − 39.
    expect(value(realisedAt(3))).toEqual(ratParse('-15/1'));
    expect(value(realisedAt(4))).toEqual(ratParse('-15/1'));
    // Block 5: 100 more for 70 at average cost 0.65 realise 5.
    expect(value(realisedAt(5))).toEqual(ratParse('-10/1'));
    const daily = (n: number) =>
      inView(s, (v) => {
        const out: Array<[number, string]> = [];
        walkDaily(
          v,
          { wallet: W, token: T, quote: Q, fromDay: 0, toDay: 10 },
          { at: n, order: 'asc', after: null, limit: 100 } as never,
          CHAIN[n - 1].timestamp,
          (r) => {
            if (r) out.push([r.day, `${r.realised.numerator}/${r.realised.denominator}`]);
            return true;
          },
        );
        return out;
      });
    expect(daily(2)).toEqual([]);
    expect(daily(3)).toEqual([[1, '-15/1']]);
    expect(daily(4)).toEqual([[1, '-15/1']]);
    expect(daily(5)).toEqual([[1, '-10/1']]);
    expect(daily(6)).toEqual([[1, '-10/1']]);
  });
});

describe('wallets.funding_generation_history and wallet cohorts at N', () => {
  it('the generation and the cohort membership of a wallet follow the block', async () => {
    const s = await stores.open('gen-', { unfinalisedWindow: 16 });
    live(s, CHAIN);
    expect(inView(s, (v) => v.get(GENERATION, T))).toBe(2);
    expect(
      inView(s, (v) => v.rows(GENERATION_HIST, { prefix: [T], limit: 10 }).map((r) => [r.key[1], r.value])),
    ).toEqual([
      [1, 1],
      [4, 2],
    ]);
    const cohorts = createCohortsReader({ overrides: new Set(), overridesVersion: '0' });
    const of = (w: Hex, n: number) => inView(s, (v) => cohorts.walletCohorts(v, w, n));
    // Before W2's buy the cohort has one member: no cohort; W2 is in none before its own buy.
    expect(of(W, 3).cohorts).toEqual([]);
    expect(of(W2, 3).cohorts).toEqual([]);
    for (const w of [W, W2]) {
      const c = of(w, 4);
      expect(c.cohorts.map((x) => [x.token, x.funder, x.size])).toEqual([[T, F, 2]]);
      expect(c.fundingGeneration).toBe(2);
    }
  });
});
