/**
 * The credit ledger on a real RocksDB store: holds, one-batch settlement (charge + balance +
 * usage + cached body), release as refund, failed writes change nothing, the start-up invariant,
 * cache expiry and usage by day.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkLedger, createEmbeddedLedger, type Ledger } from './ledger.js';
import { dayOf } from './model.js';
import { openScannerStore, put, type ScannerStore, TABLES } from './store.js';

const T0 = Date.parse('2026-05-01T12:00:00Z');
let dir: string;
let store: ScannerStore;
let ledger: Ledger;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'scanner-ledger-'));
  store = await openScannerStore(dir);
  ledger = createEmbeddedLedger(store);
});
afterEach(async () => {
  await store.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

describe('credits', () => {
  it('holds stop concurrent requests from overspending; settle charges, release refunds', () => {
    ledger.grant('acc_a', 5, 'trial', T0);
    const h1 = ledger.reserve('acc_a', 4)!;
    expect(h1).not.toBeNull();
    expect(ledger.reserve('acc_a', 2)).toBeNull(); // 5 − 4 held = 1 available
    const h2 = ledger.reserve('acc_a', 1)!;
    ledger.release(h1); // a failed scan: nothing charged
    expect(ledger.balance('acc_a')).toBe(5);
    ledger.settle({ accountId: 'acc_a', at: T0, endpoint: '/v1/x', status: 200, requestId: 'r1', hold: h2 });
    expect(ledger.balance('acc_a')).toBe(4);
    expect(ledger.reserve('acc_a', 4)).not.toBeNull();
    expect(ledger.entries('acc_a', 10).map((e) => [e.reason, e.delta, e.balance, e.requestId])).toEqual([
      ['charge', -1, 4, 'r1'],
      ['grant', 5, 5, null],
    ]);
  });

  it('one settlement writes the charge, the balance, the usage count and the cached body together', async () => {
    ledger.grant('acc_a', 10, null, T0);
    const hold = ledger.reserve('acc_a', 2)!;
    ledger.settle({
      accountId: 'acc_a',
      at: T0 + 5,
      endpoint: '/v1/x',
      status: 200,
      requestId: 'r1',
      hold,
      cache: { key: 'addr=0xab|depth=deep', body: '{"n":1}', exp: T0 + 60_000 },
    });
    // Reopen: everything is on disk.
    await store.close();
    store = await openScannerStore(dir);
    ledger = createEmbeddedLedger(store);
    expect(ledger.balance('acc_a')).toBe(8);
    expect(ledger.usage('acc_a', dayOf(T0), dayOf(T0))).toEqual([
      { day: dayOf(T0), endpoint: '/v1/x', statusClass: '2xx', requests: 1 },
    ]);
    expect(ledger.cached('acc_a', '/v1/x', 'addr=0xab|depth=deep', T0 + 59_999)?.body).toBe('{"n":1}');
    expect(ledger.cached('acc_a', '/v1/x', 'addr=0xab|depth=deep', T0 + 60_000)).toBeUndefined();
    expect(ledger.cached('acc_b', '/v1/x', 'addr=0xab|depth=deep', T0)).toBeUndefined(); // per account
    expect(checkLedger(store)).toEqual([]);
  });

  it('a settlement whose write fails changes nothing (memory or disk), and its hold can be released', async () => {
    ledger.grant('acc_a', 3, null, T0);
    const hold = ledger.reserve('acc_a', 1)!;
    // A key part that cannot be encoded makes the batch fail before anything is written.
    expect(() =>
      ledger.settle({
        accountId: 'acc_a',
        at: T0,
        endpoint: '/v1/\u0000',
        status: 200,
        requestId: 'r',
        hold,
      }),
    ).toThrow();
    expect(ledger.balance('acc_a')).toBe(3);
    ledger.release(hold);
    expect(ledger.reserve('acc_a', 3)).not.toBeNull();
    // Nothing reached the disk either.
    await store.close();
    store = await openScannerStore(dir);
    ledger = createEmbeddedLedger(store);
    expect(ledger.balance('acc_a')).toBe(3);
    expect(ledger.usage('acc_a', 0, dayOf(T0) + 1)).toEqual([]);
    expect(ledger.entries('acc_a', 10)).toHaveLength(1);
  });

  it('refuses non-positive or fractional grants', () => {
    expect(() => ledger.grant('acc_a', 0, null, T0)).toThrow();
    expect(() => ledger.grant('acc_a', 1.5, null, T0)).toThrow();
    expect(() => ledger.grant('acc_a', -3, null, T0)).toThrow();
  });

  it('the start-up check finds a balance that does not equal its ledger', () => {
    ledger.grant('acc_a', 7, null, T0);
    expect(checkLedger(store)).toEqual([]);
    store.write([put(TABLES.balance, ['acc_a'], 70)]);
    expect(checkLedger(store)).toEqual(['balance of acc_a is 70, its ledger sums to 7']);
  });
});

describe('usage and cache', () => {
  it('counts answers by UTC day, endpoint and status class; ranges select days', () => {
    const at = (d: number) => T0 + d * 86_400_000;
    for (const [d, status] of [
      [0, 200],
      [0, 200],
      [0, 429],
      [1, 503],
      [3, 200],
    ] as const)
      ledger.settle({ accountId: 'acc_a', at: at(d), endpoint: '/v1/whoami', status, requestId: 'r' });
    const day0 = dayOf(T0);
    expect(ledger.usage('acc_a', day0, day0 + 1)).toEqual([
      { day: day0, endpoint: '/v1/whoami', statusClass: '2xx', requests: 2 },
      { day: day0, endpoint: '/v1/whoami', statusClass: '4xx', requests: 1 },
      { day: day0 + 1, endpoint: '/v1/whoami', statusClass: '5xx', requests: 1 },
    ]);
    expect(ledger.usage('acc_a', day0 + 2, day0 + 3)).toHaveLength(1);
  });

  it('sweep deletes expired cached answers only', () => {
    for (const [key, exp] of [
      ['a', T0 + 10],
      ['b', T0 + 20],
      ['c', T0 + 30],
    ] as const)
      ledger.settle({
        accountId: 'acc_a',
        at: T0,
        endpoint: '/v1/x',
        status: 200,
        requestId: 'r',
        cache: { key, body: '{}', exp },
      });
    expect(ledger.sweep(T0 + 20)).toBe(2);
    expect(ledger.cached('acc_a', '/v1/x', 'c', T0 + 20)).toBeDefined();
    expect(ledger.sweep(T0 + 20)).toBe(0);
  });
});
