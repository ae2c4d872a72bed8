/**
 * Rate-window accuracy on a controllable clock: at 0.9×, 1× and 10× the plan's number, over many
 * windows, for the key's and the account's window; neither window is charged when the other
 * refuses; Retry-After is exact; the invalid-key counter per IP.
 */
import { describe, expect, it } from 'vitest';
import { createRateWindows, INVALID_KEYS_PER_IP, WINDOW_MS } from './windows.js';

/** Deterministic PRNG (mulberry32) so a failure replays. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Largest number of instants of `ts` (sorted) inside any (t − 60 s, t] window. */
function maxInAnyWindow(ts: number[]): number {
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < ts.length; hi++) {
    while (ts[lo] <= ts[hi] - WINDOW_MS) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** Admissions per aligned minute [k·60 s, (k+1)·60 s) for k in 0..minutes-1. */
function perMinute(ts: number[], minutes: number): number[] {
  const out = new Array<number>(minutes).fill(0);
  for (const t of ts) if (t < minutes * WINDOW_MS) out[Math.floor(t / WINDOW_MS)]++;
  return out;
}

/**
 * Offers requests from `keys` (all of one account) for `minutes`, each key at `load` × limit per
 * minute, arrivals evenly spaced with ±jitter; returns the admitted instants per key and overall.
 */
function simulate(o: {
  limit: number;
  load: number;
  keys: number;
  minutes: number;
  jitterMs: number;
  seed: number;
}) {
  const w = createRateWindows();
  const rand = prng(o.seed);
  const gap = WINDOW_MS / (o.limit * o.load);
  const arrivals: Array<[number, string]> = [];
  for (let k = 0; k < o.keys; k++) {
    // Whole-millisecond instants computed from the index (no accumulated float error).
    const offset = Math.floor(rand() * gap);
    for (let i = 0; offset + i * gap < o.minutes * WINDOW_MS; i++) {
      const t = Math.round(offset + i * gap + (rand() * 2 - 1) * o.jitterMs);
      if (t >= 0) arrivals.push([t, `key${k}`]);
    }
  }
  arrivals.sort((a, b) => a[0] - b[0]);
  const byKey = new Map<string, number[]>();
  const all: number[] = [];
  let offered = 0;
  for (const [t, key] of arrivals) {
    offered++;
    const a = w.admit(key, 'acc', o.limit, t);
    if (a.ok) {
      all.push(t);
      const list = byKey.get(key);
      if (list) list.push(t);
      else byKey.set(key, [t]);
      expect(a.remaining).toBeGreaterThanOrEqual(0);
      expect(a.remaining).toBeLessThan(o.limit);
    } else expect(a.retryAfterMs).toBeGreaterThan(0);
  }
  return { all, byKey, offered };
}

describe.each([
  ['Scale', 120],
  ['Enterprise', 600],
])('%s (%i per minute), one key, 30 minutes', (_plan, limit) => {
  it('0.9× load: every request admitted, never more than the limit in any 60 s window', () => {
    const r = simulate({ limit, load: 0.9, keys: 1, minutes: 30, jitterMs: 20, seed: 1 });
    expect(r.all.length).toBe(r.offered);
    expect(maxInAnyWindow(r.all)).toBeLessThanOrEqual(limit);
  });

  it('1× load (evenly spaced): every request admitted, exactly the limit in the fullest window', () => {
    const r = simulate({ limit, load: 1, keys: 1, minutes: 30, jitterMs: 0, seed: 2 });
    expect(r.all.length).toBe(r.offered);
    expect(maxInAnyWindow(r.all)).toBe(limit);
  });

  it('1× load with jitter: never more than the limit in any window, at least 0.9× admitted per minute', () => {
    const r = simulate({ limit, load: 1, keys: 1, minutes: 30, jitterMs: 200, seed: 3 });
    expect(maxInAnyWindow(r.all)).toBeLessThanOrEqual(limit);
    for (const n of perMinute(r.all, 30).slice(1)) expect(n).toBeGreaterThanOrEqual(0.9 * limit);
  });

  it('10× load: never more than the limit in any 60 s window, and the limit is used (≥ 0.9× per minute)', () => {
    const r = simulate({ limit, load: 10, keys: 1, minutes: 30, jitterMs: 5, seed: 4 });
    expect(maxInAnyWindow(r.all)).toBe(limit);
    for (const n of perMinute(r.all, 30)) {
      expect(n).toBeGreaterThanOrEqual(0.9 * limit);
      expect(n).toBeLessThanOrEqual(limit);
    }
    expect(r.all.length).toBeLessThan(r.offered / 9);
  });
});

describe('the account window: keys of one account share the plan number', () => {
  it.each([0.9, 1, 10])(
    '3 keys each at %s× load: the account never exceeds the limit in any window',
    (load) => {
      const limit = 120;
      const r = simulate({ limit, load, keys: 3, minutes: 20, jitterMs: 10, seed: 5 });
      expect(maxInAnyWindow(r.all)).toBeLessThanOrEqual(limit);
      for (const ts of r.byKey.values()) expect(maxInAnyWindow(ts)).toBeLessThanOrEqual(limit);
      // Offered 3× the load: the account's number is the binding one and is used.
      for (const n of perMinute(r.all, 20).slice(1)) expect(n).toBeGreaterThanOrEqual(0.9 * limit);
    },
  );

  it('a request the account window refuses is not charged to the key window', () => {
    const w = createRateWindows();
    const L = 120;
    for (let i = 0; i < L; i++) expect(w.admit('k1', 'acc', L, i).ok).toBe(true);
    // k2's attempts at t = 30 s are refused by the account window (k2's own window is empty).
    for (let i = 0; i < 1000; i++) {
      const a = w.admit('k2', 'acc', L, 30_000 + i);
      expect(a.ok).toBe(false);
      expect(a.refusedBy).toBe('account');
    }
    // Once k1's admissions leave the account window, k2 gets the whole limit: had the refused
    // attempts been charged to k2's window (they stay until t = 91 s), it would get none.
    let admitted = 0;
    for (let i = 0; i < L + 50; i++) if (w.admit('k2', 'acc', L, 60_000 + L + i).ok) admitted++;
    expect(admitted).toBe(L);
  });

  it('a request the key window refuses is not charged to the account window', () => {
    const w = createRateWindows();
    const L = 120;
    for (let i = 0; i < L; i++) expect(w.admit('k1', 'acc', L, i).ok).toBe(true);
    for (let i = 0; i < 1000; i++) expect(w.admit('k1', 'acc', L, 10_000 + i * 40).ok).toBe(false);
    // At t = 60.2 s k1's admissions have left both windows. If k1's refused attempts (t = 10..50 s)
    // had been charged to the account, k2 would be refused until t = 70 s and beyond.
    let admitted = 0;
    for (let i = 0; i < L; i++) if (w.admit('k2', 'acc', L, 60_200 + i).ok) admitted++;
    expect(admitted).toBe(L);
  });

  it('Retry-After is exact: refused just before it, admitted at it', () => {
    const w = createRateWindows();
    for (let i = 0; i < 5; i++) w.admit('k', 'a', 5, 1000 + i * 100);
    const refused = w.admit('k', 'a', 5, 2000);
    expect(refused.ok).toBe(false);
    expect(refused.retryAfterMs).toBe(1000 + WINDOW_MS - 2000);
    expect(w.admit('k', 'a', 5, 2000 + refused.retryAfterMs - 1).ok).toBe(false);
    expect(w.admit('k', 'a', 5, 2000 + refused.retryAfterMs).ok).toBe(true);
  });

  it('a lower limit (plan change) keeps the newest admissions', () => {
    const w = createRateWindows();
    for (let i = 0; i < 600; i++) w.admit('k', 'a', 600, i * 10);
    expect(w.admit('k', 'a', 100, 6000).ok).toBe(false);
    // The newest 100 (t = 5000..5990) stay: room again only when the first of them leaves.
    expect(w.admit('k', 'a', 100, 5000 + WINDOW_MS - 1).ok).toBe(false);
    expect(w.admit('k', 'a', 100, 5000 + WINDOW_MS).ok).toBe(true);
  });
});

describe('invalid keys per IP', () => {
  it('30 invalid keys in 60 s block the IP until the oldest leaves the window; other IPs are unaffected', () => {
    const w = createRateWindows();
    for (let i = 0; i < INVALID_KEYS_PER_IP; i++) {
      expect(w.invalidKeyBlock('198.51.100.1', i * 1000)).toBe(0);
      w.noteInvalidKey('198.51.100.1', i * 1000);
    }
    expect(INVALID_KEYS_PER_IP).toBe(30);
    expect(w.invalidKeyBlock('198.51.100.1', 30_000)).toBe(30_000);
    expect(w.invalidKeyBlock('198.51.100.2', 30_000)).toBe(0);
    expect(w.invalidKeyBlock('198.51.100.1', WINDOW_MS - 1)).toBe(1);
    expect(w.invalidKeyBlock('198.51.100.1', WINDOW_MS)).toBe(0);
    w.sweep(10 * WINDOW_MS);
    expect(w.invalidKeyBlock('198.51.100.1', 10 * WINDOW_MS)).toBe(0);
  });
});
