/**
 * The versioned walk's per-request budget: a walk at an old anchor examines every version written
 * since (skipped rows included) and is refused with `walk_budget_exceeded` past the budget; the
 * same walk at the head reads no history and answers; the budget is per view (one request).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../errors/index.js';
import { HOLDER_CUR, HOLDER_HIST } from '../schema/tables/tokens.js';
import type { Store } from './index.js';

const BUDGET = 100;
process.env.VERSIONED_WALK_BUDGET = String(BUDGET);
const { walkVersioned, VERSIONED_WALK_BUDGET_ROWS } = await import('./versioned.js');
const { tempStores } = await import('./temp-stores.fixture.js');

const T = `0x${'aa'.repeat(20)}` as const;
const wallet = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as `0x${string}`;
const stores = tempStores();
let store: Store;

beforeAll(async () => {
  store = await stores.open('versioned-', { unfinalisedWindow: 4 });
  // 10 current holders since block 1000; 300 retired versions of other wallets, each valid in
  // [b, b + 1) for b in 500..799 (none valid at block 10).
  const ops = [];
  for (let i = 0; i < 10; i++)
    ops.push({ key: HOLDER_CUR.key(T, BigInt(1000 + i), wallet(i)), value: HOLDER_CUR.value.encode(1000) });
  for (let i = 0; i < 300; i++)
    ops.push({
      key: HOLDER_HIST.key(T, BigInt(5 + i), wallet(100 + i), 500 + i),
      value: HOLDER_HIST.value.encode(501 + i),
    });
  store.rocks.write(ops);
});
afterAll(stores.closeAll);

const walk = (view: ReturnType<Store['view']>, anchor: number) =>
  walkVersioned(view, {
    cur: HOLDER_CUR,
    hist: HOLDER_HIST,
    prefix: [T],
    sortKeyLen: 52,
    fromOf: (v) => v,
    toOf: (v) => v,
    anchor,
    after: null,
    reverse: false,
    want: 11,
    lastChangeBlock: 1000,
  });

describe('versioned walk budget', () => {
  it('reads the budget from VERSIONED_WALK_BUDGET', () => {
    expect(VERSIONED_WALK_BUDGET_ROWS).toBe(BUDGET);
  });

  it('answers at the head, where no history row is walked', () => {
    const view = store.view();
    expect(walk(view, 2000)).toHaveLength(10);
    view.close();
  });

  it('refuses an old anchor whose walk skips more rows than the budget, with a typed refusal', () => {
    const view = store.view();
    let err: unknown;
    try {
      walk(view, 10);
    } catch (e) {
      err = e;
    }
    view.close();
    expect(err).toBeInstanceOf(ServiceError);
    const e = err as ServiceError;
    expect(e.code).toBe('walk_budget_exceeded');
    expect(e.status).toBe(409);
    expect(e.toJSON()).toMatchObject({ anchorBlock: 10, budgetRows: BUDGET });
    expect(e.detail).toMatch(/restart the walk from page one/);
  });

  it('counts every walk of one view (a request) against one budget, and a new view starts afresh', () => {
    const view = store.view();
    for (let i = 0; i < 10; i++) walk(view, 2000); // 10 rows each: the whole budget
    expect(() => walk(view, 2000)).toThrow(/walk_budget_exceeded/);
    view.close();
    const next = store.view();
    expect(walk(next, 2000)).toHaveLength(10);
    next.close();
  });
});
