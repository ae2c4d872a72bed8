/**
 * The pure rules of shared mode: the key and session merges (no revoke undone), the seal of a
 * record (MAC over its key, version and content; the previous, unversioned format read as
 * version 0), the versions held (replays refused, across a restart), and the shared windows'
 * arithmetic — two servers' windows exchanging their published counts through an in-process bus
 * that stands in for the rate bucket (the real bucket is exercised by
 * test/e2e/scanner-shared.test.ts).
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { KeyRecord } from '../model.js';
import { openScannerStore, type ScannerStore } from '../store.js';
import { mergeKey, mergeSession } from './directory.js';
import { type Change, createKvSeal, type SharedState } from './state.js';
import { createVersionGuard } from './versions.js';
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
      seal: (_key: string, v: unknown, n: number) =>
        new TextEncoder().encode(JSON.stringify({ o: serverId, n, v })),
      refuseReplay: () => {},
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
  /** A record of the previous format: `{o, v, m}`, MAC over the key and `{o, v}`, no version. */
  const unversioned = (k: string, o: string, v: unknown) => {
    const body = JSON.stringify({ o, v });
    const m = createHmac('sha256', secret).update(`${k}\n${body}`).digest('hex');
    return enc({ o, v, m });
  };

  it('opens what it sealed, with its version, for the key it was sealed for', () => {
    const data = kv.seal('key.key_a', 'srv_a', key({ name: 'x' }), 3);
    expect(kv.open('key.key_a', data)).toEqual({ o: 'srv_a', n: 3, v: key({ name: 'x' }) });
    expect(() => kv.seal('key.key_a', 'srv_a', 1, -1)).toThrow(/version/);
  });

  it('refuses a forged, altered, moved or foreign record, and a version changed after sealing', () => {
    const data = kv.seal('bal.acc_a', 'srv_a', { balance: 5, seq: 1, last: null }, 1);
    // Unsealed, as written by anyone with write access to the bucket but not the secret.
    expect(
      kv.open('bal.acc_a', enc({ o: 'srv_x', n: 9, v: { balance: 1e9, seq: 1, last: null } })),
    ).toBeNull();
    // Altered after sealing: the record, or its version (a replay dressed as a newer write).
    const text = new TextDecoder().decode(data);
    expect(
      kv.open('bal.acc_a', new TextEncoder().encode(text.replace('"balance":5', '"balance":9'))),
    ).toBeNull();
    expect(kv.open('bal.acc_a', new TextEncoder().encode(text.replace('"n":1', '"n":2')))).toBeNull();
    // Its version stripped, to pass as a record of the previous format.
    expect(kv.open('bal.acc_a', new TextEncoder().encode(text.replace('"n":1,', '')))).toBeNull();
    // Moved to another account's key.
    expect(kv.open('bal.acc_b', data)).toBeNull();
    // Sealed under another secret.
    expect(createKvSeal(Buffer.alloc(32, 8)).open('bal.acc_a', data)).toBeNull();
    // Junk.
    expect(kv.open('bal.acc_a', new TextEncoder().encode('{'))).toBeNull();
    expect(kv.open('bal.acc_a', enc({ o: 'srv_a', v: 1, m: 'zz' }))).toBeNull();
    expect(kv.open('bal.acc_a', enc({ o: 'srv_a', n: -1, v: 1, m: 'zz' }))).toBeNull();
  });

  it('reads a record of the previous, unversioned format as version 0 (and only under the secret)', () => {
    const old = unversioned('acct.acc_a', 'srv_a', { id: 'acc_a' });
    expect(kv.open('acct.acc_a', old)).toEqual({ o: 'srv_a', n: 0, v: { id: 'acc_a' } });
    expect(kv.open('acct.acc_b', old)).toBeNull();
    expect(createKvSeal(Buffer.alloc(32, 8)).open('acct.acc_a', old)).toBeNull();
  });
});

describe('versions held (replays refused)', () => {
  const opened: Array<{ store: ScannerStore; dir: string }> = [];
  afterAll(async () => {
    for (const o of opened.splice(0)) {
      await o.store.close();
      rmSync(o.dir, { recursive: true, force: true });
    }
  });
  const storeAt = async (dir = mkdtempSync(join(tmpdir(), 'scanner-versions-'))) => {
    const store = await openScannerStore(dir);
    opened.push({ store, dir });
    return { store, dir };
  };

  it('applies a rising version, passes over its own write coming back, refuses a lower or equal one at a later revision; survives a restart', async () => {
    const { store, dir } = await storeAt();
    const g = createVersionGuard(store);
    expect(g.judge('key.key_a', 0, 4)).toBe('apply'); // nothing held: even a record of the previous format
    store.write([g.op('key.key_a', { n: 2, rev: 10 })]);
    g.remember('key.key_a', { n: 2, rev: 10 });
    expect(g.judge('key.key_a', 2, 10)).toBe('seen');
    expect(g.judge('key.key_a', 1, 9)).toBe('seen');
    expect(g.judge('key.key_a', 3, 11)).toBe('apply');
    expect(g.judge('key.key_a', 1, 11)).toBe('replay');
    expect(g.judge('key.key_a', 2, 12)).toBe('replay');
    expect(g.judge('key.key_a', 0, 12)).toBe('replay');
    g.remember('key.key_a', { n: 1, rev: 12 }); // never backwards
    expect(g.held('key.key_a')).toEqual({ n: 2, rev: 10 });
    await store.close();
    opened.pop();
    const again = await storeAt(dir);
    expect(createVersionGuard(again.store).judge('key.key_a', 1, 11)).toBe('replay');
  });
});

describe('mergeSession', () => {
  it('keeps the earliest revoke; a record without one never clears it', () => {
    const s = { hash: 'ab', prefix: 'p', accountId: 'acc_a', createdAt: 0, expiresAt: 100 };
    expect(mergeSession({ ...s, revokedAt: null }, { ...s, revokedAt: 5 }).revokedAt).toBe(5);
    expect(mergeSession({ ...s }, { ...s, revokedAt: 5 }).revokedAt).toBe(5);
    expect(mergeSession({ ...s, revokedAt: 9 }, { ...s, revokedAt: 5 }).revokedAt).toBe(5);
    expect(mergeSession({ ...s, revokedAt: 9 }, { ...s }).revokedAt).toBe(9);
  });
});
