/**
 * The pure rules of shared mode: the key merge (no revoke undone) and the shared windows'
 * arithmetic — two servers' windows exchanging their published counts through an in-process bus
 * that stands in for the rate bucket (the real bucket is exercised by
 * test/e2e/scanner-shared.test.ts).
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KeyRecord } from '../model.js';
import { mergeKey } from './directory.js';
import { type Change, createKvSeal, type SharedState } from './state.js';
import { createSharedWindows } from './windows.js';

const key = (o: Partial<KeyRecord>): KeyRecord => ({
  id: 'key_a',
  accountId: 'acc_a',
  name: 'n',
  prefix: 'sk_live_abcd',
  hash: '00',
  createdAt: 0,
  allowlist: [],
  revokedAt: null,
  graceUntil: null,
  rolledTo: null,
  ...o,
});

describe('mergeKey', () => {
  it('keeps a revoke made elsewhere, and the earliest revoke and grace end', () => {
    expect(mergeKey(key({ name: 'renamed' }), key({ revokedAt: 5 }))).toMatchObject({
      name: 'renamed',
      revokedAt: 5,
    });
    expect(mergeKey(key({ revokedAt: 9 }), key({ revokedAt: 5 })).revokedAt).toBe(5);
    expect(mergeKey(key({ graceUntil: 7, rolledTo: 'key_b' }), key({ graceUntil: 3 }))).toMatchObject({
      graceUntil: 3,
      rolledTo: 'key_b',
    });
    expect(mergeKey(key({ allowlist: ['10.0.0.0/8'] }), key({ rolledTo: 'key_c' }))).toMatchObject({
      allowlist: ['10.0.0.0/8'],
      rolledTo: 'key_c',
    });
  });
});

/** Two servers' shared windows on a bus: every put is delivered to every server's rate handlers. */
function twoServers(clock: () => number) {
  const handlers: Array<(c: Change) => void> = [];
  let rev = 0;
  const state = (serverId: string) =>
    ({
      serverId,
      rateKv: {
        async put(k: string, data: Uint8Array) {
          const value = JSON.parse(new TextDecoder().decode(data));
          for (const h of handlers) h({ key: k, revision: ++rev, value });
          return rev;
        },
      },
      onRate: (h: (c: Change) => void) => void handlers.push(h),
      seal: (_key: string, v: unknown) => new TextEncoder().encode(JSON.stringify({ o: serverId, v })),
    }) as unknown as SharedState;
  const log = pino({ level: 'silent' });
  return [createSharedWindows(state('srv_a'), log, clock), createSharedWindows(state('srv_b'), log, clock)];
}
const publishes = () => new Promise((r) => setTimeout(r, 600));

describe('shared windows', () => {
  it("one server's admissions count on the other; neither window is charged by a refusal", async () => {
    let t = 1_000_000;
    const [a, b] = twoServers(() => t);
    for (let i = 0; i < 7; i++) expect(a.admit('key_1', 'acc_1', 10, t).ok).toBe(true);
    await publishes();
    expect(b.admit('key_1', 'acc_1', 10, t).remaining).toBe(2);
    expect(b.admit('key_1', 'acc_1', 10, t).ok).toBe(true);
    expect(b.admit('key_1', 'acc_1', 10, t).ok).toBe(true);
    const refused = b.admit('key_1', 'acc_1', 10, t);
    expect(refused).toMatchObject({ ok: false, refusedBy: 'key' });
    // A's seven leave B's view when their second leaves the window (never earlier).
    expect(refused.retryAfterMs).toBeGreaterThan(59_000);
    // Another key of the same account: the account window (shared) refuses.
    await publishes();
    expect(a.admit('key_2', 'acc_1', 10, t)).toMatchObject({ ok: false, refusedBy: 'account' });
    t += 61_000;
    expect(b.admit('key_1', 'acc_1', 10, t).ok).toBe(true);
    a.close();
    b.close();
  });
});

describe('KV records are sealed under the writers’ secret', () => {
  const secret = Buffer.alloc(32, 7);
  const kv = createKvSeal(secret);
  const enc = (x: unknown) => new TextEncoder().encode(JSON.stringify(x));

  it('opens what it sealed, for the key it was sealed for', () => {
    const data = kv.seal('key.key_a', 'srv_a', key({ name: 'x' }));
    expect(kv.open('key.key_a', data)).toEqual({ o: 'srv_a', v: key({ name: 'x' }) });
  });

  it('refuses a forged, altered, moved or foreign record', () => {
    const data = kv.seal('bal.acc_a', 'srv_a', { balance: 5, seq: 1, last: null });
    // Unsealed, as written by anyone with write access to the bucket but not the secret.
    expect(kv.open('bal.acc_a', enc({ o: 'srv_x', v: { balance: 1e9, seq: 1, last: null } }))).toBeNull();
    // Altered after sealing.
    const text = new TextDecoder().decode(data).replace('"balance":5', '"balance":9');
    expect(kv.open('bal.acc_a', new TextEncoder().encode(text))).toBeNull();
    // Moved to another account's key.
    expect(kv.open('bal.acc_b', data)).toBeNull();
    // Sealed under another secret.
    expect(createKvSeal(Buffer.alloc(32, 8)).open('bal.acc_a', data)).toBeNull();
    // Junk.
    expect(kv.open('bal.acc_a', new TextEncoder().encode('{'))).toBeNull();
    expect(kv.open('bal.acc_a', enc({ o: 'srv_a', v: 1, m: 'zz' }))).toBeNull();
  });
});
