/**
 * Rate windows shared by several scanner servers (the key's and the account's 60 s windows).
 *
 * Each server admits against its own exact sliding logs (../windows.ts) minus what the other
 * servers admitted in the window: every server publishes, every {@link PUBLISH_MS}, for each key
 * and account it admitted requests of, its admissions per second of the last 60 s
 * (`rate.<serverId>.<k|a>.<id>` in the `<prefix>-rate` bucket, entries expire after 120 s), and
 * watches the others'. Another server's admission counts from the start of its one-second bucket
 * until the end of the bucket 60 s later (it is never forgotten early).
 *
 * Tolerance (documented in docs/scanner.md): across N servers, the admissions of any 60 s
 * interval exceed the plan's limit by at most what the other servers admitted in the last
 * publication interval plus watch delivery — about 0.3 s of traffic — since that is all a server
 * may not have seen yet. A server out of contact with NATS keeps its own log exact but cannot see
 * the others (it refuses keys anyway after 5 s, gate.ts). The invalid-key counter per IP stays
 * per server.
 */
import type { Logger } from 'pino';
import { createRateWindows, type RateWindows, SlidingLog, WINDOW_MS } from '../windows.js';
import type { Change, SharedState } from './state.js';

/** How often a server publishes its admission counts, ms. */
export const PUBLISH_MS = 250;

/** [second, admissions] pairs. */
type Buckets = Array<[number, number]>;

/** A one-second bucket counts while any instant of it lies in the window ending at `now`. */
const live = (sec: number, now: number) => sec * 1000 + 999 > now - WINDOW_MS;

/** The shared rate windows; `close()` stops the publisher. */
export function createSharedWindows(
  shared: SharedState,
  log: Logger,
  clock: () => number,
): RateWindows & { close(): void } {
  const perIp = createRateWindows();
  const logs = new Map<string, SlidingLog>();
  const own = new Map<string, Map<number, number>>();
  const dirty = new Set<string>();
  const remote = new Map<string, Map<string, { n: number; buckets: Buckets }>>();
  /** Version of this server's last publication (ms since the epoch, strictly increasing). */
  let published = 0;

  shared.onRate((c: Change) => {
    const m = /^rate\.([^.]+)\.([ka]\..+)$/.exec(c.key);
    if (!m || m[1] === shared.serverId || !c.value) return;
    let servers = remote.get(m[2]);
    if (!servers) remote.set(m[2], (servers = new Map()));
    const had = servers.get(m[1]);
    // An older publication put back (a replay) would hide admissions: refused.
    if (had && c.value.n <= had.n) return shared.refuseReplay(c.key, c.value.n, had.n);
    servers.set(m[1], { n: c.value.n, buckets: c.value.v as Buckets });
  });

  const others = (id: string, now: number) => {
    let n = 0;
    for (const { buckets } of remote.get(id)?.values() ?? [])
      for (const [sec, count] of buckets) if (live(sec, now)) n += count;
    return n;
  };
  /** Ms until the oldest live remote bucket of `id` leaves the window. */
  const remoteWait = (id: string, now: number) => {
    let first = Number.POSITIVE_INFINITY;
    for (const { buckets } of remote.get(id)?.values() ?? [])
      for (const [sec] of buckets)
        if (live(sec, now)) first = Math.min(first, sec * 1000 + 999 + WINDOW_MS - now);
    return Number.isFinite(first) ? Math.max(1, first) : 1000;
  };
  const logOf = (id: string, limit: number) => {
    let l = logs.get(id);
    if (!l) logs.set(id, (l = new SlidingLog(limit)));
    else l.setLimit(limit);
    return l;
  };
  const count = (id: string, now: number) => {
    const sec = Math.floor(now / 1000);
    let b = own.get(id);
    if (!b) own.set(id, (b = new Map()));
    b.set(sec, (b.get(sec) ?? 0) + 1);
    dirty.add(id);
  };

  const publish = async () => {
    const now = clock();
    const ids = [...dirty];
    dirty.clear();
    await Promise.all(
      ids.map(async (id) => {
        const b = own.get(id);
        if (!b) return;
        for (const sec of b.keys()) if (!live(sec, now)) b.delete(sec);
        try {
          const key = `rate.${shared.serverId}.${id}`;
          published = Math.max(now, published + 1);
          await shared.rateKv.put(key, shared.seal(key, [...b.entries()], published));
        } catch (err) {
          dirty.add(id);
          log.debug({ err: String(err) }, 'shared windows: publish failed');
        }
      }),
    );
  };
  let busy = false;
  const timer = setInterval(() => {
    if (busy || dirty.size === 0) return;
    busy = true;
    void publish().finally(() => {
      busy = false;
    });
  }, PUBLISH_MS);
  timer.unref();

  return {
    admit(keyId, accountId, limit, now) {
      const kid = `k.${keyId}`;
      const aid = `a.${accountId}`;
      const k = logOf(kid, limit);
      const a = logOf(aid, limit);
      const kRoom = k.room(now) - others(kid, now);
      const aRoom = a.room(now) - others(aid, now);
      if (kRoom <= 0 || aRoom <= 0) {
        const wait = (l: SlidingLog, id: string) => (l.room(now) <= 0 ? l.waitMs(now) : remoteWait(id, now));
        const retryAfterMs = Math.max(kRoom <= 0 ? wait(k, kid) : 0, aRoom <= 0 ? wait(a, aid) : 0);
        return { ok: false, limit, remaining: 0, retryAfterMs, refusedBy: kRoom <= 0 ? 'key' : 'account' };
      }
      k.add(now);
      a.add(now);
      count(kid, now);
      count(aid, now);
      return { ok: true, limit, remaining: Math.min(kRoom, aRoom) - 1, retryAfterMs: 0, refusedBy: null };
    },
    noteInvalidKey: perIp.noteInvalidKey,
    invalidKeyBlock: perIp.invalidKeyBlock,
    sweep(now) {
      perIp.sweep(now);
      for (const [id, l] of logs) if (l.idle(now)) logs.delete(id);
      for (const [id, b] of own) {
        for (const sec of b.keys()) if (!live(sec, now)) b.delete(sec);
        if (b.size === 0 && !dirty.has(id)) own.delete(id);
      }
      for (const [id, servers] of remote) {
        for (const [srv, b] of servers) if (!b.buckets.some(([sec]) => live(sec, now))) servers.delete(srv);
        if (servers.size === 0) remote.delete(id);
      }
    },
    close: () => clearInterval(timer),
  };
}
