/**
 * Issue AE, finding 3: a sealed record taken from the shared KV bucket's history and put back (a
 * replay, by anyone who may write the bucket; no secret needed, the record's MAC is its own) is
 * refused and counted, on real parts — a real nats-server with JetStream and two scanner server
 * processes (harness/scanner-shared.ts). Each case puts back the older record of:
 *  - a revoked key (it would un-revoke it);
 *  - a revoked dashboard session;
 *  - an account's plan before an upgrade (it would restore the old plan);
 *  - a balance before credits were spent (it would give them back).
 * Both servers keep refusing the key and the session, keep the new plan and the true balance,
 * count the replay once each (admin `shared-status`) and log it; the next real movement of the
 * balance goes past the replayed entry.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { KV } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATS_MISSING, type NatsServer, natsServerBinary, startNats } from '../harness/nats.js';
import {
  remaining,
  type SharedServer,
  sharedAccount,
  startSharedServer,
  until,
  whoami,
  withBucket,
} from '../harness/scanner-shared.js';

let nats: NatsServer;
let A: SharedServer;
let B: SharedServer;

beforeAll(async () => {
  // Loud in CI and locally: these tests need nats-server (.ci/run installs it from Debian).
  if (!natsServerBinary()) throw new Error(NATS_MISSING);
  nats = await startNats();
  A = await startSharedServer(nats, 'a');
  B = await startSharedServer(nats, 'b');
}, 90_000);

afterAll(async () => {
  if (process.env.SCANNER_SHARED_LOGS)
    for (const s of [A, B]) if (s) process.stdout.write(`--- ${s.name}\n${s.out()}\n`);
  for (const s of [A, B]) {
    if (!s) continue;
    s.child.kill('SIGKILL');
    rmSync(s.dir, { recursive: true, force: true });
  }
  await nats?.stop();
});

/** The record part (`v`) of a stored value, read as anyone can (the MAC authenticates, it does not hide). */
const recordOf = (value: Uint8Array) => JSON.parse(new TextDecoder().decode(value)).v;

/**
 * Puts back, as the latest value of `key`, the newest earlier value from the bucket's history that
 * `pick` chooses: exactly the bytes the bucket kept (a sealed record, MAC and all).
 * @returns the record put back.
 */
async function replay(key: string, pick: (record: any) => boolean): Promise<any> {
  return withBucket(nats, async (kv: KV) => {
    const entries: Array<{ revision: number; value: Uint8Array }> = [];
    for await (const e of await kv.history({ key })) {
      if (e.operation === 'PUT') entries.push({ revision: e.revision, value: e.value });
      if (e.delta === 0) break;
    }
    entries.sort((x, y) => y.revision - x.revision);
    const old = entries.slice(1).find((e) => pick(recordOf(e.value)));
    expect(old, `an earlier value of ${key} in the history`).toBeDefined();
    await kv.put(key, old!.value);
    return recordOf(old!.value);
  });
}

let sentinels = 0;
/**
 * Resolves once both servers' watchers delivered everything put before the call: each makes an
 * account and waits for the other's (the bucket is one ordered stream).
 */
async function bothCaughtUp(): Promise<void> {
  const n = sentinels++;
  const made = await Promise.all(
    [A, B].map(
      async (s) =>
        (await s.cli('create-account', { email: `sentinel-${n}-${s.name}@example.com` })).account
          .id as string,
    ),
  );
  const sees = (s: SharedServer, acc: string) =>
    s.cli('list', { account: acc }).then(
      () => true,
      () => false,
    );
  await until(
    'each server sees the other’s sentinel',
    5_000,
    async () => (await sees(A, made[1])) && (await sees(B, made[0])),
  );
}

/**
 * Replays refused so far by each server (admin `shared-status`); null when a server cannot say
 * (a build without the count: the behaviour checked before it fails first there).
 */
const replays = async (): Promise<number[] | null> =>
  Promise.all([A, B].map(async (s) => (await s.cli('shared-status')).refused.replay as number)).catch(
    () => null,
  );
const plusOne = (counts: number[] | null) => counts?.map((n) => n + 1) ?? 'a count before';

describe('a sealed record put back from the KV history is refused and counted', () => {
  it('a revoked key stays revoked', async () => {
    const a = await sharedAccount(A, 'replay-key@example.com', 'enterprise');
    await until('the key reaches B', 5_000, async () => (await whoami(B, a.secret)).status === 200);
    const r = await A.req('POST', `/v1/account/keys/${a.keyId}/revoke`, { bearer: a.session });
    expect(r.status, r.text).toBe(200);
    await until('B refuses the revoked key', 5_000, async () => (await whoami(B, a.secret)).status === 401);
    const before = await replays();

    const put = await replay(`key.${a.keyId}`, (k) => k.revokedAt === null);
    expect(put.revokedAt).toBeNull();
    await bothCaughtUp();

    for (const s of [A, B]) {
      const w = await whoami(s, a.secret);
      expect(w.status, `${s.name}: ${w.text}`).toBe(401);
      expect(w.body.code).toBe('API_KEY_REVOKED');
    }
    expect(await replays()).toEqual(plusOne(before));
    for (const s of [A, B]) expect(s.out()).toMatch(/version that does not increase/);
  });

  it('a revoked dashboard session stays revoked', async () => {
    const a = await sharedAccount(A, 'replay-session@example.com', 'enterprise');
    const dashboard = (s: SharedServer) => s.req('GET', '/v1/account', { bearer: a.session });
    await until('the session reaches B', 5_000, async () => (await dashboard(B)).status === 200);
    await A.cli('revoke-session', { account: a.acc, all: true });
    await until('B refuses the revoked session', 5_000, async () => (await dashboard(B)).status === 401);
    const before = await replays();

    const hash = createHash('sha256').update(a.session).digest('hex');
    const put = await replay(`sess.${hash}`, (s) => !s.revokedAt);
    expect(put.revokedAt ?? null).toBeNull();
    await bothCaughtUp();

    for (const s of [A, B]) expect((await dashboard(s)).status, s.name).toBe(401);
    expect(await replays()).toEqual(plusOne(before));
  });

  it('an old plan is not restored', async () => {
    const a = await sharedAccount(A, 'replay-plan@example.com', 'scale');
    const tier = async (s: SharedServer) => (await whoami(s, a.secret)).body?.plan?.tier;
    await until('the key reaches B', 5_000, async () => (await tier(B)) === 'scale');
    await A.cli('set-plan', { account: a.acc, plan: 'enterprise', days: '30' });
    await until('B sees the upgrade', 5_000, async () => (await tier(B)) === 'enterprise');
    const before = await replays();

    const put = await replay(`acct.${a.acc}`, (acct) => acct.plan?.tier === 'scale');
    expect(put.plan.tier).toBe('scale');
    await bothCaughtUp();

    for (const s of [A, B]) expect(await tier(s), s.name).toBe('enterprise');
    expect(await replays()).toEqual(plusOne(before));
  });

  it('spent credits are not given back; the next movement goes past the replayed balance', async () => {
    const a = await sharedAccount(A, 'replay-credits@example.com', 'enterprise', 5);
    await until('B sees the grant', 5_000, async () => (await remaining(B, a.acc)) === 5);
    for (const subject of [
      '0x00000000000000000000000000000000000000a1',
      '0x00000000000000000000000000000000000000a2',
    ]) {
      const r = await A.req('POST', '/v1/test/charged', { key: a.secret, body: { subject, depth: 'quick' } });
      expect(r.status, r.text).toBe(200);
    }
    await until('B sees the charges', 5_000, async () => (await remaining(B, a.acc)) === 3);
    const before = await replays();

    const put = await replay(`bal.${a.acc}`, (b) => b.balance === 5);
    expect(put.balance).toBe(5);
    await bothCaughtUp();

    for (const s of [A, B]) expect(await remaining(s, a.acc), s.name).toBe(3);
    expect(await replays()).toEqual(plusOne(before));
    // A real grant on B compare-and-sets past the replayed entry, from the true balance.
    await B.cli('grant-credits', { account: a.acc, scans: '1' });
    await until('A sees the grant on the true balance', 5_000, async () => (await remaining(A, a.acc)) === 4);
    expect(await remaining(B, a.acc)).toBe(4);
    expect(await replays()).toEqual(plusOne(before));
  });
});
